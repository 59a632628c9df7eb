use ops_core::prelude::*;

#[kernel_fn]
fn scale(x: f64, times: i32) -> f64 {
    x * times as f64
}

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = scale(a[(0, 0)], a[(0, 0)]);
}

fn main() {}
