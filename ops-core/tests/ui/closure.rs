use ops_core::prelude::*;

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    let sq = |x: f64| x * x;
    b[(0, 0)] = a[(0, 0)];
}

fn main() {}
