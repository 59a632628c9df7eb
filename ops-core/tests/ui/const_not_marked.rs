use ops_core::prelude::*;

// A plain const: kernels can name only constants marked #[kernel_const] (or defined inside the
// kernel). The compiler says it cannot find a macro named `GAMMA`.
const GAMMA: f64 = 1.4;

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = (GAMMA - 1.0) * a[(0, 0)];
}

fn main() {}
