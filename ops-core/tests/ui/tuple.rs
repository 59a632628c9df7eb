use ops_core::prelude::*;

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    let pair = (a[(0, 0)], 1.0);
    b[(0, 0)] = a[(0, 0)];
}

fn main() {}
