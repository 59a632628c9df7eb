use ops_core::prelude::*;

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    let w = [0.25, 0.5, 0.25];
    let v = w;
    b[(0, 0)] = a[(0, 0)];
}

fn main() {}
