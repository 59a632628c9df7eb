use ops_core::prelude::*;

#[kernel_fn]
fn half(x: f64) -> f64 {
    let h = x * 0.5;
    h;
}

fn main() {}
