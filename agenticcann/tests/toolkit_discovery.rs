//! Backend selection and CANN toolkit discovery (the build script's logic), against fake
//! toolkit directories laid out like the vendor's packages.

#[allow(dead_code)]
#[path = "../build/discovery.rs"]
mod discovery;

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use discovery::{decide, find_toolkit, probe, standard_roots, Decision, Requested};

/// `<base>/Ascend/ascend-toolkit/<version>/<arch>-linux/{include/acl/acl.h,
/// lib64/libascendcl.so, lib64/libruntime.so}`, with the top-level `include` and `lib64`
/// symlinked into the arch folder and `latest -> <version>`, as CANN's installer does.
/// Returns `<base>/Ascend/ascend-toolkit/latest`.
fn fake_toolkit(base: &Path, arch: &str) -> PathBuf {
    let tk = base.join("Ascend/ascend-toolkit");
    let version = tk.join("8.0.RC3");
    let arch_dir = version.join(format!("{arch}-linux"));
    fs::create_dir_all(arch_dir.join("include/acl")).unwrap();
    fs::create_dir_all(arch_dir.join("lib64")).unwrap();
    fs::write(arch_dir.join("include/acl/acl.h"), "/* fake */\n").unwrap();
    fs::write(arch_dir.join("lib64/libascendcl.so"), b"").unwrap();
    fs::write(arch_dir.join("lib64/libruntime.so"), b"").unwrap();
    std::os::unix::fs::symlink(format!("{arch}-linux/include"), version.join("include")).unwrap();
    std::os::unix::fs::symlink(format!("{arch}-linux/lib64"), version.join("lib64")).unwrap();
    std::os::unix::fs::symlink("8.0.RC3", tk.join("latest")).unwrap();
    fs::write(version.join("set_env.sh"), "# fake\n").unwrap();
    tk.join("latest")
}

fn env_of(pairs: &[(&str, &Path)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.display().to_string()))
        .collect();
    move |k: &str| map.get(k).cloned()
}

#[test]
fn fake_toolkit_laid_out_like_a_real_one_is_found_through_ascend_toolkit_home() {
    let dir = tempfile::tempdir().unwrap();
    let root = fake_toolkit(dir.path(), "x86_64");
    let env = env_of(&[("ASCEND_TOOLKIT_HOME", &root)]);
    let tk = find_toolkit(&env, "x86_64", &[]).unwrap();
    assert_eq!(tk.root, root);
    assert_eq!(tk.include_dir, root.join("include"));
    assert_eq!(tk.lib_dir, root.join("lib64"));
    let (decision, note) = decide(Requested::Auto, &env, "x86_64", &[]).unwrap();
    assert_eq!(decision, Decision::Cann(tk));
    assert!(note.unwrap().contains("backend cann"));
}

#[test]
fn fake_toolkit_without_top_level_symlinks_is_found_in_the_arch_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = fake_toolkit(dir.path(), "aarch64");
    fs::remove_file(root.join("include")).unwrap();
    fs::remove_file(root.join("lib64")).unwrap();
    let tk = probe(&root, "aarch64").unwrap();
    assert_eq!(tk.include_dir, root.join("aarch64-linux/include"));
    assert_eq!(tk.lib_dir, root.join("aarch64-linux/lib64"));
    // The same tree does not serve another architecture.
    let err = probe(&root, "x86_64").unwrap_err();
    assert!(err.contains("no acl/acl.h"), "{err}");
}

#[test]
fn ascend_home_path_and_standard_paths_are_searched_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken");
    fs::create_dir_all(broken.join("include/acl")).unwrap();
    fs::write(broken.join("include/acl/acl.h"), "").unwrap(); // no libraries
    let real = fake_toolkit(&dir.path().join("home"), "x86_64");
    let env = env_of(&[
        ("ASCEND_TOOLKIT_HOME", &broken),
        ("ASCEND_HOME_PATH", &real),
    ]);
    assert_eq!(find_toolkit(&env, "x86_64", &[]).unwrap().root, real);

    // Nothing in the environment: a standard root is used.
    let none = env_of(&[]);
    assert_eq!(
        find_toolkit(&none, "x86_64", &[broken.clone(), real.clone()])
            .unwrap()
            .root,
        real
    );
}

#[test]
fn a_toolkit_missing_libruntime_is_rejected_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let root = fake_toolkit(dir.path(), "x86_64");
    fs::remove_file(root.join("lib64/libruntime.so")).unwrap();
    let err = probe(&root, "x86_64").unwrap_err();
    assert!(err.contains("no libruntime.so"), "{err}");
}

#[test]
fn backend_cann_without_a_toolkit_lists_every_path_searched() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    fs::create_dir_all(&b).unwrap();
    let c = dir.path().join("c");
    let env = env_of(&[("ASCEND_TOOLKIT_HOME", &a), ("ASCEND_HOME_PATH", &b)]);
    let err = decide(Requested::Cann, &env, "x86_64", std::slice::from_ref(&c)).unwrap_err();
    for (path, source) in [
        (&a, "ASCEND_TOOLKIT_HOME"),
        (&b, "ASCEND_HOME_PATH"),
        (&c, "standard path"),
    ] {
        assert!(
            err.contains(&format!("{} (from {source})", path.display())),
            "{err}"
        );
    }
    assert!(err.contains("no such directory"), "{err}");
    assert!(err.contains("no acl/acl.h"), "{err}");
    assert!(err.contains("AGENTICCANN_BACKEND=sim"), "{err}");
}

#[test]
fn auto_without_a_toolkit_falls_back_to_sim_and_says_so() {
    let env = env_of(&[]);
    let (decision, note) = decide(
        Requested::Auto,
        &env,
        "x86_64",
        &[PathBuf::from("/nonexistent/cann")],
    )
    .unwrap();
    assert_eq!(decision, Decision::Sim);
    assert!(note.unwrap().contains("backend sim"));
    // An explicit sim request never looks and says nothing.
    let dir = tempfile::tempdir().unwrap();
    let root = fake_toolkit(dir.path(), "x86_64");
    let env = env_of(&[("ASCEND_TOOLKIT_HOME", &root)]);
    assert_eq!(
        decide(Requested::Sim, &env, "x86_64", &[]).unwrap(),
        (Decision::Sim, None)
    );
}

#[test]
fn backend_values_parse_strictly() {
    assert_eq!(Requested::parse(None).unwrap(), Requested::Auto);
    assert_eq!(Requested::parse(Some("")).unwrap(), Requested::Auto);
    assert_eq!(Requested::parse(Some("CANN")).unwrap(), Requested::Cann);
    assert_eq!(Requested::parse(Some("sim")).unwrap(), Requested::Sim);
    let err = Requested::parse(Some("npu")).unwrap_err();
    assert!(
        err.contains("\"npu\"") && err.contains("`cann`, `sim` or `auto`"),
        "{err}"
    );
}

#[test]
fn standard_roots_cover_both_package_layouts_and_user_installs() {
    let roots = standard_roots(Some("/home/u"));
    assert_eq!(
        roots[0],
        PathBuf::from("/usr/local/Ascend/ascend-toolkit/latest")
    );
    assert_eq!(roots[1], PathBuf::from("/usr/local/Ascend/cann"));
    assert!(roots.contains(&PathBuf::from("/home/u/Ascend/ascend-toolkit/latest")));
    assert!(roots.contains(&PathBuf::from("/home/u/Ascend/cann")));
    assert_eq!(standard_roots(None).len(), 2);
}
