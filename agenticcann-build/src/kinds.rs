//! Every diagnostic kind a candidate kernel can fail with, in one list: the simulator's
//! run-time rules, the compile-error classes the judge sorts compiler output into, and the
//! judge's verification outcomes.
//!
//! The knowledge base tags each invariant (L2 chunk) with the kinds it prevents
//! (`error_kinds` in its front matter), so a repair prompt can route a failure to the rule
//! that fixes it ([`crate::knowledge`]). Both sides must spell kinds identically; this list is
//! the one place they are spelled. The simulator's kinds are those of
//! `ascendc-sim/src/diag.cpp` (a test keeps the two in sync); the compiler and judge kinds
//! are this project's own classification (DESIGN §8, issue 6).

use std::fmt;

/// Who reports a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The CPU simulator while the kernel runs (`ascendc_sim::Diagnostic::kind`).
    Simulator,
    /// The judge, classifying the C++ compiler's or linker's output.
    Compiler,
    /// The judge, comparing outputs with the reference or supervising the run.
    Judge,
}

impl Origin {
    /// `simulator`, `compiler` or `judge`.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Simulator => "simulator",
            Origin::Compiler => "compiler",
            Origin::Judge => "judge",
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One diagnostic kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ErrorKind {
    /// The stable snake_case name.
    pub name: &'static str,
    /// Who reports it.
    pub origin: Origin,
    /// What it means, in one line.
    pub meaning: &'static str,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

macro_rules! kinds {
    ($($name:literal, $origin:ident, $meaning:literal;)*) => {
        /// Every kind, simulator kinds first (in `diag.cpp` order), then compiler, then judge.
        pub const ALL: &[ErrorKind] = &[
            $(ErrorKind { name: $name, origin: Origin::$origin, meaning: $meaning },)*
        ];
    };
}

kinds! {
    // Simulator (ascendc-sim/src/diag.cpp; severities as in the sim README).
    "ub_capacity_exceeded", Simulator, "InitBuffer total (each length rounded up to 32 B) exceeds the Unified Buffer";
    "pipe_buffers_exceeded", Simulator, "more than 64 buffers in one TPipe";
    "position_buffers_exceeded", Simulator, "more than 8 buffers of one TPosition allocated at once";
    "ub_misaligned", Simulator, "a UB operand does not start on a 32-byte boundary";
    "ub_out_of_range", Simulator, "an access leaves its operand's buffer (count too large, TBuf::Get too long)";
    "tensor_not_allocated", Simulator, "a default-constructed LocalTensor was used";
    "tensor_use_after_free", Simulator, "a tensor was used after FreeTensor, TPipe::Destroy or Reset";
    "ub_uninitialized_read", Simulator, "never-written UB (e.g. DataCopyPad pad lanes) copied to GM or read by GetValue";
    "ub_unsynchronized_access", Simulator, "two pipes touch the same UB bytes with no queue hand-off, flag or barrier between";
    "datacopy_truncated", Simulator, "DataCopy byte length not a multiple of 32 (the NPU drops the tail) [warning]";
    "compare_count_truncated", Simulator, "Compare count form not whole 256-byte groups (the rest is not compared) [warning]";
    "mask_invalid", Simulator, "contiguous mask above the lanes of one repeat (clamped) [warning]";
    "gm_out_of_bounds", Simulator, "GM access outside what the host allocated";
    "queue_alloc_beyond_depth", Simulator, "AllocTensor with every buffer of the queue in use (hangs on the NPU)";
    "queue_deque_empty", Simulator, "DeQue with nothing enqueued (hangs on the NPU)";
    "queue_double_free", Simulator, "FreeTensor of a tensor already freed";
    "queue_foreign_tensor", Simulator, "EnQue or FreeTensor of a tensor from another queue";
    "queue_enque_wrong_state", Simulator, "EnQue of a tensor already enqueued";
    "queue_enque_beyond_depth", Simulator, "more tensors enqueued than the queue depth";
    "queue_tensor_not_freed", Simulator, "tensors still allocated or enqueued when the kernel ends";
    "queue_not_initialized", Simulator, "a TQue or TBuf used before TPipe::InitBuffer";
    "repeat_out_of_range", Simulator, "repeatTime outside [0, 255]";
    "field_out_of_range", Simulator, "another instruction field out of range (blockCount, blockLen, strides, event id, negative count)";
    "reduce_work_buffer_too_small", Simulator, "ReduceSum/Max/Min work buffer below the required size";
    "flag_wait_deadlock", Simulator, "WaitFlag with no earlier SetFlag of the same event and id";
    "flag_unpaired", Simulator, "SetFlag never waited before the kernel ends";
    "block_dim_invalid", Simulator, "blockDim 0 or above the SoC maximum";
    "kernel_exception", Simulator, "the kernel threw a C++ exception";
    "profile_invalid", Simulator, "the SoC profile could not be used";
    "cost_model_error", Simulator, "the cost model failed";
    // Compiler output, classified by the judge.
    "unknown_api", Compiler, "a name the toolkit does not declare (an API that does not exist or is not in the simulator)";
    "no_matching_function", Compiler, "a call whose argument types match no overload";
    "wrong_template_args", Compiler, "template arguments that do not fit (wrong count, kind or deduction conflict)";
    "type_mismatch", Compiler, "a value of one type used where another is required (no implicit conversion)";
    "syntax", Compiler, "the source does not parse";
    "static_assert", Compiler, "a static_assert fired (unsupported dtype or Cast pair on the target)";
    "linker", Compiler, "undefined or duplicate symbols at link time (entry name, extern \"C\")";
    // Verification and supervision by the judge.
    "wrong_result", Judge, "an output differs from the reference beyond tolerance";
    "nonfinite_mismatch", Judge, "NaN or Inf where the reference is finite, or the reverse";
    "timeout", Judge, "the run exceeded its time limit (a hang: a loop that never ends)";
}

/// The kind named `name`.
pub fn lookup(name: &str) -> Option<&'static ErrorKind> {
    ALL.iter().find(|k| k.name == name)
}

/// The kinds reported by `origin`, in list order.
pub fn by_origin(origin: Origin) -> impl Iterator<Item = &'static ErrorKind> {
    ALL.iter().filter(move |k| k.origin == origin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn names_are_unique_snake_case() {
        let mut seen = BTreeSet::new();
        for k in ALL {
            assert!(seen.insert(k.name), "duplicate kind {}", k.name);
            assert!(
                k.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{} is not snake_case",
                k.name
            );
        }
        assert_eq!(lookup("ub_misaligned").unwrap().origin, Origin::Simulator);
        assert_eq!(lookup("linker").unwrap().origin, Origin::Compiler);
        assert!(lookup("ub_misalign").is_none());
    }

    /// The simulator's kinds are exactly those listed at the top of its `diag.cpp`.
    #[test]
    fn simulator_kinds_match_diag_cpp() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../ascendc-sim/src/diag.cpp");
        let text = std::fs::read_to_string(path).unwrap();
        let header: String = text
            .lines()
            .take_while(|l| l.starts_with("//"))
            .skip_while(|l| !l.contains("Stable diagnostic kinds"))
            .skip(1)
            .map(|l| l.trim_start_matches('/'))
            .collect::<Vec<_>>()
            .join(" ");
        let listed: BTreeSet<String> = header
            .split(',')
            .map(|s| {
                s.replace("(warning)", "")
                    .trim()
                    .trim_end_matches('.')
                    .to_string()
            })
            .filter(|s| !s.is_empty())
            .collect();
        let ours: BTreeSet<String> = by_origin(Origin::Simulator)
            .map(|k| k.name.to_string())
            .collect();
        assert!(listed.len() > 20, "could not read the list: {listed:?}");
        assert_eq!(ours, listed);
    }
}
