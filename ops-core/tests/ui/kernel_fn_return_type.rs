use ops_core::prelude::*;

#[kernel_fn]
fn count(x: f64) -> i32 {
    if x > 0.0 {
        1
    } else {
        0
    }
}

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = count(a[(0, 0)]);
}

fn main() {}
