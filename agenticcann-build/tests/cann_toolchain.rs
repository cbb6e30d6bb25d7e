//! The CANN toolchain cannot run here (no toolkit, no NPU). These tests check what can be
//! checked: the generated CMake project and link lines (snapshots), locating the Ascend C
//! CMake module in a fake toolkit folder laid out like a real one, and a build for the cann
//! backend against that fake toolkit failing as an error, not a panic.

mod common;

use std::path::{Path, PathBuf};

use agenticcann_build::toolchain::cann::{find_cmake_module, CannProject, CMAKE_MODULE_DIRS};
use agenticcann_build::toolchain::Backend;
use agenticcann_build::ErrorKind;
use common::*;

/// A fake toolkit: the files discovery and the CMake project use, at the vendor's paths
/// (`<root>/<module dir>/ascendc.cmake`, `include/acl/acl.h`, `lib64/libascendcl.so`,
/// `lib64/libruntime.so`). The module stops configuration with a message when CMake runs it.
fn fake_toolkit(module_dir: Option<&str>) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    std::fs::create_dir_all(r.join("include/acl")).unwrap();
    std::fs::write(r.join("include/acl/acl.h"), "/* fake */\n").unwrap();
    std::fs::create_dir_all(r.join("lib64")).unwrap();
    std::fs::write(r.join("lib64/libascendcl.so"), "").unwrap();
    std::fs::write(r.join("lib64/libruntime.so"), "").unwrap();
    if let Some(d) = module_dir {
        std::fs::create_dir_all(r.join(d)).unwrap();
        std::fs::write(
            r.join(d).join("ascendc.cmake"),
            "function(ascendc_library)\n  message(FATAL_ERROR \"fake toolkit: ascendc_library ${ARGN}\")\nendfunction()\n",
        )
        .unwrap();
    }
    t
}

#[test]
fn fake_toolkit_cmake_module_is_found_in_either_vendor_location() {
    for d in CMAKE_MODULE_DIRS {
        let t = fake_toolkit(Some(d));
        assert_eq!(find_cmake_module(t.path()).unwrap(), t.path().join(d));
    }
}

#[test]
fn fake_toolkit_without_the_module_lists_every_path_searched() {
    let t = fake_toolkit(None);
    let e = find_cmake_module(t.path()).unwrap_err().message;
    for d in CMAKE_MODULE_DIRS {
        assert!(
            e.contains(&format!(
                "  - {}",
                t.path().join(d).join("ascendc.cmake").display()
            )),
            "{e}"
        );
    }
    assert!(e.contains("AGENTICCANN_BACKEND=sim"), "{e}");
}

fn project(gen: &Path, toolkit: &Path) -> CannProject {
    CannProject {
        package: "my-crate".into(),
        soc: "Ascend910B3".into(),
        toolkit: toolkit.to_path_buf(),
        cmake_module_dir: toolkit.join("compiler/tikcpp/ascendc_kernel_cmake"),
        kernel_sources: vec![
            gen.join("src/agc_95ea08cc1c93d469_kernel.cpp"),
            gen.join("src/agc_2af6db43b5e7d6b5_kernel.cpp"),
        ],
        tiling_sources: vec![
            gen.join("src/agc_95ea08cc1c93d469_tiling.cpp"),
            gen.join("src/agc_2af6db43b5e7d6b5_tiling.cpp"),
        ],
        include_dir: gen.join("include"),
        kernels_lib: "agenticcann_my_crate_kernels".into(),
        tiling_lib: "agenticcann_my_crate_tiling".into(),
    }
}

#[test]
fn generated_cmake_project_and_link_lines() {
    let p = project(
        Path::new("/out/agenticcann/cann"),
        Path::new("/usr/local/Ascend/ascend-toolkit/latest"),
    );
    insta::assert_snapshot!("cann_cmake_lists", p.cmake_lists().unwrap());
    insta::assert_snapshot!(
        "cann_link_lines",
        p.link_lines(Path::new("/out/agenticcann/cann/cmake/out"))
            .join("\n")
    );
    let bad = project(Path::new("/out/with\"quote"), Path::new("/t"));
    assert!(bad
        .cmake_lists()
        .unwrap_err()
        .message
        .contains("cannot be written"));
}

#[test]
fn cann_build_against_a_fake_toolkit_writes_the_project_and_fails_as_an_error() {
    let t = fake_toolkit(Some("tools/tikcpp/ascendc_kernel_cmake"));
    let f = Fixture::new(&["rms_norm"]);
    let e = f
        .builder()
        .backend(Backend::Cann)
        .toolkit(t.path())
        .try_build()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Toolchain);
    assert!(
        e.to_string()
            .starts_with("building the kernels with CMake and the CANN toolkit failed"),
        "{e}"
    );

    // The project was generated: kernels through the toolkit's module with the spec's SoC.
    let gen: PathBuf = f.out().join("agenticcann/cann");
    let lists = std::fs::read_to_string(gen.join("cmake/CMakeLists.txt")).unwrap();
    assert!(lists.contains("set(SOC_VERSION \"Ascend910B1\""), "{lists}");
    assert!(
        lists.contains(&format!(
            "include(\"{}\")",
            t.path()
                .join("tools/tikcpp/ascendc_kernel_cmake/ascendc.cmake")
                .display()
        )),
        "{lists}"
    );
    assert!(
        lists.contains("ascendc_library(agenticcann_build_fixture_kernels STATIC"),
        "{lists}"
    );
    // The toolkit generates the launcher: the kernel wrapper defines none, and includes
    // the kernel at global scope.
    let unit = std::fs::read_to_string(gen.join("src/agc_95ea08cc1c93d469_kernel.cpp")).unwrap();
    assert!(!unit.contains("aclrtlaunch_"), "{unit}");
    assert!(!unit.contains("namespace"), "{unit}");
    assert!(
        unit.contains(&format!(
            "#include \"{}\"",
            f.entry(RMS_NORM).join("kernel.cpp").display()
        )),
        "{unit}"
    );
}
