//! Issue 14's list of missing names (`tests/issue14/names.txt`): each name is a probe, a
//! few statements using it with its documented signature, compiled on its own against
//! `include/`. Names marked `+` are implemented and must compile; the test prints how
//! many probes, and how many of the issue's examples (the counts it gives per name), compile.
//!
//! `ASCENDC_SIM_PROBE_INCLUDE=<dir>` measures another include folder (e.g. an older
//! checkout's) and only reports.

use std::path::{Path, PathBuf};
use std::process::Command;

struct Probe {
    implemented: bool,
    name: String,
    examples: u32,
    includes: Vec<String>,
    body: String,
    host: bool,
}

fn probes() -> Vec<Probe> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/issue14/names.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let implemented = line.starts_with('+');
        let fields: Vec<&str> = line[1..].splitn(3, '|').map(str::trim).collect();
        assert_eq!(
            fields.len(),
            3,
            "names.txt:{}: expected `name | examples | snippet`",
            i + 1
        );
        let (name, host) = match fields[0].strip_prefix("host:") {
            Some(n) => (n.trim().to_string(), true),
            None => (fields[0].to_string(), false),
        };
        let examples = fields[1]
            .parse()
            .unwrap_or_else(|_| panic!("names.txt:{}: bad example count", i + 1));
        let (includes, body) = match fields[2].split_once("@@") {
            Some((inc, body)) => (
                inc.split("#include")
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(|s| format!("#include {s}"))
                    .collect(),
                body.trim().to_string(),
            ),
            None => (Vec::new(), fields[2].to_string()),
        };
        out.push(Probe {
            implemented,
            name,
            examples,
            includes,
            body,
            host,
        });
    }
    out
}

fn source(p: &Probe) -> String {
    let mut s = String::from("#include <cstdint>\n");
    for inc in &p.includes {
        s.push_str(inc);
        s.push('\n');
    }
    if p.host {
        if p.name.contains("tiling-data") {
            // The custom-op project's tiling header shape.
            s.push_str(
                "BEGIN_TILING_DATA_DEF(TilingDemo)\nTILING_DATA_FIELD_DEF(uint32_t, totalLength);\n\
                 TILING_DATA_FIELD_DEF(uint32_t, tileNum);\nEND_TILING_DATA_DEF;\n\
                 REGISTER_TILING_DATA_CLASS(Demo, TilingDemo)\n",
            );
        }
        s.push_str(&format!("int main() {{\n  {}\n  return 0;\n}}\n", p.body));
    } else {
        s.push_str("#include \"kernel_operator.h\"\nusing namespace AscendC;\n");
        s.push_str(&format!(
            "__aicore__ void probe(GM_ADDR x) {{\n  (void)x;\n  {}\n}}\nint main() {{ return 0; }}\n",
            p.body
        ));
    }
    s
}

fn compiles(p: &Probe, include: &Path, dir: &Path, i: usize) -> (bool, String) {
    let file = dir.join(format!("probe{i}.cpp"));
    std::fs::write(&file, source(p)).unwrap();
    // The simulator's tests sit below agenticcann-build and its one environment reader.
    #[allow(clippy::disallowed_methods)]
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    let out = Command::new(&cxx)
        .args(["-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-I"])
        .arg(include)
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cxx}: {e}"));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_issue_names_compile() {
    #[allow(clippy::disallowed_methods)]
    let custom = std::env::var("ASCENDC_SIM_PROBE_INCLUDE")
        .ok()
        .map(PathBuf::from);
    let include = custom
        .clone()
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("include"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("issue14_probes");
    std::fs::create_dir_all(&dir).unwrap();
    let ps = probes();
    assert!(ps.len() >= 30);
    // Two compilers at a time (the machine is shared).
    let results: Vec<(bool, String)> = std::thread::scope(|s| {
        let half = ps.len().div_ceil(2);
        let (a, b) = ps.split_at(half);
        let inc = &include;
        let d = &dir;
        let ha = s.spawn(move || {
            a.iter()
                .enumerate()
                .map(|(i, p)| compiles(p, inc, d, i))
                .collect::<Vec<_>>()
        });
        let hb = s.spawn(move || {
            b.iter()
                .enumerate()
                .map(|(i, p)| compiles(p, inc, d, half + i))
                .collect::<Vec<_>>()
        });
        let mut r = ha.join().unwrap();
        r.extend(hb.join().unwrap());
        r
    });
    let (mut ok, mut ex_ok, mut ex_all) = (0, 0, 0);
    let mut failures = Vec::new();
    for (p, (good, err)) in ps.iter().zip(&results) {
        ex_all += p.examples;
        if *good {
            ok += 1;
            ex_ok += p.examples;
        }
        println!(
            "{} {} ({} examples)",
            if *good { "compiles" } else { "missing " },
            p.name,
            p.examples
        );
        if p.implemented && !good {
            failures.push(format!(
                "{}:\n{}",
                p.name,
                err.lines().take(8).collect::<Vec<_>>().join("\n")
            ));
        }
    }
    println!(
        "issue 14 probes: {ok} of {} names compile; they cover {ex_ok} of the {ex_all} name-example counts the issue lists",
        ps.len()
    );
    if custom.is_none() {
        assert!(
            failures.is_empty(),
            "implemented names that do not compile:\n{}",
            failures.join("\n\n")
        );
    }
}
