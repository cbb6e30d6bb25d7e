//! Attr values: compile-time scalars of an op (`eps = 1e-6`), part of its key.

use std::fmt;

/// The value of an attr as written in the manifest. In the reference every attr is an f64
/// scalar ([`AttrValue::as_f64`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AttrValue {
    /// A TOML float; always finite.
    Float(f64),
    /// A TOML integer.
    Int(i64),
    /// A TOML boolean (1.0 or 0.0 in the reference).
    Bool(bool),
}

impl AttrValue {
    /// The value the reference sees.
    pub fn as_f64(self) -> f64 {
        match self {
            AttrValue::Float(v) => v,
            AttrValue::Int(v) => v as f64,
            AttrValue::Bool(b) => f64::from(u8::from(b)),
        }
    }
}

impl AttrValue {
    /// The kind of number the reference sees: an integer attr is an integer value (it may
    /// index), a float attr a float even when integral (`2.0`), a boolean a 0/1 value.
    pub fn class(self) -> crate::spec::reference::ValueClass {
        use crate::spec::reference::ValueClass;
        match self {
            AttrValue::Float(_) => ValueClass::Float,
            AttrValue::Int(_) => ValueClass::Int,
            AttrValue::Bool(_) => ValueClass::Bool,
        }
    }
}

impl fmt::Display for AttrValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttrValue::Float(v) => write!(f, "{v:?}"),
            AttrValue::Int(v) => write!(f, "{v}"),
            AttrValue::Bool(b) => write!(f, "{b}"),
        }
    }
}
