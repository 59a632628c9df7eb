use ops_core::prelude::*;

#[kernel]
fn k(a: Read<f64>, b: Write<f64>, d: Global<i32>) {
    b[(0, 0)] = a[(d, 0)];
}

fn main() {}
