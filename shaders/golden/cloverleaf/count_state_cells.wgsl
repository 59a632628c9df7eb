// kernel count_state_cells
@group(0) @binding(1) var<storage, read> d_0: array<f64>;
@group(0) @binding(2) var<storage, read> d_1: array<f64>;
@group(0) @binding(3) var<storage, read> d_2: array<f64>;
@group(0) @binding(4) var<storage, read> d_3: array<f64>;
@group(0) @binding(11) var<storage, read_write> r_10: array<f64>;
var<workgroup> w_10: array<f64, 64>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ops_pt = ops_iteration_point(gid, lid, wid, nwg);
    var acc_10: f64 = 0.0lf;
    if (ops_pt.w != 0) {
        let ops_x = ops_pt.x;
        let ops_y = ops_pt.y;
        let ops_z = ops_pt.z;
        let ops_d0 = ops_loop.dats[0];
        let p_0 = ops_d0.origin + ops_x * ops_d0.i0 + ops_y * ops_d0.i1 + ops_z * ops_d0.i2;
        let o_0_0 = p_0 + ops_d0.m0;
        let o_0_1 = p_0;
        let ops_d1 = ops_loop.dats[1];
        let p_1 = ops_d1.origin + ops_x * ops_d1.i0 + ops_y * ops_d1.i1 + ops_z * ops_d1.i2;
        let o_1_0 = p_1 + ops_d1.m1;
        let o_1_1 = p_1;
        let ops_d2 = ops_loop.dats[2];
        let p_2 = ops_d2.origin + ops_x * ops_d2.i0 + ops_y * ops_d2.i1 + ops_z * ops_d2.i2;
        let o_2_0 = p_2;
        let ops_d3 = ops_loop.dats[3];
        let p_3 = ops_d3.origin + ops_x * ops_d3.i0 + ops_y * ops_d3.i1 + ops_z * ops_d3.i2;
        let o_3_0 = p_3;
        var l_inside_0: bool = false;
        if ((ops_loop.gi[4] == (1i))) {
            if (((d_0[o_0_0] >= ops_loop.gf[5]) && (d_0[o_0_1] < ops_loop.gf[6]))) {
                if (((d_1[o_1_0] >= ops_loop.gf[7]) && (d_1[o_1_1] < ops_loop.gf[8]))) {
                    l_inside_0 = true;
                }
            }
        } else {
            if ((ops_loop.gi[4] == (2i))) {
                var l_r_1: f64 = sqrt((((d_2[o_2_0] - ops_loop.gf[5]) * (d_2[o_2_0] - ops_loop.gf[5])) + ((d_3[o_3_0] - ops_loop.gf[7]) * (d_3[o_3_0] - ops_loop.gf[7]))));
                if ((l_r_1 <= ops_loop.gf[9])) {
                    l_inside_0 = true;
                }
            } else {
                if ((ops_loop.gi[4] == (3i))) {
                    if (((d_0[o_0_1] == ops_loop.gf[5]) && (d_1[o_1_1] == ops_loop.gf[7]))) {
                        l_inside_0 = true;
                    }
                }
            }
        }
        if (l_inside_0) {
            acc_10 = acc_10 + ((1.0lf));
        }
    }
    w_10[lid] = acc_10;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if (lid < s) { w_10[lid] = w_10[lid] + w_10[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) { r_10[ops_workgroup_index(wid, nwg)] = w_10[0]; }
}
