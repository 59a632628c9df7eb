use ops_core::prelude::*;

#[kernel_fn]
fn steps(x: f64) -> f64 {
    let mut s = x;
    while s > 1.0 {
        s = s * 0.5;
    }
    s
}

fn main() {}
