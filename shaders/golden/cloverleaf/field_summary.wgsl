// kernel field_summary
@group(0) @binding(1) var<storage, read> d_0: array<f64>;
@group(0) @binding(2) var<storage, read> d_1: array<f64>;
@group(0) @binding(3) var<storage, read> d_2: array<f64>;
@group(0) @binding(4) var<storage, read> d_3: array<f64>;
@group(0) @binding(5) var<storage, read> d_4: array<f64>;
@group(0) @binding(6) var<storage, read> d_5: array<f64>;
@group(0) @binding(7) var<storage, read_write> r_6: array<f64>;
var<workgroup> w_6: array<f64, 64>;
@group(0) @binding(8) var<storage, read_write> r_7: array<f64>;
var<workgroup> w_7: array<f64, 64>;
@group(0) @binding(9) var<storage, read_write> r_8: array<f64>;
var<workgroup> w_8: array<f64, 64>;
@group(0) @binding(10) var<storage, read_write> r_9: array<f64>;
var<workgroup> w_9: array<f64, 64>;
@group(0) @binding(11) var<storage, read_write> r_10: array<f64>;
var<workgroup> w_10: array<f64, 64>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ops_pt = ops_iteration_point(gid, lid, wid, nwg);
    var acc_6: f64 = 0.0lf;
    var acc_7: f64 = 0.0lf;
    var acc_8: f64 = 0.0lf;
    var acc_9: f64 = 0.0lf;
    var acc_10: f64 = 0.0lf;
    if (ops_pt.w != 0) {
        let ops_x = ops_pt.x;
        let ops_y = ops_pt.y;
        let ops_z = ops_pt.z;
        let ops_d0 = ops_loop.dats[0];
        let p_0 = ops_d0.origin + ops_x * ops_d0.i0 + ops_y * ops_d0.i1 + ops_z * ops_d0.i2;
        let o_0_0 = p_0;
        let ops_d1 = ops_loop.dats[1];
        let p_1 = ops_d1.origin + ops_x * ops_d1.i0 + ops_y * ops_d1.i1 + ops_z * ops_d1.i2;
        let o_1_0 = p_1;
        let ops_d2 = ops_loop.dats[2];
        let p_2 = ops_d2.origin + ops_x * ops_d2.i0 + ops_y * ops_d2.i1 + ops_z * ops_d2.i2;
        let o_2_0 = p_2;
        let ops_d3 = ops_loop.dats[3];
        let p_3 = ops_d3.origin + ops_x * ops_d3.i0 + ops_y * ops_d3.i1 + ops_z * ops_d3.i2;
        let o_3_0 = p_3;
        let ops_d4 = ops_loop.dats[4];
        let p_4 = ops_d4.origin + ops_x * ops_d4.i0 + ops_y * ops_d4.i1 + ops_z * ops_d4.i2;
        let o_4_0 = p_4;
        let o_4_1 = p_4 + ops_d4.m0;
        let o_4_2 = p_4 + ops_d4.m1;
        let o_4_3 = p_4 + ops_d4.m0 + ops_d4.m1;
        let ops_d5 = ops_loop.dats[5];
        let p_5 = ops_d5.origin + ops_x * ops_d5.i0 + ops_y * ops_d5.i1 + ops_z * ops_d5.i2;
        let o_5_0 = p_5;
        let o_5_1 = p_5 + ops_d5.m0;
        let o_5_2 = p_5 + ops_d5.m1;
        let o_5_3 = p_5 + ops_d5.m0 + ops_d5.m1;
        var l_vsqrd_0: f64 = (0.0lf);
        l_vsqrd_0 = (l_vsqrd_0 + ((0.25lf) * ((d_4[o_4_0] * d_4[o_4_0]) + (d_5[o_5_0] * d_5[o_5_0]))));
        l_vsqrd_0 = (l_vsqrd_0 + ((0.25lf) * ((d_4[o_4_1] * d_4[o_4_1]) + (d_5[o_5_1] * d_5[o_5_1]))));
        l_vsqrd_0 = (l_vsqrd_0 + ((0.25lf) * ((d_4[o_4_2] * d_4[o_4_2]) + (d_5[o_5_2] * d_5[o_5_2]))));
        l_vsqrd_0 = (l_vsqrd_0 + ((0.25lf) * ((d_4[o_4_3] * d_4[o_4_3]) + (d_5[o_5_3] * d_5[o_5_3]))));
        var l_cell_vol_1: f64 = d_0[o_0_0];
        var l_cell_mass_2: f64 = (l_cell_vol_1 * d_1[o_1_0]);
        acc_6 = acc_6 + (l_cell_vol_1);
        acc_7 = acc_7 + (l_cell_mass_2);
        acc_8 = acc_8 + ((l_cell_mass_2 * d_2[o_2_0]));
        acc_9 = acc_9 + (((l_cell_mass_2 * (0.5lf)) * l_vsqrd_0));
        acc_10 = acc_10 + ((l_cell_vol_1 * d_3[o_3_0]));
    }
    w_6[lid] = acc_6;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if (lid < s) { w_6[lid] = w_6[lid] + w_6[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) { r_6[ops_workgroup_index(wid, nwg)] = w_6[0]; }
    w_7[lid] = acc_7;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if (lid < s) { w_7[lid] = w_7[lid] + w_7[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) { r_7[ops_workgroup_index(wid, nwg)] = w_7[0]; }
    w_8[lid] = acc_8;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if (lid < s) { w_8[lid] = w_8[lid] + w_8[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) { r_8[ops_workgroup_index(wid, nwg)] = w_8[0]; }
    w_9[lid] = acc_9;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if (lid < s) { w_9[lid] = w_9[lid] + w_9[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) { r_9[ops_workgroup_index(wid, nwg)] = w_9[0]; }
    w_10[lid] = acc_10;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if (lid < s) { w_10[lid] = w_10[lid] + w_10[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) { r_10[ops_workgroup_index(wid, nwg)] = w_10[0]; }
}
