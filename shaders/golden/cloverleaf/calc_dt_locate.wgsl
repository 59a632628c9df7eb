// kernel calc_dt_locate
@group(0) @binding(1) var<storage, read> d_0: array<f64>;
@group(0) @binding(5) var<storage, read_write> r_4: array<f64>;
var<workgroup> w_4: array<f64, 64>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ops_pt = ops_iteration_point(gid, lid, wid, nwg);
    var acc_4: f64 = ops_loop.gf[4];
    if (ops_pt.w != 0) {
        let ops_x = ops_pt.x;
        let ops_y = ops_pt.y;
        let ops_z = ops_pt.z;
        let ops_d0 = ops_loop.dats[0];
        let p_0 = ops_d0.origin + ops_x * ops_d0.i0 + ops_y * ops_d0.i1 + ops_z * ops_d0.i2;
        let o_0_0 = p_0;
        if ((d_0[o_0_0] == ops_loop.gf[2])) {
            { let v = ((f64(ops_y) * ops_loop.gf[3]) + f64(ops_x)); if (v < acc_4) { acc_4 = v; } }
        }
    }
    w_4[lid] = acc_4;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if (lid < s) { w_4[lid] = select(w_4[lid], w_4[lid + s], w_4[lid + s] < w_4[lid]); }
        workgroupBarrier();
    }
    if (lid == 0u) { r_4[ops_workgroup_index(wid, nwg)] = w_4[0]; }
}
