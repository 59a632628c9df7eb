use ops_core::prelude::*;

#[kernel]
fn k(a: Write<f64>, b: Write<f64>) {
    a[(0, 0)] = 1.0;
    b[(0, 0)] = a[(0, 0)];
}

fn main() {}
