use ops_core::prelude::*;

#[kernel_fn]
fn centre(a: Read<f64>) -> f64 {
    a[(0, 0)]
}

fn main() {}
