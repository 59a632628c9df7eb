use ops_core::prelude::*;

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    if a[(0, 0)] < 0.0 {
        return;
    }
    b[(0, 0)] = a[(0, 0)];
}

fn main() {}
