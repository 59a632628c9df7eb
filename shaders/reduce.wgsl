// Combines reduction partials in a fixed tree (the wgpu backend's second reduction stage).
//
// The generated kernels leave one partial per workgroup in a buffer. Each pass of this shader
// cuts `src` into consecutive groups of 64 entries and combines each group with the same tree
// the kernels use inside a workgroup (entry i with entry i + s, s = 32, 16, ..., 1), writing one
// value per group to `dst`; the backend repeats passes until one value is left. The tree depends
// only on the number of partials, so a run gives the same bits every time on the same device.
//
// The backend substitutes OPS_T (f64, f32 or i32) and OPS_COMBINE (an expression in `a` and `b`,
// `b` the later entry: `a + b`, or the select that keeps `b` only when it compares smaller or
// larger, as the CPU backends' Scalar::combine does). The number of partials is the length of
// the `src` binding.

alias T = OPS_T;

@group(0) @binding(0) var<storage, read> src: array<T>;
@group(0) @binding(1) var<storage, read_write> dst: array<T>;

var<workgroup> w: array<T, 64>;

fn combine(a: T, b: T) -> T {
    return OPS_COMBINE;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = arrayLength(&src);
    let g = wid.x + wid.y * nwg.x;
    let base = g * 64u;
    if (base + lid < n) {
        w[lid] = src[base + lid];
    }
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        // Entries past the end are never read, so they need no identity.
        if (lid < s && base + lid + s < n) {
            w[lid] = combine(w[lid], w[lid + s]);
        }
        workgroupBarrier();
    }
    if (lid == 0u && base < n) {
        dst[g] = w[0];
    }
}
