//! `ascendc-sim`: a CPU simulator of Ascend C vector kernels.
//!
//! The crate is C++ inside: `include/` holds `kernel_operator.h` (the `AscendC`
//! namespace as kernels use it), `tikicpulib.h` and an AscendCL subset
//! (`include/acl/`); `src/` holds the runtime, compiled by the build script into the
//! static library `ascendc_sim`. Dependents' build scripts find the headers through
//! the `links` metadata (`DEP_ASCENDC_SIM_INCLUDE`). See the crate README.
