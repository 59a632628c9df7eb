//! Datasets larger than one binding.
//!
//! A storage buffer can be as large as the adapter's `max_buffer_size` (2 GiB on llvmpipe), but
//! a shader sees at most `max_storage_buffer_binding_size` bytes of it (128 MiB on llvmpipe). A
//! dispatch on such a dataset binds only the window of the buffer the loop touches, and a loop
//! whose windows would still be too large runs as several dispatches over slabs of its range
//! (halving the outermost dimension until every window fits). Datasets within the binding limit
//! are bound whole, as before.

use ops_core::backend::{ArgPlan, DatArgPlan, LoopPlan};
use ops_core::kernel::MAX_ARGS;
use ops_core::DatLayout;

/// The byte range of a buffer one dispatch binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Window {
    pub offset: u64,
    pub size: u64,
}

/// A part of a loop's range that runs as one dispatch, and the window of each dataset argument
/// (`None`: the whole buffer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Slab {
    pub lo: [i32; 3],
    pub hi: [i32; 3],
    pub windows: [Option<Window>; MAX_ARGS],
}

/// What the slab computation needs to know about the device and a dataset.
pub(crate) struct Limits {
    /// `max_storage_buffer_binding_size`.
    pub binding: u64,
    /// `min_storage_buffer_offset_alignment`.
    pub align: u64,
}

/// The window of a dataset (laid out as `layout`) covering the points `lo..hi` (all components).
pub(crate) fn window(layout: &DatLayout, lo: [i32; 3], hi: [i32; 3], align: u64) -> Window {
    let es = layout.ty.size() as u64;
    let last_point = [hi[0] - 1, hi[1] - 1, hi[2] - 1];
    let first = layout.index(lo, 0) as u64 * es;
    let end = (layout.index(last_point, layout.components - 1) as u64 + 1) * es;
    let offset = first / align * align;
    Window {
        offset,
        size: (end - offset).div_ceil(4) * 4,
    }
}

/// The points of the dataset argument `a` that the part `lo..hi` of the loop's range touches:
/// its `touched` box shrunk by the part of the range left out (strided dimensions do not move).
fn touched(
    a: &DatArgPlan,
    range: ([i32; 3], [i32; 3]),
    lo: [i32; 3],
    hi: [i32; 3],
) -> ([i32; 3], [i32; 3]) {
    let (tlo, thi) = (a.touched.lo(), a.touched.hi());
    let mut out = (tlo, thi);
    for d in 0..3 {
        out.0[d] = tlo[d] + (lo[d] - range.0[d]) * a.stride[d];
        out.1[d] = thi[d] - (range.1[d] - hi[d]) * a.stride[d];
    }
    out
}

/// The dispatches of `plan`: one slab with no windows when every dataset fits a binding (the
/// common case), else windows, and slabs when a window would exceed the limit. `buffer(k)` is
/// the layout and buffer size of dataset argument `k`. Fails when one row of the range is too
/// large already.
pub(crate) fn slabs(
    plan: &LoopPlan<'_>,
    buffer: &dyn Fn(usize) -> Option<(DatLayout, u64)>,
    limits: &Limits,
) -> Result<Vec<Slab>, String> {
    let range = (plan.range.lo(), plan.range.hi());
    let args = plan.args();
    let big: Vec<(usize, &DatArgPlan, DatLayout)> = args
        .iter()
        .enumerate()
        .filter_map(|(k, a)| match a {
            ArgPlan::Dat(d) => match buffer(k) {
                Some((layout, size)) if size > limits.binding => Some((k, d, layout)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let whole = Slab {
        lo: range.0,
        hi: range.1,
        windows: [None; MAX_ARGS],
    };
    if big.is_empty() {
        return Ok(vec![whole]);
    }
    let fit = |lo: [i32; 3], hi: [i32; 3]| -> Option<Slab> {
        let mut windows = [None; MAX_ARGS];
        for (k, a, layout) in &big {
            let (tlo, thi) = touched(a, range, lo, hi);
            let w = window(layout, tlo, thi, limits.align);
            if w.size > limits.binding {
                return None;
            }
            windows[*k] = Some(w);
        }
        Some(Slab { lo, hi, windows })
    };
    let mut out = Vec::new();
    split(range.0, range.1, &fit, &mut out)?;
    Ok(out)
}

/// Halves the outermost dimension with more than one index until `fit` accepts each part;
/// appends the parts in range order.
fn split(
    lo: [i32; 3],
    hi: [i32; 3],
    fit: &dyn Fn([i32; 3], [i32; 3]) -> Option<Slab>,
    out: &mut Vec<Slab>,
) -> Result<(), String> {
    if let Some(s) = fit(lo, hi) {
        out.push(s);
        return Ok(());
    }
    let Some(d) = (0..3).rev().find(|&d| hi[d] - lo[d] > 1) else {
        return Err(format!(
            "one point of the loop touches more than one binding of the device can hold \
             (at {lo:?})"
        ));
    };
    let mid = lo[d] + (hi[d] - lo[d]) / 2;
    let (mut h1, mut l2) = (hi, lo);
    h1[d] = mid;
    l2[d] = mid;
    split(lo, h1, fit, out)?;
    split(l2, hi, fit, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ops_core::kernel::ElemType;

    fn layout(nx: usize, ny: usize) -> DatLayout {
        DatLayout {
            ty: ElemType::F64,
            dims: 2,
            components: 1,
            size: [nx, ny, 1],
            base: [0, 0, 0],
            neg: [-1, -1, 0],
            pos: [1, 1, 0],
        }
    }

    #[test]
    fn window_covers_the_box_from_an_aligned_offset() {
        // 12 x 8 points stored (halo 1), f64: rows of 96 bytes.
        let l = layout(10, 6);
        let w = window(&l, [0, 0, 0], [10, 1, 1], 32);
        // Point (0, 0) is element 13: byte 104, aligned down to 96; the row ends at byte 184.
        assert_eq!(
            w,
            Window {
                offset: 96,
                size: 88
            }
        );
        let all = window(&l, [-1, -1, 0], [11, 7, 1], 32);
        assert_eq!(
            all,
            Window {
                offset: 0,
                size: l.bytes() as u64
            }
        );
    }

    #[test]
    fn splitting_halves_the_outermost_dimension_in_order() {
        let fit = |lo: [i32; 3], hi: [i32; 3]| {
            (hi[1] - lo[1] <= 2).then_some(Slab {
                lo,
                hi,
                windows: [None; MAX_ARGS],
            })
        };
        let mut out = Vec::new();
        split([0, 0, 0], [5, 7, 1], &fit, &mut out).unwrap();
        let ys: Vec<(i32, i32)> = out.iter().map(|s| (s.lo[1], s.hi[1])).collect();
        assert_eq!(ys, [(0, 1), (1, 3), (3, 5), (5, 7)]);
        let never = |_: [i32; 3], _: [i32; 3]| None;
        assert!(split([0, 0, 0], [2, 2, 1], &never, &mut Vec::new()).is_err());
    }
}
