//! The safe wrapper module, `agenticcann_ops.rs`, that `agenticcann::include_ops!()` brings
//! in as `mod ops`: one function per op,
//!
//! ```text
//! ops::<op>(&Stream, &DeviceBuffer<T> per input (manifest order),
//!           &mut DeviceBuffer<T> per output (manifest order),
//!           named dimensions as usize (order of first appearance, inputs then outputs))
//!     -> Result<(), agenticcann::Error>
//! ```
//!
//! Each checks, in order, and returns [`agenticcann::Error::InvalidArgument`] naming the op,
//! the argument, expected and actual:
//!
//! 1. every buffer's element type against the spec's dtype (`bool` tensors are `u8` buffers
//!    holding 0/1);
//! 2. every buffer's length against the shape bound by the named dimensions, and every
//!    tensor's element count against [`MAX_TENSOR_ELEMENTS`] (kernels index GM with
//!    `uint32_t`);
//!
//! then returns `Ok(())` without launching when an output has 0 elements (FC-27), calls the
//! entry's host tiling function with the dims in tiling order ([`OpSpec::named_dims`]; a
//! refusal or a blockDim outside `[1, max_block_dim]` is `agenticcann::Error::Tiling`),
//! allocates the workspace it asks for, and launches `aclrtlaunch_agc_<key16>` with the GM
//! pointers in kernel order ([`OpSpec::kernel_params`]). Kernel failures surface at the
//! stream's next synchronize, as for any launch.
//!
//! [`agenticcann::Error::InvalidArgument`]: https://docs.rs/agenticcann

use std::fmt::Write as _;

use super::names::{
    camel, kernel_symbol, launcher_symbol, rust_ident, tiling_struct, tiling_symbol,
};
use crate::key::Key;
use crate::spec::{Dim, Dtype, OpSpec};

/// The most elements one tensor may have for the generated wrappers: 2^32 − 1, so that
/// kernels may index GM with `uint32_t` (docs/store-format.md §5).
pub const MAX_TENSOR_ELEMENTS: u64 = u32::MAX as u64;

/// What the generated functions do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WrapperMode {
    /// Check arguments, compute tiling, launch (a normal build).
    Launch,
    /// Same signatures and docs, no FFI; every call returns an error (`DOCS_RS` builds,
    /// which compile no kernel).
    DocsStub,
}

/// One op to wrap.
#[derive(Clone, Debug)]
pub struct WrapperOp<'a> {
    /// The op.
    pub op: &'a OpSpec,
    /// Its key (the entry's).
    pub key: Key,
    /// Where its entry came from, for the docs (`"kernels/<key>"`, `"the user cache"`).
    pub source: String,
}

/// The named dimensions in the wrapper's argument order: first appearance over inputs then
/// outputs, each in manifest order (not [`OpSpec::named_dims`], which is the tiling order).
pub fn wrapper_dims(op: &OpSpec) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let decls = op
        .inputs
        .iter()
        .map(|i| &i.decl)
        .chain(op.outputs.iter().map(|o| &o.decl));
    for d in decls {
        for n in d.shape.named_dims() {
            if !out.iter().any(|o| o == n) {
                out.push(n.to_string());
            }
        }
    }
    out
}

fn dtype_variant(d: Dtype) -> &'static str {
    match d {
        Dtype::F16 => "F16",
        Dtype::Bf16 => "BF16",
        Dtype::F32 => "F32",
        Dtype::I32 => "I32",
        Dtype::I8 => "I8",
        Dtype::U8 | Dtype::Bool => "U8",
    }
}

/// The Rust names of one op's parameters, free of collisions with each other.
struct Names {
    stream: String,
    tensors: Vec<(String, String)>, // (spec name, rust ident)
    types: Vec<String>,
    dims: Vec<(String, String)>,
}

fn names(op: &OpSpec) -> Names {
    let tensor_names: Vec<&str> = op
        .inputs
        .iter()
        .map(|i| i.name.as_str())
        .chain(op.outputs.iter().map(|o| o.name.as_str()))
        .collect();
    let dims = wrapper_dims(op);
    let mut used: Vec<String> = Vec::new();
    let mut tensors = Vec::new();
    for t in &tensor_names {
        let id = rust_ident(t);
        used.push(id.clone());
        tensors.push((t.to_string(), id));
    }
    let mut dim_ids = Vec::new();
    for d in &dims {
        let mut id = rust_ident(d);
        if used.contains(&id) {
            id = format!("{d}_dim");
        }
        used.push(id.clone());
        dim_ids.push((d.clone(), id));
    }
    let mut stream = "stream".to_string();
    while used.contains(&stream) {
        stream.push('_');
    }
    let mut types: Vec<String> = Vec::new();
    for t in &tensor_names {
        let mut ty = format!("T{}", camel(t));
        while types.contains(&ty) {
            ty.push('_');
        }
        types.push(ty);
    }
    Names {
        stream,
        tensors,
        types,
        dims: dim_ids,
    }
}

const SUPPORT: &str = r#"
/// Checks shared by the generated functions.
mod support {
    use ::agenticcann::{DType, DeviceBuffer, DeviceRepr, Error, Stream};

    /// The most elements one tensor may have: kernels index GM with `uint32_t`.
    pub const MAX_TENSOR_ELEMENTS: u64 = u32::MAX as u64;

    fn binding(dims: &[(&str, usize)]) -> String {
        dims.iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The buffer's element type must be `expected`.
    pub fn dtype<T: DeviceRepr>(op: &str, arg: &str, expected: DType) -> Result<(), Error> {
        if T::DTYPE == expected {
            Ok(())
        } else {
            Err(Error::invalid_argument(
                op,
                arg,
                format!("a buffer of {expected} elements"),
                format!("a buffer of {} elements", T::DTYPE),
            ))
        }
    }

    /// Elements of the tensor `decl` under `dims`; its buffer must hold exactly that many.
    pub fn tensor(
        op: &str,
        arg: &str,
        decl: &str,
        shape: &[usize],
        dims: &[(&str, usize)],
        len: usize,
    ) -> Result<usize, Error> {
        let bound = if dims.is_empty() {
            decl.to_string()
        } else {
            format!("{decl} with {}", binding(dims))
        };
        let count = if shape.contains(&0) {
            Some(0u64)
        } else {
            shape
                .iter()
                .try_fold(1u64, |n, &d| n.checked_mul(d as u64))
                .filter(|&n| n <= MAX_TENSOR_ELEMENTS)
        };
        let Some(count) = count else {
            return Err(Error::invalid_argument(
                op,
                arg,
                format!("at most {MAX_TENSOR_ELEMENTS} elements (kernels index GM with uint32_t)"),
                format!("shape {shape:?} ({bound})"),
            ));
        };
        if count != len as u64 {
            return Err(Error::invalid_argument(
                op,
                arg,
                format!("{count} elements ({bound})"),
                format!("{len} elements"),
            ));
        }
        Ok(count as usize)
    }

    /// The platform the kernels run on, as the tiling functions take it.
    pub fn platform(soc: &str) -> Result<super::ffi::AgcPlatform, Error> {
        let p = ::agenticcann::Platform::current(soc)?;
        Ok(super::ffi::AgcPlatform {
            aiv_cores: p.aiv_cores,
            ub_bytes: p.ub_bytes,
            max_block_dim: p.max_block_dim,
            reserved: 0,
        })
    }

    /// The tiling function's answer must be success with a blockDim in [1, max_block_dim].
    pub fn tiling(
        op: &str,
        kernel: &str,
        rc: i32,
        block_dim: u32,
        max_block_dim: u32,
        dims: &[(&str, usize)],
    ) -> Result<(), Error> {
        if rc != 0 {
            return Err(Error::Tiling {
                op: op.to_string(),
                kernel: kernel.to_string(),
                message: format!(
                    "the tiling function does not support {} (it returned {rc})",
                    if dims.is_empty() { "this launch".to_string() } else { binding(dims) }
                ),
            });
        }
        if block_dim == 0 || block_dim > max_block_dim {
            return Err(Error::Tiling {
                op: op.to_string(),
                kernel: kernel.to_string(),
                message: format!(
                    "the tiling function set blockDim {block_dim}, outside [1, {max_block_dim}] ({})",
                    binding(dims)
                ),
            });
        }
        Ok(())
    }

    /// The workspace the tiling asked for (`None` for 0 bytes).
    pub fn workspace(stream: &Stream, bytes: u64) -> Result<Option<DeviceBuffer<u8>>, Error> {
        if bytes == 0 {
            return Ok(None);
        }
        let len = usize::try_from(bytes).map_err(|_| {
            Error::invalid_argument("workspace", "bytes", "a size that fits in usize", bytes.to_string())
        })?;
        DeviceBuffer::<u8>::alloc(stream, len).map(Some)
    }
}
"#;

/// The text of `agenticcann_ops.rs` for `package`'s ops, with the SoC of the spec (used on
/// CANN to describe the platform to tiling functions).
pub fn ops_module(package: &str, soc: &str, ops: &[WrapperOp<'_>], mode: WrapperMode) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "// agenticcann_ops.rs of crate `{package}`: safe launchers of its kernels.\n// Generated by agenticcann-build; do not edit. Brought in by `agenticcann::include_ops!()`."
    )
    .unwrap();
    if mode == WrapperMode::Launch {
        out.push_str(
            "\n#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, dead_code, unused_imports, clippy::all)]\nmod ffi {\n    include!(concat!(env!(\"OUT_DIR\"), \"/agenticcann_ffi.rs\"));\n}\n",
        );
        out.push_str(SUPPORT);
        writeln!(
            out,
            "\n/// The SoC of the crate's spec.\nconst SOC: &str = {soc:?};"
        )
        .unwrap();
    }
    for w in ops {
        out.push('\n');
        write_op(&mut out, w, mode);
    }
    out
}

fn doc_lines(out: &mut String, text: &str) {
    for line in text.lines() {
        if line.is_empty() {
            out.push_str("///\n");
        } else {
            writeln!(out, "/// {line}").unwrap();
        }
    }
}

fn write_op(out: &mut String, w: &WrapperOp<'_>, mode: WrapperMode) {
    let op = w.op;
    let n = names(op);
    let key = &w.key;
    let n_in = op.inputs.len();
    let decls: Vec<_> = op
        .inputs
        .iter()
        .map(|i| &i.decl)
        .chain(op.outputs.iter().map(|o| &o.decl))
        .collect();

    // Docs.
    let mut doc = format!(
        "`{}`: launches kernel `{}` on `stream`.\n\n",
        op.name,
        kernel_symbol(key)
    );
    doc.push_str("Reference (f64, rounded to the output dtypes):\n```text\n");
    doc.push_str(op.reference.source.trim());
    doc.push_str("\n```\n\n");
    for (i, ((name, _), d)) in n.tensors.iter().zip(&decls).enumerate() {
        let role = if i < n_in { "input" } else { "output" };
        writeln!(doc, "- `{name}`: {role} `{d}`").unwrap();
    }
    for (d, _) in &n.dims {
        writeln!(doc, "- `{d}`: named dimension, elements").unwrap();
    }
    if !op.attrs.is_empty() {
        let attrs: Vec<String> = op
            .attrs
            .iter()
            .map(|a| format!("{} = {}", a.name, a.value))
            .collect();
        writeln!(
            doc,
            "\nAttrs (compiled into the kernel): {}.",
            attrs.join(", ")
        )
        .unwrap();
    }
    writeln!(doc, "\nStore entry: key `{key}`, from {}.", w.source).unwrap();
    doc.push_str(
        "\n# Errors\n`Error::InvalidArgument` naming the argument when a buffer's dtype or length \
         differs from the spec under the given dimensions, or a tensor would have 2^32 elements \
         or more; `Error::Tiling` when the kernel's tiling function refuses the dimensions; \
         launch errors. With an output of 0 elements nothing is launched. A kernel failure \
         surfaces at the stream's next synchronize.\n",
    );
    doc_lines(out, &doc);

    // Signature.
    writeln!(
        out,
        "pub fn {}<{}>(",
        rust_ident(&op.name),
        n.types.join(", ")
    )
    .unwrap();
    writeln!(out, "    {}: &::agenticcann::Stream,", n.stream).unwrap();
    for (i, ((_, id), ty)) in n.tensors.iter().zip(&n.types).enumerate() {
        let m = if i < n_in { "&" } else { "&mut " };
        writeln!(out, "    {id}: {m}::agenticcann::DeviceBuffer<{ty}>,").unwrap();
    }
    for (_, id) in &n.dims {
        writeln!(out, "    {id}: usize,").unwrap();
    }
    writeln!(
        out,
        ") -> ::core::result::Result<(), ::agenticcann::Error>\nwhere"
    )
    .unwrap();
    for ty in &n.types {
        writeln!(out, "    {ty}: ::agenticcann::DeviceRepr,").unwrap();
    }
    out.push_str("{\n");

    if mode == WrapperMode::DocsStub {
        let all: Vec<&str> = std::iter::once(n.stream.as_str())
            .chain(n.tensors.iter().map(|(_, id)| id.as_str()))
            .chain(n.dims.iter().map(|(_, id)| id.as_str()))
            .collect();
        writeln!(out, "    let _ = ({});", all.join(", ")).unwrap();
        writeln!(
            out,
            "    Err(::agenticcann::Error::invalid_argument({:?}, \"build\", \"a build that compiled the kernels\", \"a docs.rs build (DOCS_RS), which compiles none\"))",
            op.name
        )
        .unwrap();
        out.push_str("}\n");
        return;
    }

    writeln!(out, "    const OP: &str = {:?};", op.name).unwrap();
    writeln!(out, "    const KERNEL: &str = {:?};", kernel_symbol(key)).unwrap();
    let dims_list: Vec<String> = n
        .dims
        .iter()
        .map(|(d, id)| format!("({d:?}, {id})"))
        .collect();
    writeln!(
        out,
        "    let __agc_dims: &[(&str, usize)] = &[{}];",
        dims_list.join(", ")
    )
    .unwrap();
    for ((name, id), (ty, d)) in n.tensors.iter().zip(n.types.iter().zip(&decls)) {
        writeln!(
            out,
            "    support::dtype::<{ty}>(OP, {name:?}, ::agenticcann::DType::{})?;",
            dtype_variant(d.dtype)
        )
        .unwrap();
        let _ = id;
    }
    for ((name, id), d) in n.tensors.iter().zip(&decls) {
        let shape: Vec<String> = d
            .shape
            .dims
            .iter()
            .map(|x| match x {
                Dim::Fixed(v) => v.to_string(),
                Dim::Named(nm) => n
                    .dims
                    .iter()
                    .find(|(d, _)| d == nm)
                    .map(|(_, id)| id.clone())
                    .unwrap_or_else(|| nm.clone()),
            })
            .collect();
        let used: Vec<String> = d
            .shape
            .named_dims()
            .iter()
            .map(|nm| {
                let id = n
                    .dims
                    .iter()
                    .find(|(d, _)| d == nm)
                    .map(|(_, id)| id.as_str())
                    .unwrap_or(nm);
                format!("({nm:?}, {id})")
            })
            .collect();
        writeln!(
            out,
            "    let __agc_len_{name} = support::tensor(OP, {name:?}, {:?}, &[{}], &[{}], {id}.len())?;",
            d.to_string(),
            shape.join(", "),
            used.join(", ")
        )
        .unwrap();
    }
    let zero: Vec<String> = n.tensors[n_in..]
        .iter()
        .map(|(name, _)| format!("__agc_len_{name} == 0"))
        .collect();
    if zero.is_empty() {
        out.push_str("    let _ = __agc_dims;\n");
    } else {
        writeln!(
            out,
            "    if {} {{\n        return Ok(());\n    }}",
            zero.join(" || ")
        )
        .unwrap();
    }
    let inputs_lens: Vec<String> = n.tensors[..n_in]
        .iter()
        .map(|(name, _)| format!("__agc_len_{name}"))
        .collect();
    if !inputs_lens.is_empty() {
        writeln!(out, "    let _ = ({});", inputs_lens.join(", ")).unwrap();
    }

    // Tiling.
    let tdims = op.named_dims();
    let tiling_dims: Vec<String> = tdims
        .iter()
        .map(|d| {
            let id = n
                .dims
                .iter()
                .find(|(x, _)| x == d)
                .map(|(_, id)| id.clone())
                .unwrap_or_else(|| d.clone());
            format!("{id} as u64")
        })
        .collect();
    out.push_str("    let __agc_platform = support::platform(SOC)?;\n");
    writeln!(
        out,
        "    let __agc_tiling_dims: [u64; {}] = [{}];",
        tdims.len(),
        tiling_dims.join(", ")
    )
    .unwrap();
    writeln!(
        out,
        "    let mut __agc_tiling = ffi::{}::default();",
        tiling_struct(key)
    )
    .unwrap();
    out.push_str(
        "    let mut __agc_block_dim: u32 = 0;\n    let mut __agc_workspace_bytes: u64 = 0;\n",
    );
    out.push_str(
        "    // SAFETY: the tiling function is host code of a verified store entry with the C\n    \
         // signature of docs/store-format.md §5; every pointer is to a live local of the declared\n    \
         // type, and `dims` holds exactly AGC_NUM_DIMS values.\n",
    );
    writeln!(
        out,
        "    let __agc_rc = unsafe {{\n        ffi::{}(\n            &__agc_platform,\n            __agc_tiling_dims.as_ptr(),\n            {},\n            &mut __agc_tiling,\n            &mut __agc_block_dim,\n            &mut __agc_workspace_bytes,\n        )\n    }};",
        tiling_symbol(key),
        tdims.len()
    )
    .unwrap();
    out.push_str(
        "    support::tiling(OP, KERNEL, __agc_rc, __agc_block_dim, __agc_platform.max_block_dim, __agc_dims)?;\n",
    );
    writeln!(
        out,
        "    let __agc_workspace = support::workspace({}, __agc_workspace_bytes)?;",
        n.stream
    )
    .unwrap();
    out.push_str(
        "    let __agc_ws = __agc_workspace\n        .as_ref()\n        .map_or(::core::ptr::null_mut(), |w| w.as_raw_ptr() as *mut ::core::ffi::c_void);\n",
    );

    // Launch, GM pointers in kernel order.
    let mut args = Vec::new();
    for p in op.kernel_params() {
        let id = &n
            .tensors
            .iter()
            .find(|(s, _)| s == p.name)
            .expect("kernel params are the op's tensors")
            .1;
        let is_input = op.inputs.iter().any(|i| i.name == p.name);
        let local = format!("__agc_p_{}", p.name);
        if is_input {
            writeln!(
                out,
                "    let {local} = {id}.as_raw_ptr() as *mut ::core::ffi::c_void;"
            )
            .unwrap();
        } else {
            writeln!(out, "    let {local} = {id}.as_raw_mut_ptr();").unwrap();
        }
        args.push(local);
    }
    args.push("__agc_ws".to_string());
    args.push("__agc_tiling".to_string());
    writeln!(out, "    {}.launch(KERNEL, |__agc_stream| {{", n.stream).unwrap();
    out.push_str(
        "        // SAFETY: the launcher queues the kernel with the by-value tiling struct; the GM\n        \
         // pointers are the buffers' device addresses, whose lengths were checked above against\n        \
         // the shapes the kernel was verified for; the buffers (and the workspace) stay\n        \
         // allocated until the queued work finishes (DeviceBuffer's deferred free).\n",
    );
    writeln!(
        out,
        "        unsafe {{ ffi::{}(__agc_block_dim, __agc_stream, {}) }}\n    }})",
        launcher_symbol(key),
        args.join(", ")
    )
    .unwrap();
    out.push_str("}\n");
}
