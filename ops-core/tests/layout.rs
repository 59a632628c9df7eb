//! Storage layout arithmetic and the reproducible chunk partition.

use ops_core::exec::{chunk_bounds, chunk_count, MAX_CHUNKS};
use ops_core::kernel::ElemType;
use ops_core::{DatLayout, IterRange};
use proptest::prelude::*;

fn layout() -> DatLayout {
    DatLayout {
        ty: ElemType::F64,
        dims: 3,
        components: 2,
        size: [4, 3, 2],
        base: [1, 0, -1],
        neg: [-1, -2, 0],
        pos: [2, 1, 1],
    }
}

#[test]
fn layout_formula() {
    let l = layout();
    assert_eq!(l.lo(), [0, -2, -1]);
    assert_eq!(l.hi(), [7, 4, 2]);
    assert_eq!(l.total(), [7, 6, 3]);
    assert_eq!(l.mem(), [2, 14, 84]);
    assert_eq!(l.elems(), 7 * 6 * 3 * 2);
    assert_eq!(l.bytes(), l.elems() * 8);
    // ((p_z - lo_z)*ny_tot + (p_y - lo_y))*nx_tot*comps + (p_x - lo_x)*comps + c
    let idx = |p: [i32; 3], c: usize| {
        (((p[2] + 1) as usize * 6 + (p[1] + 2) as usize) * 7 * 2 + p[0] as usize * 2 + c) as isize
    };
    for z in -1..2 {
        for y in -2..4 {
            for x in 0..7 {
                for c in 0..2 {
                    assert_eq!(l.index([x, y, z], c), idx([x, y, z], c));
                }
            }
        }
    }
    assert_eq!(
        l.interior(),
        IterRange::new(3, [1, 0, -1], [5, 3, 1]).unwrap()
    );
    assert_eq!(
        l.extent(),
        IterRange::new(3, [0, -2, -1], [7, 4, 2]).unwrap()
    );
    assert!(l.contains(&l.extent()));
    assert!(!l.contains(&IterRange::new(3, [0, -3, -1], [7, 4, 2]).unwrap()));
    assert!(!l.contains(&IterRange::new(2, [0, 0, 0], [1, 1, 1]).unwrap()));
    // Rows of a box, in packed order.
    let mut rows = Vec::new();
    l.for_each_row(&IterRange::new(3, [2, 0, 0], [4, 2, 2]).unwrap(), |s, n| {
        rows.push((s, n))
    });
    assert_eq!(
        rows,
        vec![
            (l.index([2, 0, 0], 0) as usize, 4),
            (l.index([2, 1, 0], 0) as usize, 4),
            (l.index([2, 0, 1], 0) as usize, 4),
            (l.index([2, 1, 1], 0) as usize, 4),
        ]
    );
}

proptest! {
    #[test]
    fn chunks_partition_the_outer_dimension(
        dims in 1usize..=3,
        lo in prop::array::uniform3(-100i32..100),
        len in prop::array::uniform3(0i32..300),
    ) {
        let mut hi = [0; 3];
        let (mut lo, mut len) = (lo, len);
        for d in 0..3 {
            if d >= dims {
                lo[d] = 0;
                len[d] = 1;
            }
            hi[d] = lo[d] + len[d];
        }
        let outer = dims - 1;
        let n = chunk_count(dims, lo, hi);
        prop_assert_eq!(n, (len[outer] as usize).min(MAX_CHUNKS));
        let mut next = lo[outer];
        for i in 0..n {
            let (a, b) = chunk_bounds(dims, lo, hi, n, i);
            for d in 0..3 {
                if d != outer {
                    prop_assert_eq!((a[d], b[d]), (lo[d], hi[d]));
                }
            }
            prop_assert_eq!(a[outer], next);
            prop_assert!(b[outer] > a[outer]);
            next = b[outer];
        }
        if n > 0 {
            prop_assert_eq!(next, hi[outer]);
        }
    }
}
