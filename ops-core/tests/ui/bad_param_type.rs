use ops_core::prelude::*;

#[kernel]
fn k(a: Read<f64>, b: &mut [f64]) {
    let x = a[(0, 0)];
}

fn main() {}
