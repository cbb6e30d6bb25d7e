//! Pending results in the user cache, and accepting them into a crate.
