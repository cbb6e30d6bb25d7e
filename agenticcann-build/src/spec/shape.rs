//! Tensor declarations (`"f16[rows, 4096]"`), shape templates with fixed and named
//! dimensions, and binding named dimensions to sizes.

use std::collections::HashMap;
use std::fmt;

use super::dtype::Dtype;

/// One dimension of a [`ShapeTemplate`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A size fixed in the manifest, in elements (never 0 in a declared shape).
    Fixed(usize),
    /// A named dimension bound at launch time (`rows`); every kernel is dynamic in it and its
    /// host tiling function receives its size.
    Named(String),
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Fixed(n) => write!(f, "{n}"),
            Dim::Named(name) => f.write_str(name),
        }
    }
}

/// A shape whose dimensions are fixed sizes or names, outermost first (row-major).
///
/// Rank 0 (`[]`) is a scalar. Shape inference also uses this type for the symbolic shapes of
/// reference expressions.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ShapeTemplate {
    /// The dimensions, outermost first.
    pub dims: Vec<Dim>,
}

impl ShapeTemplate {
    /// A template from its dimensions.
    pub fn new(dims: Vec<Dim>) -> Self {
        ShapeTemplate { dims }
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// The named dimensions in order of first appearance, without repeats.
    pub fn named_dims(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for d in &self.dims {
            if let Dim::Named(n) = d {
                if !out.contains(&n.as_str()) {
                    out.push(n);
                }
            }
        }
        out
    }

    /// The concrete shape under `binding` (sizes in elements).
    ///
    /// # Errors
    /// [`BindError::Unbound`] when a named dimension has no size in `binding`.
    pub fn bind(&self, binding: &HashMap<String, usize>) -> Result<Vec<usize>, BindError> {
        self.dims
            .iter()
            .map(|d| match d {
                Dim::Fixed(n) => Ok(*n),
                Dim::Named(name) => binding
                    .get(name)
                    .copied()
                    .ok_or_else(|| BindError::Unbound { dim: name.clone() }),
            })
            .collect()
    }

    /// Unifies this template with the concrete `shape` of tensor `tensor`, adding the sizes
    /// of named dimensions to `binding`.
    ///
    /// # Errors
    /// [`BindError::Rank`] when the ranks differ, [`BindError::Fixed`] when a fixed dimension
    /// has another size, [`BindError::Conflict`] when a named dimension already bound (by this
    /// or an earlier tensor) has another size. `binding` may hold the sizes bound before the
    /// error.
    pub fn unify(
        &self,
        tensor: &str,
        shape: &[usize],
        binding: &mut DimBinding,
    ) -> Result<(), BindError> {
        if shape.len() != self.dims.len() {
            return Err(BindError::Rank {
                tensor: tensor.to_string(),
                expected: self.clone(),
                actual: shape.to_vec(),
            });
        }
        for (axis, (d, &size)) in self.dims.iter().zip(shape).enumerate() {
            match d {
                Dim::Fixed(n) if *n != size => {
                    return Err(BindError::Fixed {
                        tensor: tensor.to_string(),
                        axis,
                        expected: *n,
                        actual: size,
                    })
                }
                Dim::Fixed(_) => {}
                Dim::Named(name) => binding.bind(name, size, tensor)?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for ShapeTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

/// Sizes of named dimensions collected from concrete tensor shapes, remembering which tensor
/// bound each so that a conflict names both.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DimBinding {
    sizes: HashMap<String, (usize, String)>,
}

impl DimBinding {
    /// An empty binding.
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds `dim` to `size` as seen in `tensor`.
    ///
    /// # Errors
    /// [`BindError::Conflict`] when `dim` is already bound to another size.
    pub fn bind(&mut self, dim: &str, size: usize, tensor: &str) -> Result<(), BindError> {
        match self.sizes.get(dim) {
            Some((first, first_tensor)) if *first != size => Err(BindError::Conflict {
                dim: dim.to_string(),
                first: (first_tensor.clone(), *first),
                second: (tensor.to_string(), size),
            }),
            Some(_) => Ok(()),
            None => {
                self.sizes
                    .insert(dim.to_string(), (size, tensor.to_string()));
                Ok(())
            }
        }
    }

    /// The size bound to `dim`.
    pub fn get(&self, dim: &str) -> Option<usize> {
        self.sizes.get(dim).map(|(s, _)| *s)
    }

    /// The plain name → size map that [`ShapeTemplate::bind`] takes.
    pub fn to_map(&self) -> HashMap<String, usize> {
        self.sizes
            .iter()
            .map(|(k, (s, _))| (k.clone(), *s))
            .collect()
    }
}

/// Why named dimensions could not be bound.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BindError {
    /// A named dimension has no size.
    #[error("dimension `{dim}` is not bound to a size")]
    Unbound {
        /// The dimension's name.
        dim: String,
    },
    /// A tensor has another rank than its template.
    #[error("`{tensor}` has shape {actual:?} but is declared with rank {} ({expected})", expected.rank())]
    Rank {
        /// The tensor's name.
        tensor: String,
        /// Its declared template.
        expected: ShapeTemplate,
        /// The shape given.
        actual: Vec<usize>,
    },
    /// A fixed dimension has another size.
    #[error("`{tensor}` has size {actual} on axis {axis}, but it is declared as {expected}")]
    Fixed {
        /// The tensor's name.
        tensor: String,
        /// The axis, outermost = 0.
        axis: usize,
        /// The declared size.
        expected: usize,
        /// The size given.
        actual: usize,
    },
    /// A shape was given for a tensor the op does not have.
    #[error("the op has no input or output `{tensor}`")]
    UnknownTensor {
        /// The name given.
        tensor: String,
    },
    /// A tensor would have more elements than the reference evaluator allocates
    /// ([`MAX_EVAL_ELEMENTS`](super::MAX_EVAL_ELEMENTS)).
    #[error("`{tensor}` would have {elements} elements under this binding (the product of its sizes, saturated at 2^64-1); the reference evaluator allocates at most {limit} per tensor")]
    TooLarge {
        /// The tensor's name.
        tensor: String,
        /// Its element count (saturated at `u64::MAX`).
        elements: u64,
        /// The limit.
        limit: u64,
    },
    /// A named dimension is used with two different sizes in one binding.
    #[error(
        "dimension `{dim}` is used with two different sizes: {} in `{}` and {} in `{}`",
        first.1, first.0, second.1, second.0
    )]
    Conflict {
        /// The dimension's name.
        dim: String,
        /// The tensor that bound it first and the size there.
        first: (String, usize),
        /// The tensor that disagrees and its size.
        second: (String, usize),
    },
}

/// A declared tensor: dtype and shape template, as written `"f16[rows, 4096]"`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorDecl {
    /// The element type.
    pub dtype: Dtype,
    /// The shape template.
    pub shape: ShapeTemplate,
}

impl fmt::Display for TensorDecl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.dtype, self.shape)
    }
}

/// Why a tensor declaration did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TensorDeclError {
    /// The dtype name is not one of the seven.
    #[error(transparent)]
    Dtype(#[from] super::dtype::UnknownDtype),
    /// The text is not `dtype[dim, …]`.
    #[error("`{text}` is not a tensor declaration: {reason} (expected e.g. \"f16[rows, 4096]\")")]
    Syntax {
        /// The text as written.
        text: String,
        /// What is wrong.
        reason: String,
    },
}

impl std::str::FromStr for TensorDecl {
    type Err = TensorDeclError;

    /// Parses `dtype[d0, d1, …]` where each `d` is a positive integer or an identifier
    /// (`[A-Za-z_][A-Za-z0-9_]*`); spaces are allowed around tokens; `f32[]` is a scalar.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let syntax = |reason: &str| TensorDeclError::Syntax {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let t = text.trim();
        let open = t
            .find('[')
            .ok_or_else(|| syntax("missing `[` after the dtype"))?;
        let dtype: Dtype = t[..open].trim().parse()?;
        let rest = &t[open + 1..];
        let close = rest
            .find(']')
            .ok_or_else(|| syntax("missing closing `]`"))?;
        if !rest[close + 1..].trim().is_empty() {
            return Err(syntax("text after the closing `]`"));
        }
        let inner = rest[..close].trim();
        let mut dims = Vec::new();
        if !inner.is_empty() {
            for part in inner.split(',') {
                let p = part.trim();
                if p.is_empty() {
                    return Err(syntax("empty dimension"));
                }
                if p.bytes().all(|b| b.is_ascii_digit()) {
                    let n: usize = p
                        .parse()
                        .map_err(|_| syntax(&format!("dimension `{p}` is too large")))?;
                    if n == 0 {
                        return Err(syntax("a fixed dimension must be at least 1"));
                    }
                    dims.push(Dim::Fixed(n));
                } else if is_identifier(p) {
                    dims.push(Dim::Named(p.to_string()));
                } else {
                    return Err(syntax(&format!(
                        "dimension `{p}` is neither a positive integer nor a name"
                    )));
                }
            }
        }
        Ok(TensorDecl {
            dtype,
            shape: ShapeTemplate { dims },
        })
    }
}

/// True when `s` is `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_identifier(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(s: &str) -> Dim {
        Dim::Named(s.to_string())
    }

    #[test]
    fn parses_declarations() {
        let d: TensorDecl = "f16[rows, 4096]".parse().unwrap();
        assert_eq!(d.dtype, Dtype::F16);
        assert_eq!(d.shape.dims, vec![named("rows"), Dim::Fixed(4096)]);
        assert_eq!(d.to_string(), "f16[rows, 4096]");
        let s: TensorDecl = " f32 [ ] ".parse().unwrap();
        assert_eq!(s.shape.rank(), 0);
        let b: TensorDecl = "bool[n,n]".parse().unwrap();
        assert_eq!(b.shape.named_dims(), vec!["n"]);
    }

    #[test]
    fn rejects_bad_declarations() {
        for bad in [
            "f16",
            "f16[",
            "f16[4",
            "f16[4]x",
            "f16[,4]",
            "f16[0]",
            "f16[4-1]",
            "f16[1x]",
            "[4]",
            "f16[99999999999999999999999]",
        ] {
            assert!(bad.parse::<TensorDecl>().is_err(), "{bad}");
        }
        let e = "f61[4]".parse::<TensorDecl>().unwrap_err();
        assert!(e.to_string().contains("unknown dtype `f61`"), "{e}");
    }

    #[test]
    fn bind_and_unify() {
        let t = ShapeTemplate::new(vec![named("rows"), Dim::Fixed(8), named("h")]);
        let mut m = HashMap::new();
        m.insert("rows".to_string(), 3);
        assert_eq!(
            t.bind(&m).unwrap_err(),
            BindError::Unbound { dim: "h".into() }
        );
        m.insert("h".to_string(), 5);
        assert_eq!(t.bind(&m).unwrap(), vec![3, 8, 5]);

        let mut b = DimBinding::new();
        t.unify("x", &[3, 8, 5], &mut b).unwrap();
        assert_eq!(b.get("rows"), Some(3));
        let y = ShapeTemplate::new(vec![named("rows")]);
        let err = y.unify("y", &[4], &mut b).unwrap_err();
        assert_eq!(
            err,
            BindError::Conflict {
                dim: "rows".into(),
                first: ("x".into(), 3),
                second: ("y".into(), 4)
            }
        );
        assert!(err
            .to_string()
            .contains("two different sizes: 3 in `x` and 4 in `y`"));
        assert!(matches!(
            t.unify("x", &[3, 9, 5], &mut b),
            Err(BindError::Fixed { axis: 1, .. })
        ));
        assert!(matches!(
            t.unify("x", &[3, 8], &mut b),
            Err(BindError::Rank { .. })
        ));
        // The same dimension twice in one template must agree with itself.
        let sq = ShapeTemplate::new(vec![named("n"), named("n")]);
        assert!(matches!(
            sq.unify("m", &[2, 3], &mut DimBinding::new()),
            Err(BindError::Conflict { .. })
        ));
    }
}
