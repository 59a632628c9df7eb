use ops_core::prelude::*;

#[kernel]
fn k(a: Read<f64>, b: Write<f64>, n: Global<i32>) {
    let mut s = 0.0;
    for i in 0..n {
        s += a[(0, 0)];
    }
    b[(0, 0)] = s;
}

fn main() {}
