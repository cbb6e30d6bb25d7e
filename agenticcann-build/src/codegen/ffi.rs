//! Rust FFI for the crate header ([`super::ops_header`]) through bindgen: the tiling
//! structs as `#[repr(C)]` types (with bindgen's layout assertions, checked at compile
//! time), the tiling functions and the launchers.

/// Runs bindgen on the text of `agenticcann_ops.h` and returns the Rust source.
///
/// The output is limited to what the header declares (`AgcPlatform`, `AgcTiling_*`,
/// `agc_*_tiling`, `aclrtlaunch_agc_*`), uses `unsafe extern "C"` blocks (valid in the
/// 2021 and 2024 editions, Rust ≥ 1.82) and derives `Default`, `Debug`, `Clone`, `Copy`.
///
/// # Errors
/// bindgen's message when the header does not parse, and [`INSTALL_LIBCLANG`] when
/// libclang cannot be loaded (bindgen panics then; the panic is caught here so a build
/// script stops with the line to run instead of a backtrace).
pub fn bindgen_ops_header(header: &str) -> Result<String, String> {
    match std::panic::catch_unwind(|| generate(header)) {
        Ok(result) => result,
        Err(payload) => {
            let what = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("bindgen panicked");
            Err(format!(
                "bindgen failed on agenticcann_ops.h: {what}\n{INSTALL_LIBCLANG}"
            ))
        }
    }
}

/// What to do when bindgen cannot load libclang (bindgen loads `libclang.so` at run time
/// and honours `LIBCLANG_PATH`, as its documentation says).
pub const INSTALL_LIBCLANG: &str = "bindgen needs libclang: install it with \
`sudo apt-get install -y libclang-dev` (Debian/Ubuntu), or set LIBCLANG_PATH to the \
folder holding libclang.so";

fn generate(header: &str) -> Result<String, String> {
    let bindings = bindgen::Builder::default()
        .header_contents("agenticcann_ops.h", header)
        .allowlist_type("AgcPlatform|AgcTiling_[0-9a-f]{16}")
        .allowlist_function("agc_[0-9a-f]{16}_tiling|aclrtlaunch_agc_[0-9a-f]{16}")
        .rust_target(bindgen::RustTarget::stable(85, 0).map_err(|e| e.to_string())?)
        .rust_edition(bindgen::RustEdition::Edition2024)
        .layout_tests(true)
        .derive_default(true)
        .derive_debug(true)
        .derive_copy(true)
        .generate_comments(true)
        .use_core()
        .formatter(bindgen::Formatter::Prettyplease)
        .generate()
        .map_err(|e| format!("bindgen failed on agenticcann_ops.h: {e}"))?;
    Ok(bindings.to_string())
}
