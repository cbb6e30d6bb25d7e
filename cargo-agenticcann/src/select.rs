//! Which packages a command applies to: cargo's `--manifest-path`, `-p/--package`,
//! `--workspace` and `--exclude`, resolved over `cargo metadata --no-deps`.

use std::path::{Path, PathBuf};

use agenticcann_build::spec::{check_manifest_path, OpSpec, Spec};
use anyhow::{bail, Context, Result};
use cargo_metadata::{Metadata, Package};

/// Loads the workspace metadata (no dependency resolution, so no network and no lockfile
/// writes).
pub fn metadata(manifest: &clap_cargo::Manifest) -> Result<Metadata> {
    let mut cmd = manifest.metadata();
    cmd.no_deps();
    cmd.exec()
        .context("cannot load the workspace with `cargo metadata`")
}

/// The selected packages, sorted by name.
///
/// Without `-p`/`--workspace`/`--exclude`, like cargo: the package whose manifest is the one
/// given by `--manifest-path` (or the nearest `Cargo.toml` above the current directory);
/// for a virtual workspace root, the default members.
///
/// # Errors
/// A `-p` name that is no workspace member.
pub fn packages<'m>(
    meta: &'m Metadata,
    manifest: &clap_cargo::Manifest,
    ws: &clap_cargo::Workspace,
) -> Result<Vec<&'m Package>> {
    let members: Vec<&Package> = meta
        .packages
        .iter()
        .filter(|p| meta.workspace_members.contains(&p.id))
        .collect();
    for name in &ws.package {
        if !members.iter().any(|p| &p.name == name) {
            let mut names: Vec<&str> = members.iter().map(|p| p.name.as_str()).collect();
            names.sort_unstable();
            bail!(
                "package `{name}` not found in the workspace (members: {})",
                names.join(", ")
            );
        }
    }
    let mut selected: Vec<&Package> = if ws.package.is_empty() && !ws.workspace && !ws.all {
        let current = current_manifest(manifest)?;
        match members
            .iter()
            .find(|p| same_file(p.manifest_path.as_std_path(), &current))
        {
            Some(p) => vec![*p],
            None => members
                .iter()
                .filter(|p| meta.workspace_default_members.contains(&p.id))
                .copied()
                .collect(),
        }
    } else {
        let (included, _) = ws.partition_packages(meta);
        included
    };
    selected.retain(|p| !ws.exclude.contains(&p.name));
    selected.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(selected)
}

/// The manifest cargo would use: `--manifest-path`, else the nearest `Cargo.toml` at or
/// above the current directory.
///
/// # Errors
/// A `--manifest-path` that is not a file, or no `Cargo.toml` found.
pub fn current_manifest(manifest: &clap_cargo::Manifest) -> Result<PathBuf> {
    if let Some(p) = &manifest.manifest_path {
        if !p.is_file() {
            bail!("manifest path `{}` does not exist", p.display());
        }
        return Ok(p.clone());
    }
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let mut dir = Some(cwd.as_path());
    while let Some(d) = dir {
        let candidate = d.join("Cargo.toml");
        if candidate.is_file() {
            return Ok(candidate);
        }
        dir = d.parent();
    }
    bail!(
        "could not find `Cargo.toml` in `{}` or any parent directory",
        cwd.display()
    )
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The manifest cargo would use ([`current_manifest`]) and its operator specs.
///
/// # Errors
/// As [`current_manifest`]; specs that do not parse; a manifest without
/// `[package.metadata.agenticcann]`.
pub fn spec_of(manifest: &clap_cargo::Manifest) -> Result<(PathBuf, Spec)> {
    let path = current_manifest(manifest)?;
    let spec = Spec::from_manifest_path(&path)
        .with_context(|| format!("invalid operator specs in {}", path.display()))?
        .with_context(|| format!("{} has no [package.metadata.agenticcann]", path.display()))?;
    Ok((path, spec))
}

/// The op named `name` among the workspace members of `manifest` (only package `package`
/// when given): (package, manifest path, op).
///
/// # Errors
/// The workspace cannot be loaded; no such package; no such op (the message lists the ops
/// there are), an invalid one, or one declared by several packages.
pub fn find_op(
    manifest: &clap_cargo::Manifest,
    package: Option<&str>,
    name: &str,
) -> Result<(String, String, OpSpec)> {
    let meta = metadata(manifest)?;
    let members: Vec<_> = meta
        .packages
        .iter()
        .filter(|p| meta.workspace_members.contains(&p.id))
        .filter(|p| package.is_none_or(|n| p.name.as_str() == n))
        .collect();
    if let Some(n) = package {
        if members.is_empty() {
            bail!("package `{n}` not found in the workspace");
        }
    }
    let mut found = Vec::new();
    let mut all_ops = Vec::new();
    for p in members {
        let report = check_manifest_path(p.manifest_path.as_std_path());
        for o in report.ops {
            all_ops.push(o.name.clone());
            if o.name == name {
                match o.result {
                    Ok(op) => found.push((p.name.to_string(), p.manifest_path.to_string(), op)),
                    Err(problems) => {
                        let lines: Vec<String> =
                            problems.iter().map(|p| format!("  {p}")).collect();
                        bail!(
                            "op `{name}` of package `{}` is invalid:\n{}",
                            p.name,
                            lines.join("\n")
                        );
                    }
                }
            }
        }
    }
    match found.len() {
        1 => Ok(found.pop().expect("one")),
        0 => {
            all_ops.sort();
            bail!(
                "no op `{name}` in the selected packages (ops: {})",
                if all_ops.is_empty() {
                    "none".to_string()
                } else {
                    all_ops.join(", ")
                }
            )
        }
        _ => {
            let pkgs: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
            bail!(
                "op `{name}` is declared by several packages ({}); choose one with -p",
                pkgs.join(", ")
            )
        }
    }
}
