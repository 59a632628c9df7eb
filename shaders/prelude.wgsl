// Prelude shared by every generated kernel shader (ops_core::kernel::full_wgsl prepends it).
//
// Binding 0 describes the loop. Element index of iteration point (x, y, z), stencil offset
// (dx, dy, dz) and component c of dataset argument k:
//   dats[k].origin + x*i0 + y*i1 + z*i2 + dx*m0 + dy*m1 + dz*m2 + c
// (m: memory strides in elements; i: strides per iteration step, zero where a strided stencil
// holds the dataset still). Global constants of parameter k live in gf[k] (f64, f32) or gi[k] (i32).

struct OpsDat {
    origin: i32,
    m0: i32,
    m1: i32,
    m2: i32,
    i0: i32,
    i1: i32,
    i2: i32,
    pad: i32,
}

struct OpsLoop {
    lo: vec4<i32>,
    hi: vec4<i32>,
    dats: array<OpsDat, 32>,
    gi: array<i32, 32>,
    gf: array<f64, 32>,
}

@group(0) @binding(0) var<storage, read> ops_loop: OpsLoop;

fn ops_point(k: u32, x: i32, y: i32, z: i32) -> i32 {
    let d = ops_loop.dats[k];
    return d.origin + x * d.i0 + y * d.i1 + z * d.i2;
}

fn ops_offset(k: u32, dx: i32, dy: i32, dz: i32) -> i32 {
    let d = ops_loop.dats[k];
    return dx * d.m0 + dy * d.m1 + dz * d.m2;
}

// Rust's signum: 1 for +0 and above, -1 below, NaN for NaN.
fn ops_signum_f64(a: f64) -> f64 {
    if (a < 0.0lf) { return -1.0lf; }
    if (a >= 0.0lf) { return 1.0lf; }
    return a;
}

fn ops_signum_f32(a: f32) -> f32 {
    if (a < 0.0f) { return -1.0f; }
    if (a >= 0.0f) { return 1.0f; }
    return a;
}

fn ops_copysign_f64(a: f64, b: f64) -> f64 {
    return select(abs(a), -abs(a), b < 0.0lf);
}

fn ops_copysign_f32(a: f32, b: f32) -> f32 {
    return select(abs(a), -abs(a), b < 0.0f);
}

// Integer power by repeated squaring, as Rust's powi does on the CPU.
fn ops_powi_f64(a: f64, n: i32) -> f64 {
    var base = a;
    var e = abs(n);
    var r = 1.0lf;
    loop {
        if ((e & 1) != 0) { r = r * base; }
        e = e >> 1u;
        if (e == 0) { break; }
        base = base * base;
    }
    return select(r, 1.0lf / r, n < 0);
}

fn ops_powi_f32(a: f32, n: i32) -> f32 {
    var base = a;
    var e = abs(n);
    var r = 1.0f;
    loop {
        if ((e & 1) != 0) { r = r * base; }
        e = e >> 1u;
        if (e == 0) { break; }
        base = base * base;
    }
    return select(r, 1.0f / r, n < 0);
}
