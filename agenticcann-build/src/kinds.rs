//! Every diagnostic kind a candidate kernel can fail with, in one list: the simulator's
//! run-time rules, and the judge's kinds by stage (source policy, compiler-error classes,
//! run, verification, profile plausibility).
//!
//! The knowledge base tags each invariant (L2 chunk) with the kinds it prevents
//! (`error_kinds` in its front matter), so a repair prompt can route a failure to the rule
//! that fixes it (`agenticcann_evolve::knowledge`). Both sides must spell kinds identically; this list is
//! the one place they are spelled. The simulator's kinds are those of
//! `ascendc-sim/src/diag.cpp` (a test keeps the two in sync); the others are the judge's
//! (`judge::KINDS`, DESIGN §8, issue 6).

use std::fmt;

/// Who reports a kind: the simulator, or a stage of the judge (issue 6; the judge's
/// `judge::Stage`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The CPU simulator while the kernel runs (`ascendc_sim::Diagnostic::kind`); the judge
    /// reports these in its run stage.
    Simulator,
    /// The judge's source policy, before any compiler runs.
    Policy,
    /// The judge, classifying the C++ compiler's or linker's output.
    Compiler,
    /// The judge, running the candidate: tiling, launch, limits.
    Run,
    /// The judge, comparing outputs with the reference.
    Verify,
    /// The judge, checking the cost-model profile for plausibility.
    Profile,
}

impl Origin {
    /// `simulator`, `policy`, `compiler`, `run`, `verify` or `profile`.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Simulator => "simulator",
            Origin::Policy => "policy",
            Origin::Compiler => "compiler",
            Origin::Run => "run",
            Origin::Verify => "verify",
            Origin::Profile => "profile",
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
        /// Every kind: the simulator's, then the judge's by stage (policy, compiler, run,
        /// verify, profile).
        pub const ALL: &[ErrorKind] = &[
            $(ErrorKind { name: $name, origin: Origin::$origin, meaning: $meaning },)*
        ];
    };
}

kinds! {
    // Simulator (ascendc-sim/src/diag.cpp; severities as in its README).
    "ub_capacity_exceeded", Simulator, "InitBuffer total (each length rounded up to 32 B) exceeds the Unified Buffer";
    "pipe_buffers_exceeded", Simulator, "more than 64 buffers in one TPipe";
    "position_buffers_exceeded", Simulator, "more than 8 buffers of one TPosition allocated at once";
    "ub_misaligned", Simulator, "a UB operand does not start on a 32-byte boundary";
    "ub_out_of_range", Simulator, "an access leaves its operand's buffer (count too large, TBuf::Get too long)";
    "vector_overlap", Simulator, "a vector destination partially overlaps a source (only exact in-place is allowed)";
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
    "pipe_reset_live_tensors", Simulator, "TPipe::Reset while queue tensors are still allocated or enqueued";
    "pipe_ub_alias", Simulator, "a second live TPipe's InitBuffer overlaps another TPipe's UB (warning)";
    "ub_overlap_in_flight", Simulator, "a GM->UB copy writes into another buffer still in flight";
    "repeat_out_of_range", Simulator, "repeatTime outside [0, 255]";
    "field_out_of_range", Simulator, "another instruction field out of range (blockCount, blockLen, strides, event id, negative count)";
    "reduce_work_buffer_too_small", Simulator, "ReduceSum/Max/Min work buffer below the required size";
    "flag_wait_deadlock", Simulator, "WaitFlag with no earlier SetFlag of the same event and id";
    "flag_set_twice", Simulator, "SetFlag of an event id that is still set (not yet waited); the second WaitFlag would hang";
    "flag_unpaired", Simulator, "SetFlag never waited before the kernel ends";
    "block_dim_invalid", Simulator, "blockDim 0 or above the SoC maximum";
    "kernel_exception", Simulator, "the kernel threw a C++ exception";
    "profile_invalid", Simulator, "the SoC profile could not be used";
    "cost_model_error", Simulator, "the cost model failed";
    "gm_write_race", Simulator, "two cores of one launch wrote the same GM bytes";
    "gm_unsynchronized_access", Simulator, "a core reads GM bytes its own MTE3 copy wrote with no MTE3_MTE2/MTE3_S flag or barrier between";
    "gm_output_read_before_write", Simulator, "a kernel reads output bytes it has not written in this launch (the caller's poison)";
    "ub_row_pitch_mismatch", Simulator, "a DataCopyPad tile's 32-byte row padding is copied to GM as data (warning when a vector op reads the rows as compact)";
    "api_unsupported_on_soc", Simulator, "an API, dtype or Cast pair the selected SoC lacks (profile [capabilities]: DataCopyPad, bf16, cast pairs)";
    // The judge's source policy.
    "too_large", Policy, "a source file over the size, line or token limit";
    "lexical", Policy, "a character or literal the policy does not lex";
    "forbidden_include", Policy, "an #include outside the allowed headers, or through a macro";
    "preprocessor_trick", Policy, "#line, #include_next, _Pragma, __has_include and other preprocessor escapes";
    "token_pasting", Policy, "## token pasting";
    "inline_asm", Policy, "asm / __asm__";
    "forbidden_call", Policy, "a system, process, file, network, environment, clock or thread facility";
    "heap_allocation", Policy, "new, malloc or std containers (no heap on an AI core)";
    "exceptions", Policy, "try, catch, throw";
    "simulator_internals", Policy, "the simulator's or AscendCL's host machinery named in a kernel";
    "reserved_identifier", Policy, "a reserved identifier (__x, _X) outside the allowlist";
    "forbidden_attribute", Policy, "an attribute outside the allowlist";
    "forbidden_extern", Policy, "an extern other than the entry point";
    "missing_entry_point", Policy, "no extern \"C\" AGC_KERNEL / AGC_TILING_FN entry point";
    "forbidden_namespace", Policy, "reopening namespace std or AscendC";
    "abi_macro", Policy, "#define / #undef of the generated header's AGC_* names";
    // Compiler output, classified by the judge.
    "unknown_api", Compiler, "a name the toolkit does not declare (an API that does not exist or is not in the simulator)";
    "no_matching_function", Compiler, "a call whose argument types match no overload";
    "wrong_template_args", Compiler, "template arguments that do not fit (wrong count, kind or deduction conflict)";
    "type_mismatch", Compiler, "a value of one type used where another is required (no implicit conversion)";
    "syntax", Compiler, "the source does not parse";
    "static_assert", Compiler, "a static_assert fired (unsupported dtype or Cast pair on the target)";
    "signature_mismatch", Compiler, "the entry point or tiling function does not have the ABI's signature";
    "linker", Compiler, "undefined or duplicate symbols at link time (entry name, extern \"C\")";
    "compiler_limit", Compiler, "the compiler hit its time or memory limit";
    "other", Compiler, "any other compiler failure";
    "pch_unavailable", Compiler, "the precompiled header could not be built; compiled without it [warning]";
    // Running the candidate.
    "tiling_rejected", Run, "the tiling function returned non-zero for a shape";
    "tiling_block_dim", Run, "the tiling function chose a block_dim outside [1, max_block_dim]";
    "workspace_too_large", Run, "the tiling function asked for more workspace than allowed";
    "launch_error", Run, "the launch failed without a simulator diagnostic";
    "timeout", Run, "the run exceeded its wall-clock limit (a hang, or a very slow kernel)";
    "cpu_limit", Run, "the run exceeded its CPU-time limit";
    "memory_limit", Run, "the run exceeded its memory limit";
    "output_limit", Run, "the run wrote more than its output limit";
    "crash", Run, "the process died by a signal";
    "process_exit", Run, "the process exited before finishing its plan";
    "harness_error", Run, "the judge's harness could not read what the run left";
    "guard_overwritten", Run, "bytes just past a tensor changed: a write past its end";
    // Verification.
    "wrong_result", Verify, "an output differs from the reference beyond tolerance";
    "nonfinite_mismatch", Verify, "NaN or Inf where the reference is finite, or the reverse";
    "constant_output", Verify, "an output is one constant value where the reference varies";
    "unwritten_output", Verify, "output elements still hold the poison pattern";
    "normwise_error", Verify, "the normwise relative error is too large (small-magnitude garbage under atol)";
    "input_modified", Verify, "an input changed during the run";
    // Profile plausibility.
    "below_roofline_floor", Profile, "modelled time below the op's HBM roofline floor";
    "too_few_bytes", Profile, "fewer bytes moved than the tensors hold";
    "impossible_speedup", Profile, "faster than a reference by more than the plausible factor";
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
        assert!(listed.len() > 20, "could not read the list: {listed:?}");
        let ours: BTreeSet<String> = by_origin(Origin::Simulator)
            .map(|k| k.name.to_string())
            .collect();
        let missing: Vec<&String> = listed.difference(&ours).collect();
        assert!(
            missing.is_empty(),
            "simulator kinds missing from kinds.rs: {missing:?}"
        );
        let extra: Vec<&String> = ours.difference(&listed).collect();
        assert!(
            extra.is_empty(),
            "kinds.rs lists simulator kinds diag.cpp does not: {extra:?}"
        );
    }
}
