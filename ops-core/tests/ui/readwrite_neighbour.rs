use ops_core::prelude::*;

#[kernel]
fn k(a: ReadWrite<f64>) {
    a[(0, 0)] = a[(0, 1)];
}

fn main() {}
