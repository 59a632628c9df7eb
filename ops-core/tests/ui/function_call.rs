use ops_core::prelude::*;

fn helper(x: f64) -> f64 {
    x
}

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = helper(a[(0, 0)]);
}

fn main() {}
