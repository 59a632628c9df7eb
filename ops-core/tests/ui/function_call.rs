use ops_core::prelude::*;

// A plain function: kernels can call only functions marked #[kernel_fn]. The compiler says
// it cannot find a macro named `helper`: the signature macro #[kernel_fn] would have defined.
fn helper(x: f64) -> f64 {
    x
}

#[kernel]
fn k(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = helper(a[(0, 0)]);
}

fn main() {}
