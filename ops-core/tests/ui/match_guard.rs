use ops_core::prelude::*;

#[kernel]
fn k(idx: Idx, b: Write<f64>) {
    b[(0, 0)] = match idx[0] {
        n if n > 3 => 1.0,
        _ => 2.0,
    };
}

fn main() {}
