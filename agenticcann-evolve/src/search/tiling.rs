//! The offline tiling search: tiling variants of the offline proposer and of any parent.
