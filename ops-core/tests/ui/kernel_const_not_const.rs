use ops_core::prelude::*;

#[kernel_const]
static LIMIT: f64 = 0.5;

fn main() {}
