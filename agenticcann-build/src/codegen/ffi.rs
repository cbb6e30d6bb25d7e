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
/// bindgen's message when libclang cannot be loaded or the header does not parse (bindgen
/// needs libclang at build time: `apt-get install libclang-dev` on Debian).
pub fn bindgen_ops_header(header: &str) -> Result<String, String> {
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
