use ops_core::prelude::*;

#[kernel]
fn k(a: Write<f64>) {
    a[(1, 0)] = 1.0;
}

fn main() {}
