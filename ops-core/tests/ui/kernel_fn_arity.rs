use ops_core::prelude::*;

#[kernel_fn]
fn average(x: f64, y: f64) -> f64 {
    0.5 * (x + y)
}

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = average(a[(0, 0)]);
}

fn main() {}
