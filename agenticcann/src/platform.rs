//! [`Platform`]: the numbers of the SoC that kernels run on, as host tiling functions need
//! them (`AgcPlatform` in docs/store-format.md §6).

use std::sync::OnceLock;

use crate::error::{Error, Result};

/// The SoC facts a host tiling function sizes its launch with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Platform {
    /// The SoC name, e.g. `"Ascend910B1"`.
    pub soc: String,
    /// AIV (vector) cores.
    pub aiv_cores: u32,
    /// Unified Buffer per AIV core, bytes.
    pub ub_bytes: u32,
    /// The largest blockDim a launch accepts (65535, api-reference §1.2).
    pub max_block_dim: u32,
}

/// Known SoCs for the CANN backend (api-reference §5): AIV cores and UB bytes.
/// Ascend910B1/B2/B2C: 48 AIV (platform config `vector_core_cnt=48`); B3/B4: 40; UB 192 KiB
/// on arch 2201. Ascend310P1/P3: 8 vector cores, UB 256 KiB on arch 2002.
const KNOWN: [(&str, u32, u32); 7] = [
    ("Ascend910B1", 48, 192 * 1024),
    ("Ascend910B2", 48, 192 * 1024),
    ("Ascend910B2C", 48, 192 * 1024),
    ("Ascend910B3", 40, 192 * 1024),
    ("Ascend910B4", 40, 192 * 1024),
    ("Ascend310P1", 8, 256 * 1024),
    ("Ascend310P3", 8, 256 * 1024),
];

impl Platform {
    /// The platform of this process's kernels. On the simulator: its active SoC profile
    /// (`AGENTICCANN_SIM_PROFILE` / `AGENTICCANN_SOC`, default Ascend910B1), read once per
    /// process; `soc` is not used, since the simulator runs the profile it loaded. On CANN:
    /// the built-in table for `soc` (the spec's SoC, which the kernels were compiled for).
    ///
    /// # Errors
    /// [`Error::Sim`] when the simulator's profile cannot be loaded; [`Error::InvalidArgument`]
    /// for a SoC the CANN table does not know.
    pub fn current(soc: &str) -> Result<Platform> {
        if crate::BACKEND == crate::Backend::Sim {
            static SIM: OnceLock<std::result::Result<Platform, String>> = OnceLock::new();
            return SIM
                .get_or_init(|| match crate::sim::profile() {
                    Ok(Some(p)) => Ok(Platform {
                        soc: p.soc,
                        aiv_cores: p.aiv_cores,
                        ub_bytes: p.ub_bytes,
                        max_block_dim: p.max_block_dim,
                    }),
                    Ok(None) => Err("the simulator reported no profile".to_string()),
                    Err(e) => Err(e.to_string()),
                })
                .clone()
                .map_err(Error::Sim);
        }
        Platform::for_soc(soc)
    }

    /// The built-in numbers for `soc` (case-insensitive), independent of the backend.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an unknown SoC.
    pub fn for_soc(soc: &str) -> Result<Platform> {
        KNOWN
            .iter()
            .find(|(n, _, _)| n.eq_ignore_ascii_case(soc.trim()))
            .map(|&(n, aiv, ub)| Platform {
                soc: n.to_string(),
                aiv_cores: aiv,
                ub_bytes: ub,
                max_block_dim: 65535,
            })
            .ok_or_else(|| {
                Error::invalid_argument(
                    "Platform::for_soc",
                    "soc",
                    "a known SoC (Ascend910B1/B2/B2C/B3/B4, Ascend310P1/P3)",
                    soc,
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_lookup() {
        let p = Platform::for_soc("ascend910b3").unwrap();
        assert_eq!(
            (p.soc.as_str(), p.aiv_cores, p.ub_bytes, p.max_block_dim),
            ("Ascend910B3", 40, 196608, 65535)
        );
        assert!(Platform::for_soc("Ascend910").is_err());
    }

    #[cfg(agenticcann_backend = "sim")]
    #[test]
    fn sim_platform_is_the_active_profile() {
        let p = Platform::current("Ascend310P1").unwrap();
        let profile = crate::sim::profile().unwrap().unwrap();
        assert_eq!(p.soc, profile.soc);
        assert_eq!(p.aiv_cores, profile.aiv_cores);
        assert_eq!(p.ub_bytes, profile.ub_bytes);
    }
}
