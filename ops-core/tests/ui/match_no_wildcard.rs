use ops_core::prelude::*;

#[kernel]
fn k(idx: Idx, b: Write<f64>) {
    b[(0, 0)] = match idx[0] {
        0 => 1.0,
        1 => 2.0,
    };
}

fn main() {}
