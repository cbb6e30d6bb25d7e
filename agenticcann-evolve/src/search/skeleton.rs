//! The pipeline skeleton of a kernel and the drift guard built on it.
