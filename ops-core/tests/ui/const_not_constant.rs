use ops_core::prelude::*;

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    const ROOT: f64 = 2.0f64.sqrt();
    b[(0, 0)] = ROOT * a[(0, 0)];
}

fn main() {}
