use ops_core::prelude::*;

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = match a[(0, 0)] {
        _ => 1.0,
    };
}

fn main() {}
