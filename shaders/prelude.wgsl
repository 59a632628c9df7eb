// Prelude shared by every generated kernel shader (ops_core::kernel::full_wgsl prepends it).
//
// Binding 0 describes the loop. Element index of iteration point (x, y, z), stencil offset
// (dx, dy, dz) and component c of dataset argument k:
//   dats[k].origin + x*i0 + y*i1 + z*i2 + dx*m0 + dy*m1 + dz*m2 + c
// (m: memory strides in elements; i: strides per iteration step, zero where a strided stencil
// holds the dataset still). Global constants of parameter k live in gf[k] (f64, f32) or gi[k] (i32).
// For a Min/Max reduction parameter k the runtime writes the operation's identity (+-infinity for
// floats, which WGSL cannot spell as a literal; i32::MAX/MIN) into gf[k] or gi[k].
//
// lo.w selects how invocations map to points (ops_iteration_point): 1 for row mode, 0 for
// linear mode.
//
// Layout (bytes; the wgpu backend's `LoopDesc` mirrors it): lo @0, hi @16, dats @32 (32 bytes
// each), gi @1056, gf @1184; 1440 in all.

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

// Workgroup size of every generated kernel.
const OPS_WG: u32 = 64u;

// The iteration point (x, y, z) of an invocation, and in w whether it is inside the range.
// Row mode (lo.w = 1; dispatch ceil(nx / 64) x ny x nz workgroups): workgroup (i, y, z) covers
// points 64 i .. 64 i + 63 of row (y, z), so no integer division is needed (slow on many
// devices). Linear mode (lo.w = 0; for short rows, or grids beyond the dispatch limits): the
// box's points in order, x fastest, 64 per workgroup, workgroups numbered x + y * nwg.x.
fn ops_iteration_point(gid: vec3<u32>, lid: u32, wid: vec3<u32>, nwg: vec3<u32>) -> vec4<i32> {
    let lo = ops_loop.lo;
    let n = ops_loop.hi - lo;
    if (lo.w != 0) {
        let i = wid.x * OPS_WG + lid;
        return vec4<i32>(lo.x + i32(i), lo.y + i32(wid.y), lo.z + i32(wid.z),
                         select(0, 1, i < u32(n.x)));
    }
    let l = gid.x + gid.y * nwg.x * OPS_WG;
    let nx = u32(n.x);
    let ny = u32(n.y);
    let r = l / nx;
    let q = r / ny;
    return vec4<i32>(lo.x + i32(l - r * nx), lo.y + i32(r - q * ny), lo.z + i32(q),
                     select(0, 1, l < nx * ny * u32(n.z)));
}

// Where a workgroup's reduction partial goes: its linear index in the dispatch grid.
fn ops_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + nwg.x * (wid.y + nwg.y * wid.z);
}

fn ops_point(k: u32, x: i32, y: i32, z: i32) -> i32 {
    let d = ops_loop.dats[k];
    return d.origin + x * d.i0 + y * d.i1 + z * d.i2;
}

fn ops_offset(k: u32, dx: i32, dy: i32, dz: i32) -> i32 {
    let d = ops_loop.dats[k];
    return dx * d.m0 + dy * d.m1 + dz * d.m2;
}

// Fortran MIN/MAX, as the CPU code computes float min/max: b when it compares smaller (larger),
// else a.
fn ops_min_f64(a: f64, b: f64) -> f64 { return select(a, b, b < a); }
fn ops_max_f64(a: f64, b: f64) -> f64 { return select(a, b, b > a); }
fn ops_min_f32(a: f32, b: f32) -> f32 { return select(a, b, b < a); }
fn ops_max_f32(a: f32, b: f32) -> f32 { return select(a, b, b > a); }

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
