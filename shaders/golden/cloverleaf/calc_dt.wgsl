// kernel calc_dt
@group(0) @binding(1) var<storage, read> d_0: array<f64>;
@group(0) @binding(2) var<storage, read> d_1: array<f64>;
@group(0) @binding(3) var<storage, read> d_2: array<f64>;
@group(0) @binding(4) var<storage, read> d_3: array<f64>;
@group(0) @binding(5) var<storage, read> d_4: array<f64>;
@group(0) @binding(6) var<storage, read> d_5: array<f64>;
@group(0) @binding(7) var<storage, read> d_6: array<f64>;
@group(0) @binding(8) var<storage, read> d_7: array<f64>;
@group(0) @binding(9) var<storage, read_write> d_8: array<f64>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ops_pt = ops_iteration_point(gid, lid, wid, nwg);
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
        let o_3_1 = p_3 + ops_d3.m1;
        let o_3_2 = p_3 + ops_d3.m0;
        let o_3_3 = p_3 + ops_d3.m0 + ops_d3.m1;
        let ops_d4 = ops_loop.dats[4];
        let p_4 = ops_d4.origin + ops_x * ops_d4.i0 + ops_y * ops_d4.i1 + ops_z * ops_d4.i2;
        let o_4_0 = p_4;
        let o_4_1 = p_4 + ops_d4.m0;
        let ops_d5 = ops_loop.dats[5];
        let p_5 = ops_d5.origin + ops_x * ops_d5.i0 + ops_y * ops_d5.i1 + ops_z * ops_d5.i2;
        let o_5_0 = p_5;
        let ops_d6 = ops_loop.dats[6];
        let p_6 = ops_d6.origin + ops_x * ops_d6.i0 + ops_y * ops_d6.i1 + ops_z * ops_d6.i2;
        let o_6_0 = p_6;
        let o_6_1 = p_6 + ops_d6.m0;
        let o_6_2 = p_6 + ops_d6.m1;
        let o_6_3 = p_6 + ops_d6.m0 + ops_d6.m1;
        let ops_d7 = ops_loop.dats[7];
        let p_7 = ops_d7.origin + ops_x * ops_d7.i0 + ops_y * ops_d7.i1 + ops_z * ops_d7.i2;
        let o_7_0 = p_7;
        let o_7_1 = p_7 + ops_d7.m1;
        let ops_d8 = ops_loop.dats[8];
        let p_8 = ops_d8.origin + ops_x * ops_d8.i0 + ops_y * ops_d8.i1 + ops_z * ops_d8.i2;
        let o_8_0 = p_8;
        var l_cc_0: f64 = (d_0[o_0_0] * d_0[o_0_0]);
        l_cc_0 = (l_cc_0 + (((2.0lf) * d_1[o_1_0]) / d_2[o_2_0]));
        var l_root_1: f64 = sqrt(l_cc_0);
        var ops_t0: f64;
        if ((l_root_1 > ops_loop.gf[11])) {
            ops_t0 = l_root_1;
        } else {
            ops_t0 = ops_loop.gf[11];
        }
        l_cc_0 = ops_t0;
        var ops_t1: f64;
        if ((ops_loop.gf[9] < ops_loop.gf[10])) {
            ops_t1 = ops_loop.gf[9];
        } else {
            ops_t1 = ops_loop.gf[10];
        }
        var l_ds_2: f64 = ops_t1;
        var l_dtct_3: f64 = ((ops_loop.gf[13] * l_ds_2) / l_cc_0);
        var l_vol_4: f64 = d_5[o_5_0];
        var l_floor_5: f64 = (ops_loop.gf[11] * l_vol_4);
        var l_div_6: f64 = (0.0lf);
        var l_dv1_7: f64 = ((d_3[o_3_0] + d_3[o_3_1]) * d_4[o_4_0]);
        var l_dv2_8: f64 = ((d_3[o_3_2] + d_3[o_3_3]) * d_4[o_4_1]);
        l_div_6 = ((l_div_6 + l_dv2_8) - l_dv1_7);
        var l_a1_9: f64 = abs(l_dv1_7);
        var l_a2_10: f64 = abs(l_dv2_8);
        var ops_t2: f64;
        if ((l_a1_9 > l_a2_10)) {
            ops_t2 = l_a1_9;
        } else {
            ops_t2 = l_a2_10;
        }
        var l_den_11: f64 = ops_t2;
        var ops_t3: f64;
        if ((l_den_11 > l_floor_5)) {
            ops_t3 = l_den_11;
        } else {
            ops_t3 = l_floor_5;
        }
        l_den_11 = ops_t3;
        var l_dtut_12: f64 = (((ops_loop.gf[14] * (2.0lf)) * l_vol_4) / l_den_11);
        l_dv1_7 = ((d_6[o_6_0] + d_6[o_6_1]) * d_7[o_7_0]);
        l_dv2_8 = ((d_6[o_6_2] + d_6[o_6_3]) * d_7[o_7_1]);
        l_div_6 = ((l_div_6 + l_dv2_8) - l_dv1_7);
        l_a1_9 = abs(l_dv1_7);
        l_a2_10 = abs(l_dv2_8);
        var ops_t4: f64;
        if ((l_a1_9 > l_a2_10)) {
            ops_t4 = l_a1_9;
        } else {
            ops_t4 = l_a2_10;
        }
        l_den_11 = ops_t4;
        var ops_t5: f64;
        if ((l_den_11 > l_floor_5)) {
            ops_t5 = l_den_11;
        } else {
            ops_t5 = l_floor_5;
        }
        l_den_11 = ops_t5;
        var l_dtvt_13: f64 = (((ops_loop.gf[15] * (2.0lf)) * l_vol_4) / l_den_11);
        l_div_6 = (l_div_6 / ((2.0lf) * l_vol_4));
        var ops_t6: f64;
        if ((l_div_6 < (-ops_loop.gf[11]))) {
            ops_t6 = (ops_loop.gf[16] * ((-1.0lf) / l_div_6));
        } else {
            ops_t6 = ops_loop.gf[12];
        }
        var l_dtdivt_14: f64 = ops_t6;
        var ops_t7: f64;
        if ((l_dtut_12 < l_dtct_3)) {
            ops_t7 = l_dtut_12;
        } else {
            ops_t7 = l_dtct_3;
        }
        var l_m_15: f64 = ops_t7;
        var ops_t8: f64;
        if ((l_dtvt_13 < l_m_15)) {
            ops_t8 = l_dtvt_13;
        } else {
            ops_t8 = l_m_15;
        }
        l_m_15 = ops_t8;
        var ops_t9: f64;
        if ((l_dtdivt_14 < l_m_15)) {
            ops_t9 = l_dtdivt_14;
        } else {
            ops_t9 = l_m_15;
        }
        l_m_15 = ops_t9;
        d_8[o_8_0] = l_m_15;
    }
}
