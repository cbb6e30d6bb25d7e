//! The shipped per-SoC profiles and the strict profile loader.

use std::path::Path;

use cost_model_tests::{replay, replay_with, with_env, Options, Script, PROFILE_DIR};

const SHIPPED: [(&str, u32); 5] = [
    ("Ascend910B1", 48),
    ("Ascend910B2", 48),
    ("Ascend910B3", 40),
    ("Ascend910B4", 40),
    ("Ascend310P1", 8),
];

fn tiny() -> String {
    let mut s = Script::new();
    s.launch(1).scalar(10).finish("tiny");
    s.text().to_string()
}

fn shipped_text(soc: &str) -> String {
    std::fs::read_to_string(Path::new(PROFILE_DIR).join(format!("{soc}.toml"))).unwrap()
}

/// Loads `text` through AGENTICCANN_SIM_PROFILE; returns the loader's error message.
fn load_error(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("custom.toml");
    std::fs::write(&path, text).unwrap();
    let err = replay(
        &tiny(),
        &with_env(&[("AGENTICCANN_SIM_PROFILE", path.to_str().unwrap())]),
    )
    .expect_err("the profile should be rejected");
    assert_eq!(err.status, 3, "{err}");
    assert!(
        err.stderr.contains("custom.toml"),
        "the error names the file: {err}"
    );
    err.stderr
}

#[test]
fn every_shipped_profile_loads_with_its_core_count() {
    for (soc, cores) in SHIPPED {
        let r = replay_with(&tiny(), &with_env(&[("AGENTICCANN_SOC", soc)]));
        assert_eq!(r.soc, soc);
        assert_eq!(r.physical_cores, cores, "{soc}");
        assert!(r.launch_overhead_us > 0.0);
    }
}

#[test]
fn the_default_is_ascend910b1_from_the_folder_compiled_in() {
    let opts = Options {
        builtin_profile_dir: true,
        ..Options::default()
    };
    let r = replay_with(&tiny(), &opts);
    assert_eq!(r.soc, "Ascend910B1");
}

#[test]
fn shipped_profiles_are_valid_toml_and_every_number_has_a_source() {
    for (soc, _) in SHIPPED {
        let doc: toml::Table = shipped_text(soc)
            .parse()
            .unwrap_or_else(|e| panic!("{soc}: {e}"));
        let mut numbers = 0;
        fn walk(name: &str, t: &toml::Table, numbers: &mut usize, soc: &str) {
            let child = |k: &str| {
                if name.is_empty() {
                    k.to_string()
                } else {
                    format!("{name}.{k}")
                }
            };
            let table_source = t
                .get("source")
                .is_some_and(|v| v.as_str().is_some_and(|s| !s.is_empty()));
            for (k, v) in t {
                match v {
                    toml::Value::Table(sub) => walk(&child(k), sub, numbers, soc),
                    toml::Value::Integer(_) | toml::Value::Float(_) if name != "profile" => {
                        *numbers += 1;
                        let own = t
                            .get(&format!("{k}_source"))
                            .is_some_and(|v| v.as_str().is_some_and(|s| !s.is_empty()));
                        assert!(own || table_source, "{soc}: {name}.{k} has no source");
                    }
                    _ => {}
                }
            }
        }
        walk("", &doc, &mut numbers, soc);
        assert!(numbers > 40, "{soc}: only {numbers} numbers");
        assert_eq!(doc["profile"]["soc"].as_str(), Some(soc));
    }
}

#[test]
fn a_calibrated_profile_file_overrides_the_soc() {
    let text = shipped_text("Ascend910B1").replace("overhead_us = 5.0", "overhead_us = 7.5");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("calibrated.toml");
    std::fs::write(&path, text).unwrap();
    let r = replay_with(
        &tiny(),
        &with_env(&[
            ("AGENTICCANN_SIM_PROFILE", path.to_str().unwrap()),
            ("AGENTICCANN_SOC", "Ascend910B4"),
        ]),
    );
    assert_eq!(r.launch_overhead_us, 7.5);
    assert_eq!(r.soc, "Ascend910B1");
}

#[test]
fn loader_errors_name_the_file_line_and_key() {
    let base = shipped_text("Ascend910B1");
    let line_of = |needle: &str| base.lines().position(|l| l.starts_with(needle)).unwrap() + 1;

    let e = load_error(&base.replace("clock_mhz = 1850", "clock_mhz = 1850000000"));
    assert!(
        e.contains(&format!(":{}:", line_of("clock_mhz = ")))
            && e.contains("soc.clock_mhz")
            && e.contains("out of range"),
        "{e}"
    );

    let e = load_error(&base.replace("overhead_us = 5.0", "overhed_us = 5.0"));
    assert!(
        e.contains("launch.overhead_us") && e.contains("missing"),
        "{e}"
    );

    let e = load_error(&base.replace(
        "block_start_ns = 200",
        "block_start_ns = 200\nblock_stat_ns = 1",
    ));
    assert!(
        e.contains("launch.block_stat_ns") && e.contains("unknown key"),
        "{e}"
    );

    let without_source: String = base
        .lines()
        .filter(|l| !l.starts_with("clock_mhz_source"))
        .map(|l| format!("{l}\n"))
        .collect();
    let e = load_error(&without_source);
    assert!(
        e.contains("soc.clock_mhz") && e.contains("no source"),
        "{e}"
    );

    let e = load_error(&base.replace("burst_bytes = 128", "burst_bytes = 12.5"));
    assert!(
        e.contains("dma.burst_bytes") && e.contains("integer"),
        "{e}"
    );

    let e = load_error(&base.replace("burst_bytes = 128", "burst_bytes = 96"));
    assert!(
        e.contains("dma.burst_bytes") && e.contains("power of two"),
        "{e}"
    );

    let e = load_error(&base.replace("issue_cycles = 8", "issue_cycles = \"8\""));
    assert!(
        e.contains("dma.issue_cycles") && e.contains("number"),
        "{e}"
    );

    let e = load_error(&base.replace("format = 1", "format = 2"));
    assert!(e.contains("profile.format"), "{e}");

    let e = load_error(&base.replace("[hbm]", "[hbm]\npeak_gbps = 1\n"));
    assert!(e.contains("defined twice"), "{e}");

    let e = load_error(&base.replace("[scalar]", "[scalars]"));
    assert!(
        e.contains(&format!(
            ":{}: unknown table [scalars]",
            line_of("[scalar]")
        )),
        "{e}"
    );

    let e = load_error(&base.replace("soc = \"Ascend910B1\"", "soc = \"Ascend910B1"));
    assert!(e.contains("unterminated string"), "{e}");

    let e = load_error(&base.replace("simple_b16 = 128\nsimple_b32 = 64\n", ""));
    assert!(
        e.contains("simple_b16") && e.contains("at least one width"),
        "{e}"
    );

    let e = load_error(&base.replace("gather_b32 = 5", "gather_b32 = [5]"));
    assert!(e.contains("not supported"), "{e}");
}

#[test]
fn an_unknown_soc_lists_the_shipped_profiles() {
    let err = replay(&tiny(), &with_env(&[("AGENTICCANN_SOC", "Ascend999")])).unwrap_err();
    assert!(
        err.stderr.contains("Ascend999") && err.stderr.contains("Ascend910B1"),
        "{err}"
    );
    let err = replay(&tiny(), &with_env(&[("AGENTICCANN_SOC", "../etc/passwd")])).unwrap_err();
    assert!(err.stderr.contains("not a SoC name"), "{err}");
}

#[test]
fn a_profile_named_for_another_soc_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Ascend910B2.toml"),
        shipped_text("Ascend910B1"),
    )
    .unwrap();
    let mut opts = with_env(&[("AGENTICCANN_SOC", "Ascend910B2")]);
    opts.env.push((
        "AGENTICCANN_SIM_PROFILE_DIR".into(),
        dir.path().to_str().unwrap().into(),
    ));
    let err = replay(&tiny(), &opts).unwrap_err();
    assert!(err.stderr.contains("named for"), "{err}");
}
