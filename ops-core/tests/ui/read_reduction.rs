use ops_core::prelude::*;

#[kernel]
fn k(a: Read<f64>, r: Min<f64>, b: Write<f64>) {
    r.update(a[(0, 0)]);
    b[(0, 0)] = r;
}

fn main() {}
