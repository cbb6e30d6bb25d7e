//! Resolving a subscript `x[…]` against a shape: numpy's basic-slicing rules, shared by shape
//! inference, the evaluator and the content key (so all three read one definition).
//!
//! A subscript's items are first expanded to one item per axis (`...` stands for as many
//! whole axes as needed; missing trailing items are whole axes), then each item is resolved
//! against its axis's size into a canonical [`Pick`]: two spellings that select the same
//! elements (`x[..., :64]`, `x[:, 0:64:1]`, `x[:, :-64]` of a 128-wide `x`) resolve alike.

use super::ast::SubscriptItem;
use crate::spec::shape::{Dim, ShapeTemplate};

/// What a subscript takes from one axis, in canonical form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pick {
    /// The whole axis, in order (`:`, `0:n`, `::1`, …).
    Whole,
    /// One element at this index in `0..size`; the axis is dropped.
    Index(usize),
    /// `count ≥ 1` elements `first, first + step, …`, all in `0..size`; the axis keeps size
    /// `count`. Never the whole axis in order (that is [`Pick::Whole`]); `step` is 1 when
    /// `count` is 1.
    Range {
        /// Index of the first element taken.
        first: usize,
        /// Number of elements taken.
        count: usize,
        /// Distance between consecutive elements (negative: backwards).
        step: i64,
    },
}

impl Pick {
    /// The result's size on this axis, `None` when the axis is dropped.
    pub fn size(self, axis_size: usize) -> Option<usize> {
        match self {
            Pick::Whole => Some(axis_size),
            Pick::Index(_) => None,
            Pick::Range { count, .. } => Some(count),
        }
    }

    /// The source index of the `j`-th element taken (`j` = 0 for [`Pick::Index`]).
    pub fn source(self, j: usize) -> usize {
        match self {
            Pick::Whole => j,
            Pick::Index(i) => i,
            Pick::Range { first, step, .. } => (first as i64 + j as i64 * step) as usize,
        }
    }
}

/// `items` with `...` expanded to whole axes and padded with whole axes to `rank` items.
///
/// # Errors
/// A message when the items (other than `...`) are more than `rank`.
pub fn expand(items: &[SubscriptItem], rank: usize) -> Result<Vec<SubscriptItem>, String> {
    let explicit = items
        .iter()
        .filter(|i| **i != SubscriptItem::Ellipsis)
        .count();
    if explicit > rank {
        return Err(format!(
            "the subscript has {explicit} item{} but its operand has rank {rank}",
            if explicit == 1 { "" } else { "s" }
        ));
    }
    let whole = SubscriptItem::Slice {
        start: None,
        stop: None,
        step: None,
    };
    let mut out = Vec::with_capacity(rank);
    for item in items {
        if *item == SubscriptItem::Ellipsis {
            out.extend(std::iter::repeat_n(whole, rank - explicit));
        } else {
            out.push(*item);
        }
    }
    out.resize(rank, whole);
    Ok(out)
}

/// Resolves one expanded item (not `...`) against an axis of `size` elements.
///
/// # Errors
/// A message when an index is outside `-size..size` or a slice selects no element.
pub fn pick(item: SubscriptItem, size: usize) -> Result<Pick, String> {
    let n = size as i64;
    match item {
        SubscriptItem::Ellipsis => Ok(Pick::Whole),
        SubscriptItem::Index(i) => {
            let k = if i < 0 { i + n } else { i };
            if (0..n).contains(&k) {
                Ok(Pick::Index(k as usize))
            } else {
                Err(format!(
                    "index {i} is out of range for an axis of size {size} (valid: {}..={})",
                    -n,
                    n - 1
                ))
            }
        }
        SubscriptItem::Slice { start, stop, step } => {
            let step = step.unwrap_or(1);
            // numpy's PySlice_AdjustIndices: negative bounds count from the end, then clip.
            let adjust = |b: i64, lo: i64, hi: i64| (if b < 0 { b + n } else { b }).clamp(lo, hi);
            let (first, count) = if step > 0 {
                let a = start.map_or(0, |b| adjust(b, 0, n));
                let b = stop.map_or(n, |b| adjust(b, 0, n));
                (a, if b > a { (b - a + step - 1) / step } else { 0 })
            } else {
                let a = start.map_or(n - 1, |b| adjust(b, -1, n - 1));
                let b = stop.map_or(-1, |b| adjust(b, -1, n - 1));
                (a, if a > b { (a - b - step - 1) / -step } else { 0 })
            };
            let written = SubscriptItem::Slice {
                start,
                stop,
                step: Some(step),
            };
            if count == 0 {
                return Err(format!(
                    "the slice `{written}` selects no element of an axis of size {size}"
                ));
            }
            let (first, count) = (first as usize, count as usize);
            Ok(if count == size && step == 1 {
                Pick::Whole
            } else {
                Pick::Range {
                    first,
                    count,
                    step: if count == 1 { 1 } else { step },
                }
            })
        }
    }
}

/// Resolves `items` against the concrete `shape`: one [`Pick`] per axis.
///
/// # Errors
/// As [`expand`] and [`pick`], the message naming the axis.
pub fn picks(items: &[SubscriptItem], shape: &[usize]) -> Result<Vec<Pick>, String> {
    expand(items, shape.len())?
        .into_iter()
        .zip(shape)
        .enumerate()
        .map(|(axis, (item, &n))| pick(item, n).map_err(|m| format!("axis {axis}: {m}")))
        .collect()
}

/// Resolves `items` against a symbolic shape: one [`Pick`] per axis. A named dimension is
/// bound at launch, so only the whole axis can be taken from it.
///
/// # Errors
/// As [`picks`], and an item other than a whole slice (`:`, `0:`, `::1`) on a named axis.
pub fn template_picks(items: &[SubscriptItem], shape: &ShapeTemplate) -> Result<Vec<Pick>, String> {
    expand(items, shape.rank())?
        .into_iter()
        .zip(&shape.dims)
        .enumerate()
        .map(|(axis, (item, d))| match d {
            Dim::Fixed(n) => pick(item, *n).map_err(|m| format!("axis {axis}: {m}")),
            Dim::Named(name) => match item {
                SubscriptItem::Slice {
                    start: None | Some(0),
                    stop: None,
                    step: None | Some(1),
                } => Ok(Pick::Whole),
                _ => Err(format!(
                    "axis {axis} is the named dimension `{name}`, bound at launch, so it can only be taken whole (`:`), not `{item}`; index or slice axes of fixed size"
                )),
            },
        })
        .collect()
}

/// The shape a subscript with these `picks` gives from `shape` (dropped axes removed).
pub fn picked_shape(picks: &[Pick], shape: &ShapeTemplate) -> ShapeTemplate {
    ShapeTemplate::new(
        picks
            .iter()
            .zip(&shape.dims)
            .filter_map(|(p, d)| match p {
                Pick::Whole => Some(d.clone()),
                Pick::Index(_) => None,
                Pick::Range { count, .. } => Some(Dim::Fixed(*count)),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sl(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> SubscriptItem {
        SubscriptItem::Slice { start, stop, step }
    }

    /// The indices numpy's `list(range(n))[start:stop:step]` gives, from the picks.
    fn taken(item: SubscriptItem, n: usize) -> Vec<usize> {
        match pick(item, n).unwrap() {
            p @ (Pick::Whole | Pick::Range { .. }) => {
                (0..p.size(n).unwrap()).map(|j| p.source(j)).collect()
            }
            Pick::Index(i) => vec![i],
        }
    }

    #[test]
    fn slices_follow_numpy() {
        // Hand-computed from numpy's rules on range(8).
        assert_eq!(taken(sl(Some(2), Some(5), None), 8), vec![2, 3, 4]);
        assert_eq!(taken(sl(None, Some(-2), None), 8), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(taken(sl(Some(-3), None, None), 8), vec![5, 6, 7]);
        assert_eq!(taken(sl(None, None, Some(2)), 8), vec![0, 2, 4, 6]);
        assert_eq!(taken(sl(Some(1), None, Some(2)), 8), vec![1, 3, 5, 7]);
        assert_eq!(
            taken(sl(None, None, Some(-1)), 8),
            vec![7, 6, 5, 4, 3, 2, 1, 0]
        );
        assert_eq!(taken(sl(Some(6), Some(1), Some(-2)), 8), vec![6, 4, 2]);
        assert_eq!(taken(sl(Some(-1), Some(-4), Some(-1)), 8), vec![7, 6, 5]);
        assert_eq!(taken(sl(Some(3), Some(100), Some(3)), 8), vec![3, 6]);
        assert_eq!(taken(sl(Some(-100), Some(2), None), 8), vec![0, 1]);
        assert_eq!(taken(sl(Some(100), None, Some(-3)), 8), vec![7, 4, 1]);
        assert_eq!(taken(SubscriptItem::Index(-1), 8), vec![7]);
    }

    #[test]
    fn equivalent_spellings_resolve_alike() {
        let r = Pick::Range {
            first: 0,
            count: 64,
            step: 1,
        };
        for item in [
            sl(None, Some(64), None),
            sl(Some(0), Some(64), Some(1)),
            sl(None, Some(-64), None),
            sl(Some(-128), Some(64), None),
        ] {
            assert_eq!(pick(item, 128), Ok(r), "{item}");
        }
        for item in [
            sl(None, None, None),
            sl(Some(0), Some(128), None),
            sl(Some(-500), Some(500), Some(1)),
        ] {
            assert_eq!(pick(item, 128), Ok(Pick::Whole), "{item}");
        }
        // One element: the step does not matter.
        assert_eq!(
            pick(sl(Some(3), Some(4), None), 8),
            pick(sl(Some(3), None, Some(9)), 8)
        );
    }

    #[test]
    fn errors_and_named_axes() {
        assert!(pick(SubscriptItem::Index(8), 8)
            .unwrap_err()
            .contains("out of range"));
        assert!(pick(SubscriptItem::Index(-9), 8).is_err());
        assert!(pick(sl(Some(5), Some(2), None), 8)
            .unwrap_err()
            .contains("no element"));
        assert!(expand(&[SubscriptItem::Index(0); 3], 2)
            .unwrap_err()
            .contains("rank 2"));
        let t = ShapeTemplate::new(vec![Dim::Named("rows".into()), Dim::Fixed(128)]);
        let p = template_picks(&[SubscriptItem::Ellipsis, sl(None, Some(64), None)], &t).unwrap();
        assert_eq!(
            picked_shape(&p, &t),
            ShapeTemplate::new(vec![Dim::Named("rows".into()), Dim::Fixed(64)])
        );
        let e = template_picks(&[sl(Some(1), None, None)], &t).unwrap_err();
        assert!(e.contains("named dimension `rows`"), "{e}");
        assert_eq!(
            expand(&[SubscriptItem::Ellipsis, SubscriptItem::Index(1)], 3).unwrap(),
            vec![
                sl(None, None, None),
                sl(None, None, None),
                SubscriptItem::Index(1)
            ]
        );
    }
}
