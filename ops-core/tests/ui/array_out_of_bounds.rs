use ops_core::prelude::*;

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    let w = [0.25, 0.5, 0.25];
    let mut s = 0.0;
    for i in 0..4 {
        s += w[i] * a[(0, 0)];
    }
    b[(0, 0)] = s;
}

fn main() {}
