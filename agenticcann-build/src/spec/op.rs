//! Validated specs: a package's [`Spec`] and each op's [`OpSpec`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ndarray::ArrayD;

use super::attr::AttrValue;
use super::dtype::cast_to_dtype;
use super::eager::EagerRecipe;
use super::init::Init;
use super::pattern::Pattern;
use super::reference::{evaluate, Reference, ReferenceError};
use super::shape::{BindError, DimBinding, TensorDecl};
use super::soc::{Arch, Soc};
use super::tolerance::{OpClass, Tolerance};

/// The most elements one tensor may have in a declared `shapes` entry (2^40).
pub const MAX_ELEMENTS: u64 = 1 << 40;

/// The most elements one tensor may have when the reference evaluator binds shapes
/// ([`OpSpec::tensor_shapes`], and so input generation and the golden): 2^28 elements,
/// 2 GiB as f64. Larger bindings are a [`BindError::TooLarge`], not an allocation failure.
pub const MAX_EVAL_ELEMENTS: u64 = 1 << 28;

/// The validated `[package.metadata.agenticcann]` of one package.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// The package name.
    pub package: String,
    /// The package's `Cargo.toml`, when loaded from a file.
    pub manifest_path: Option<PathBuf>,
    /// The workspace root manifest whose `[workspace.metadata.agenticcann]` gave defaults,
    /// when one was found (a build script prints `cargo:rerun-if-changed` for it too).
    pub workspace_manifest_path: Option<PathBuf>,
    /// The target SoC (package value, else workspace value).
    pub soc: Soc,
    /// The store folder relative to the crate root (default `kernels`).
    pub kernels: PathBuf,
    /// The ops, in manifest order.
    pub ops: Vec<OpSpec>,
}

impl Spec {
    /// Loads and validates the spec of the package whose manifest is `manifest_path`, with
    /// defaults from its workspace root manifest (found by walking up; see
    /// [`find_workspace_root`](super::find_workspace_root)). Reads files with `toml` only.
    ///
    /// Returns `Ok(None)` when the package has no `[package.metadata.agenticcann]`.
    ///
    /// # Errors
    /// A [`SpecError`](super::SpecError) listing every problem: unreadable or malformed
    /// manifests and every invalid field of every op.
    pub fn from_manifest_path(manifest_path: &Path) -> Result<Option<Spec>, super::SpecError> {
        super::check_manifest_path(manifest_path).into_spec()
    }

    /// Like [`from_manifest_path`](Self::from_manifest_path) for manifest texts: the
    /// package's `Cargo.toml` and, optionally, its workspace root's.
    ///
    /// # Errors
    /// As [`from_manifest_path`](Self::from_manifest_path).
    pub fn from_manifest_str(
        manifest: &str,
        workspace_manifest: Option<&str>,
    ) -> Result<Option<Spec>, super::SpecError> {
        super::check_manifest_str(manifest, workspace_manifest).into_spec()
    }

    /// The store folder as a path: the crate root joined with [`kernels`](Self::kernels)
    /// when the manifest path is known, else `kernels` as is.
    pub fn kernels_dir(&self) -> PathBuf {
        match self.manifest_path.as_deref().and_then(Path::parent) {
            Some(root) => root.join(&self.kernels),
            None => self.kernels.clone(),
        }
    }

    /// The op named `name`.
    pub fn op(&self, name: &str) -> Option<&OpSpec> {
        self.ops.iter().find(|o| o.name == name)
    }

    /// The op named `name`, or an error listing the ops the manifest declares.
    ///
    /// # Errors
    /// [`UnknownOp`] when there is no such op.
    pub fn require_op(&self, name: &str) -> Result<&OpSpec, UnknownOp> {
        self.op(name).ok_or_else(|| UnknownOp {
            name: name.to_string(),
            manifest: self
                .manifest_path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| format!("package `{}`", self.package)),
            declared: self.ops.iter().map(|o| o.name.clone()).collect(),
        })
    }
}

/// An op a manifest does not declare ([`Spec::require_op`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("no op `{name}` in {manifest} (ops: {})", if declared.is_empty() { "none".to_string() } else { declared.join(", ") })]
pub struct UnknownOp {
    /// The name asked for.
    pub name: String,
    /// The manifest's path (or package name).
    pub manifest: String,
    /// The ops it declares, in manifest order.
    pub declared: Vec<String>,
}

/// An input tensor of an op.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// The name, as used in the reference.
    pub name: String,
    /// Dtype and shape template.
    pub decl: TensorDecl,
    /// The distribution verification draws it from (op `init`, else package/workspace
    /// per-dtype default, else [`Init::default_for`]).
    pub init: Init,
}

/// An output tensor of an op.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// The name, as assigned by the reference.
    pub name: String,
    /// Dtype and shape template.
    pub decl: TensorDecl,
    /// The verification tolerance (op `tolerance`, else package/workspace per-dtype default,
    /// else [`Tolerance::default_for`] by dtype and [`OpClass`]).
    pub tolerance: Tolerance,
}

/// A compile-time scalar of an op.
#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    /// The name, as used in the reference.
    pub name: String,
    /// The value.
    pub value: AttrValue,
}

/// Whether a kernel parameter is read or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamRole {
    /// An input (read from GM).
    Input,
    /// An output (written to GM).
    Output,
}

/// One GM tensor parameter of the kernel, in [`OpSpec::kernel_params`] order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelParam<'a> {
    /// The tensor's name.
    pub name: &'a str,
    /// Dtype and shape template.
    pub decl: &'a TensorDecl,
    /// Input or output.
    pub role: ParamRole,
}

/// One validated operator.
#[derive(Clone, Debug, PartialEq)]
pub struct OpSpec {
    /// The op's name (the table key under `ops`); the name of the generated Rust function.
    /// Not part of the key.
    pub name: String,
    /// The target SoC.
    pub soc: Soc,
    /// Inputs in manifest order (the order of the generated safe wrapper's arguments).
    pub inputs: Vec<Input>,
    /// Outputs in manifest order.
    pub outputs: Vec<Output>,
    /// Attrs in manifest order.
    pub attrs: Vec<Attr>,
    /// The parsed, validated reference: every name resolves, shapes broadcast, every output
    /// is assigned with its declared shape.
    pub reference: Reference,
    /// Bindings of every named dimension to verify and tune for, in manifest order; one
    /// empty binding when the op has no named dimension.
    pub shapes: Vec<HashMap<String, usize>>,
    /// The declared pattern, if any (see [`OpSpec::pattern_guess`]).
    pub pattern: Option<Pattern>,
    /// Elementwise or reduction, from the reference (drives default tolerances).
    pub class: OpClass,
    /// The eager baseline its source model runs (`eager = { … }`); not part of the key.
    pub eager: Option<EagerRecipe>,
}

impl OpSpec {
    /// The vector arch the op's kernels compile for.
    pub fn arch(&self) -> Arch {
        self.soc.arch()
    }

    /// The input named `name`.
    pub fn input(&self, name: &str) -> Option<&Input> {
        self.inputs.iter().find(|i| i.name == name)
    }

    /// The output named `name`.
    pub fn output(&self, name: &str) -> Option<&Output> {
        self.outputs.iter().find(|o| o.name == name)
    }

    /// The kernel's GM tensor parameters in ABI order: inputs sorted by name, then outputs
    /// sorted by name.
    ///
    /// This order, not the manifest order, is the kernel's: a [`Key`](crate::key::Key) does
    /// not depend on the order of entries in `inputs = { … }` (TOML tables are unordered),
    /// so two specs that differ only in that order share one stored kernel, and the kernel
    /// must therefore take its parameters in an order derived from the key's content. The
    /// generated safe wrapper takes arguments in manifest order and passes them in this one.
    pub fn kernel_params(&self) -> Vec<KernelParam<'_>> {
        let mut ins: Vec<&Input> = self.inputs.iter().collect();
        ins.sort_by(|a, b| a.name.cmp(&b.name));
        let mut outs: Vec<&Output> = self.outputs.iter().collect();
        outs.sort_by(|a, b| a.name.cmp(&b.name));
        ins.into_iter()
            .map(|i| KernelParam {
                name: &i.name,
                decl: &i.decl,
                role: ParamRole::Input,
            })
            .chain(outs.into_iter().map(|o| KernelParam {
                name: &o.name,
                decl: &o.decl,
                role: ParamRole::Output,
            }))
            .collect()
    }

    /// The named dimensions in order of first appearance over [`kernel_params`]
    /// (ABI order): the order the host tiling function receives their sizes in.
    ///
    /// [`kernel_params`]: Self::kernel_params
    pub fn named_dims(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in self.kernel_params() {
            for d in p.decl.shape.named_dims() {
                if !out.iter().any(|o| o == d) {
                    out.push(d.to_string());
                }
            }
        }
        out
    }

    /// Attr values as the reference sees them (name → f64).
    pub fn attr_values(&self) -> HashMap<String, f64> {
        self.attrs
            .iter()
            .map(|a| (a.name.clone(), a.value.as_f64()))
            .collect()
    }

    /// The concrete shape of every input and output under `binding` (named dimension →
    /// size).
    ///
    /// # Errors
    /// [`BindError::Unbound`] when a named dimension has no size; [`BindError::TooLarge`]
    /// when a tensor would have more than [`MAX_EVAL_ELEMENTS`] elements.
    pub fn tensor_shapes(
        &self,
        binding: &HashMap<String, usize>,
    ) -> Result<HashMap<String, Vec<usize>>, BindError> {
        let mut out = HashMap::new();
        let decls = self
            .inputs
            .iter()
            .map(|i| (&i.name, &i.decl))
            .chain(self.outputs.iter().map(|o| (&o.name, &o.decl)));
        for (name, decl) in decls {
            let shape = decl.shape.bind(binding)?;
            let elements = shape.iter().fold(1u64, |p, &d| p.saturating_mul(d as u64));
            if elements > MAX_EVAL_ELEMENTS {
                return Err(BindError::TooLarge {
                    tensor: name.clone(),
                    elements,
                    limit: MAX_EVAL_ELEMENTS,
                });
            }
            out.insert(name.clone(), shape);
        }
        Ok(out)
    }

    /// Binds named dimensions from the concrete shapes of some of the op's tensors (as a
    /// launch does from its buffers).
    ///
    /// # Errors
    /// [`BindError::UnknownTensor`] for a name that is no input or output; otherwise as
    /// [`ShapeTemplate::unify`](super::ShapeTemplate::unify), in particular
    /// [`BindError::Conflict`] when a named dimension gets two different sizes.
    pub fn bind_dims(&self, shapes: &[(&str, &[usize])]) -> Result<DimBinding, BindError> {
        let mut binding = DimBinding::new();
        for (name, shape) in shapes {
            let decl = self
                .input(name)
                .map(|i| &i.decl)
                .or_else(|| self.output(name).map(|o| &o.decl))
                .ok_or_else(|| BindError::UnknownTensor {
                    tensor: name.to_string(),
                })?;
            decl.shape.unify(name, shape, &mut binding)?;
        }
        Ok(binding)
    }

    /// The entry of [`shapes`](Self::shapes) with the fewest elements over all inputs and
    /// outputs (the first of equals); an empty binding if `shapes` is empty (never for a
    /// validated op).
    pub fn smallest_shape(&self) -> &HashMap<String, usize> {
        static EMPTY: std::sync::LazyLock<HashMap<String, usize>> =
            std::sync::LazyLock::new(HashMap::new);
        let size = |b: &HashMap<String, usize>| -> u64 {
            self.tensor_shapes(b)
                .map(|m| {
                    m.values()
                        .map(|s| s.iter().fold(1u64, |p, &d| p.saturating_mul(d as u64)))
                        .fold(0u64, u64::saturating_add)
                })
                .unwrap_or(u64::MAX)
        };
        self.shapes.iter().min_by_key(|b| size(b)).unwrap_or(&EMPTY)
    }

    /// Seeded inputs for `binding` (see [`init`](super::init) for the stream's stability).
    ///
    /// # Errors
    /// [`BindError::Unbound`] when a named dimension has no size.
    pub fn generate_inputs(
        &self,
        binding: &HashMap<String, usize>,
        seed: u64,
    ) -> Result<HashMap<String, ArrayD<f64>>, BindError> {
        let shapes = self.tensor_shapes(binding)?;
        Ok(super::init::generate_inputs(self, &shapes, seed))
    }

    /// Evaluates the reference in f64 on `inputs` and returns the outputs, not rounded.
    ///
    /// # Errors
    /// As [`evaluate`]; also when inputs do not have shapes
    /// that broadcast as declared.
    pub fn evaluate(
        &self,
        inputs: &HashMap<String, ArrayD<f64>>,
    ) -> Result<HashMap<String, ArrayD<f64>>, ReferenceError> {
        let mut all = evaluate(&self.reference, inputs, &self.attr_values())?;
        Ok(self
            .outputs
            .iter()
            .filter_map(|o| all.remove_entry(&o.name))
            .collect())
    }

    /// The golden outputs: [`evaluate`](Self::evaluate), then each output rounded to its
    /// dtype with [`cast_to_dtype`].
    ///
    /// # Errors
    /// As [`evaluate`](Self::evaluate).
    pub fn golden(
        &self,
        inputs: &HashMap<String, ArrayD<f64>>,
    ) -> Result<HashMap<String, ArrayD<f64>>, ReferenceError> {
        let mut outs = self.evaluate(inputs)?;
        for o in &self.outputs {
            if let Some(a) = outs.get_mut(&o.name) {
                let d = o.decl.dtype;
                a.mapv_inplace(|v| cast_to_dtype(v, d));
            }
        }
        Ok(outs)
    }

    /// The declared pattern, else [`Pattern::guess`]; the flag is true for a guess.
    pub fn pattern_guess(&self) -> (Pattern, bool) {
        match self.pattern {
            Some(p) => (p, false),
            None => {
                let ins: Vec<_> = self.inputs.iter().map(|i| &i.decl.shape).collect();
                let outs: Vec<_> = self.outputs.iter().map(|o| &o.decl.shape).collect();
                (Pattern::guess(&self.reference, &ins, &outs), true)
            }
        }
    }

    /// The op's content key (see [`crate::key`]).
    pub fn key(&self) -> crate::key::Key {
        crate::key::Key::of(self)
    }
}
