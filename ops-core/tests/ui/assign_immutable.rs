use ops_core::prelude::*;

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    let s = 0.0;
    s = a[(0, 0)];
    b[(0, 0)] = s;
}

fn main() {}
