// kernel calc_dt_min
@group(0) @binding(1) var<storage, read> d_0: array<f64>;
@group(0) @binding(2) var<storage, read_write> r_1: array<f64>;
var<workgroup> w_1: array<f64, 64>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ops_pt = ops_iteration_point(gid, lid, wid, nwg);
    var acc_1: f64 = ops_loop.gf[1];
    if (ops_pt.w != 0) {
        let ops_x = ops_pt.x;
        let ops_y = ops_pt.y;
        let ops_z = ops_pt.z;
        let ops_d0 = ops_loop.dats[0];
        let p_0 = ops_d0.origin + ops_x * ops_d0.i0 + ops_y * ops_d0.i1 + ops_z * ops_d0.i2;
        let o_0_0 = p_0;
        { let v = d_0[o_0_0]; if (v < acc_1) { acc_1 = v; } }
    }
    w_1[lid] = acc_1;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if (lid < s) { w_1[lid] = select(w_1[lid], w_1[lid + s], w_1[lid + s] < w_1[lid]); }
        workgroupBarrier();
    }
    if (lid == 0u) { r_1[ops_workgroup_index(wid, nwg)] = w_1[0]; }
}
