use ops_core::prelude::*;

#[kernel]
fn k(a: Read<f64>) {
    a[(0, 0)] = 1.0;
}

fn main() {}
