//! What happens when an op has no entry in any store root (DESIGN §5 step 2).
//!
//! On a miss the build synthesizes a verified baseline with the offline proposer into
//! `OUT_DIR` and warns (see `run.rs`); when that is turned off (`AGENTICCANN_NO_SYNTH`,
//! `Builder::synth_on_miss(false)`) or fails, the miss is an error that names the op and its
//! key, lists every place searched and says how to produce a kernel. A build script never
//! calls an LLM.

use std::path::Path;

use crate::key::Key;
use crate::store::{Lock, Store};

/// One op without a kernel.
#[derive(Clone, Debug)]
pub struct Miss {
    /// The op.
    pub op: String,
    /// Its key.
    pub key: Key,
}

/// The message for `misses`: per op, its key, the places searched, what the lock says, and
/// how to produce a kernel.
pub fn miss_message(
    misses: &[Miss],
    store: &Store,
    lock: Option<&Lock>,
    crate_root: &Path,
) -> String {
    let mut out = if misses.len() == 1 {
        format!("no kernel for op `{}`", misses[0].op)
    } else {
        format!(
            "no kernel for {} ops: {}",
            misses.len(),
            misses
                .iter()
                .map(|m| format!("`{}`", m.op))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    for m in misses {
        let kernels = store.crate_kernels.join(m.key.to_hex());
        let shown = kernels.strip_prefix(crate_root).unwrap_or(&kernels);
        out.push_str(&format!("\n\nop `{}`, key {}\n  searched:", m.op, m.key));
        for s in store.searched(&m.key) {
            out.push_str(&format!("\n    - {s}"));
        }
        if let Some(pin) = lock.and_then(|l| l.get(&m.op)) {
            if pin.key != m.key {
                out.push_str(&format!(
                    "\n  agenticcann.lock pins `{}` to key {}: the spec changed since that kernel \
                     was accepted, and the kernel for the old spec cannot serve the new one",
                    m.op, pin.key
                ));
            }
        }
        out.push_str(&format!(
            "\n  to produce a kernel:\
             \n    - propose one: `cargo agenticcann synth --op {op} --out {root} --lock` (the offline \
             proposer; judges it, writes {dir}/ and pins it in agenticcann.lock), or\
             \n    - write {dir}/kernel.cpp and tiling.cpp by hand with a manifest.toml (docs/store-format.md), \
             then check and pin them with `cargo agenticcann judge --op {op} --lock {dir}`",
            op = m.op,
            dir = shown.display(),
            root = shown.parent().unwrap_or(shown).display()
        ));
    }
    out
}
