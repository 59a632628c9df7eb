// kernel calc_dt_report
@group(0) @binding(1) var<storage, read> d_0: array<f64>;
@group(0) @binding(2) var<storage, read> d_1: array<f64>;
@group(0) @binding(3) var<storage, read> d_2: array<f64>;
@group(0) @binding(4) var<storage, read> d_3: array<f64>;
@group(0) @binding(5) var<storage, read> d_4: array<f64>;
@group(0) @binding(6) var<storage, read> d_5: array<f64>;
@group(0) @binding(7) var<storage, read> d_6: array<f64>;
@group(0) @binding(8) var<storage, read> d_7: array<f64>;
@group(0) @binding(9) var<storage, read> d_8: array<f64>;
@group(0) @binding(10) var<storage, read> d_9: array<f64>;
@group(0) @binding(11) var<storage, read> d_10: array<f64>;
@group(0) @binding(12) var<storage, read> d_11: array<f64>;
@group(0) @binding(19) var<storage, read_write> r_18: array<f64>;
var<workgroup> w_18: array<f64, 64>;
@group(0) @binding(20) var<storage, read_write> r_19: array<f64>;
var<workgroup> w_19: array<f64, 64>;
@group(0) @binding(21) var<storage, read_write> r_20: array<f64>;
var<workgroup> w_20: array<f64, 64>;
@group(0) @binding(22) var<storage, read_write> r_21: array<f64>;
var<workgroup> w_21: array<f64, 64>;
@group(0) @binding(23) var<storage, read_write> r_22: array<f64>;
var<workgroup> w_22: array<f64, 64>;
@group(0) @binding(24) var<storage, read_write> r_23: array<f64>;
var<workgroup> w_23: array<f64, 64>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ops_pt = ops_iteration_point(gid, lid, wid, nwg);
    var acc_18: f64 = 0.0lf;
    var acc_19: f64 = 0.0lf;
    var acc_20: f64 = 0.0lf;
    var acc_21: f64 = 0.0lf;
    var acc_22: f64 = 0.0lf;
    var acc_23: f64 = 0.0lf;
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
        let ops_d5 = ops_loop.dats[5];
        let p_5 = ops_d5.origin + ops_x * ops_d5.i0 + ops_y * ops_d5.i1 + ops_z * ops_d5.i2;
        let o_5_0 = p_5;
        let ops_d6 = ops_loop.dats[6];
        let p_6 = ops_d6.origin + ops_x * ops_d6.i0 + ops_y * ops_d6.i1 + ops_z * ops_d6.i2;
        let o_6_0 = p_6;
        let ops_d7 = ops_loop.dats[7];
        let p_7 = ops_d7.origin + ops_x * ops_d7.i0 + ops_y * ops_d7.i1 + ops_z * ops_d7.i2;
        let o_7_0 = p_7;
        let o_7_1 = p_7 + ops_d7.m1;
        let o_7_2 = p_7 + ops_d7.m0;
        let o_7_3 = p_7 + ops_d7.m0 + ops_d7.m1;
        let ops_d8 = ops_loop.dats[8];
        let p_8 = ops_d8.origin + ops_x * ops_d8.i0 + ops_y * ops_d8.i1 + ops_z * ops_d8.i2;
        let o_8_0 = p_8;
        let o_8_1 = p_8 + ops_d8.m0;
        let ops_d9 = ops_loop.dats[9];
        let p_9 = ops_d9.origin + ops_x * ops_d9.i0 + ops_y * ops_d9.i1 + ops_z * ops_d9.i2;
        let o_9_0 = p_9;
        let ops_d10 = ops_loop.dats[10];
        let p_10 = ops_d10.origin + ops_x * ops_d10.i0 + ops_y * ops_d10.i1 + ops_z * ops_d10.i2;
        let o_10_0 = p_10;
        let o_10_1 = p_10 + ops_d10.m0;
        let o_10_2 = p_10 + ops_d10.m1;
        let o_10_3 = p_10 + ops_d10.m0 + ops_d10.m1;
        let ops_d11 = ops_loop.dats[11];
        let p_11 = ops_d11.origin + ops_x * ops_d11.i0 + ops_y * ops_d11.i1 + ops_z * ops_d11.i2;
        let o_11_0 = p_11;
        let o_11_1 = p_11 + ops_d11.m1;
        var l_dsx_0: f64 = d_0[o_0_0];
        var l_dsy_1: f64 = d_1[o_1_0];
        var l_cc_2: f64 = (d_4[o_4_0] * d_4[o_4_0]);
        l_cc_2 = (l_cc_2 + (((2.0lf) * d_5[o_5_0]) / d_6[o_6_0]));
        l_cc_2 = ops_max_f64(sqrt(l_cc_2), ops_loop.gf[12]);
        var l_dtct_3: f64 = ((ops_loop.gf[14] * ops_min_f64(l_dsx_0, l_dsy_1)) / l_cc_2);
        var l_div_4: f64 = (0.0lf);
        var l_dv1_5: f64 = ((d_7[o_7_0] + d_7[o_7_1]) * d_8[o_8_0]);
        var l_dv2_6: f64 = ((d_7[o_7_2] + d_7[o_7_3]) * d_8[o_8_1]);
        l_div_4 = ((l_div_4 + l_dv2_6) - l_dv1_5);
        var l_dtut_7: f64 = (((ops_loop.gf[15] * (2.0lf)) * d_9[o_9_0]) / ops_max_f64(ops_max_f64(abs(l_dv1_5), abs(l_dv2_6)), (ops_loop.gf[12] * d_9[o_9_0])));
        l_dv1_5 = ((d_10[o_10_0] + d_10[o_10_1]) * d_11[o_11_0]);
        l_dv2_6 = ((d_10[o_10_2] + d_10[o_10_3]) * d_11[o_11_1]);
        l_div_4 = ((l_div_4 + l_dv2_6) - l_dv1_5);
        var l_dtvt_8: f64 = (((ops_loop.gf[16] * (2.0lf)) * d_9[o_9_0]) / ops_max_f64(ops_max_f64(abs(l_dv1_5), abs(l_dv2_6)), (ops_loop.gf[12] * d_9[o_9_0])));
        l_div_4 = (l_div_4 / ((2.0lf) * d_9[o_9_0]));
        var ops_t0: f64;
        if ((l_div_4 < (-ops_loop.gf[12]))) {
            ops_t0 = (ops_loop.gf[17] * ((-1.0lf) / l_div_4));
        } else {
            ops_t0 = ops_loop.gf[13];
        }
        var l_dtdivt_9: f64 = ops_t0;
        acc_18 = acc_18 + (l_dtct_3);
        acc_19 = acc_19 + (l_dtut_7);
        acc_20 = acc_20 + (l_dtvt_8);
        acc_21 = acc_21 + (l_dtdivt_9);
        acc_22 = acc_22 + (d_2[o_2_0]);
        acc_23 = acc_23 + (d_3[o_3_0]);
    }
    w_18[lid] = acc_18;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if (lid < s) { w_18[lid] = w_18[lid] + w_18[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) { r_18[ops_workgroup_index(wid, nwg)] = w_18[0]; }
    w_19[lid] = acc_19;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if (lid < s) { w_19[lid] = w_19[lid] + w_19[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) { r_19[ops_workgroup_index(wid, nwg)] = w_19[0]; }
    w_20[lid] = acc_20;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if (lid < s) { w_20[lid] = w_20[lid] + w_20[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) { r_20[ops_workgroup_index(wid, nwg)] = w_20[0]; }
    w_21[lid] = acc_21;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if (lid < s) { w_21[lid] = w_21[lid] + w_21[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) { r_21[ops_workgroup_index(wid, nwg)] = w_21[0]; }
    w_22[lid] = acc_22;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if (lid < s) { w_22[lid] = w_22[lid] + w_22[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) { r_22[ops_workgroup_index(wid, nwg)] = w_22[0]; }
    w_23[lid] = acc_23;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if (lid < s) { w_23[lid] = w_23[lid] + w_23[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) { r_23[ops_workgroup_index(wid, nwg)] = w_23[0]; }
}
