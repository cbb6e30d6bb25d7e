//! Target SoCs and the kernel architecture each compiles for.

use std::fmt;
use std::str::FromStr;

/// The vector-core architecture a kernel is compiled for (bisheng's `--cce-aicore-arch`).
/// Part of every [`Key`](crate::key::Key): kernels for different archs are different entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// The AIV (vector) cores of the Atlas A2 training series, Ascend 910B1–B4.
    DavC220Vec,
    /// The vector units of the Atlas inference series, Ascend 310P.
    DavM200Vec,
}

impl Arch {
    /// The arch string as the CANN toolchain spells it (`"dav-c220-vec"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Arch::DavC220Vec => "dav-c220-vec",
            Arch::DavM200Vec => "dav-m200-vec",
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A target SoC, written in manifests as CANN's `soc_version` (`"Ascend910B1"`).
///
/// Known SoCs and their archs (CANN's platform configuration names):
/// `Ascend910B1`, `Ascend910B2`, `Ascend910B2C`, `Ascend910B3`, `Ascend910B4` →
/// `dav-c220-vec`; `Ascend310P1`, `Ascend310P3` → `dav-m200-vec`. Parsing ignores ASCII case
/// and keeps the canonical spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Soc {
    name: &'static str,
    arch: Arch,
}

const KNOWN: [(&str, Arch); 7] = [
    ("Ascend910B1", Arch::DavC220Vec),
    ("Ascend910B2", Arch::DavC220Vec),
    ("Ascend910B2C", Arch::DavC220Vec),
    ("Ascend910B3", Arch::DavC220Vec),
    ("Ascend910B4", Arch::DavC220Vec),
    ("Ascend310P1", Arch::DavM200Vec),
    ("Ascend310P3", Arch::DavM200Vec),
];

impl Soc {
    /// The canonical name (`"Ascend910B1"`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The vector arch kernels for this SoC compile for.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// The canonical names of every known SoC.
    pub fn known_names() -> impl Iterator<Item = &'static str> {
        KNOWN.iter().map(|(n, _)| *n)
    }
}

impl fmt::Display for Soc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// The error of [`Soc::from_str`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown SoC `{0}` (known: Ascend910B1, Ascend910B2, Ascend910B2C, Ascend910B3, Ascend910B4, Ascend310P1, Ascend310P3)")]
pub struct UnknownSoc(pub String);

impl FromStr for Soc {
    type Err = UnknownSoc;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        KNOWN
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(s.trim()))
            .map(|&(name, arch)| Soc { name, arch })
            .ok_or_else(|| UnknownSoc(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_socs_to_archs() {
        for n in ["Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4"] {
            assert_eq!(n.parse::<Soc>().unwrap().arch().as_str(), "dav-c220-vec");
        }
        let p: Soc = "ascend310p3".parse().unwrap();
        assert_eq!(p.name(), "Ascend310P3");
        assert_eq!(p.arch(), Arch::DavM200Vec);
        let e = "Ascend910".parse::<Soc>().unwrap_err();
        assert!(e.to_string().contains("unknown SoC `Ascend910`"));
    }
}
