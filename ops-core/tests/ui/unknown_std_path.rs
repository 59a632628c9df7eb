use ops_core::prelude::*;

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = a[(0, 0)] * std::f64::consts::GOLDEN;
}

fn main() {}
