//! The stage-adaptive evolution loop (DESIGN §8, issue 16): generation 1 by the agent,
//! conservative mutation, repair and tuning afterwards, a drift guard, an offline tiling
//! search, and a population per op on disk.

pub mod edit;
pub mod skeleton;
pub mod tiling;
