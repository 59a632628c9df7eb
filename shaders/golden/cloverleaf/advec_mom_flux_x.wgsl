// kernel advec_mom_flux_x
@group(0) @binding(1) var<storage, read> d_0: array<f64>;
@group(0) @binding(2) var<storage, read> d_1: array<f64>;
@group(0) @binding(3) var<storage, read> d_2: array<f64>;
@group(0) @binding(4) var<storage, read> d_3: array<f64>;
@group(0) @binding(5) var<storage, read_write> d_4: array<f64>;
@group(0) @binding(6) var<storage, read_write> d_5: array<f64>;
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
        let o_1_0 = p_1 + ops_d1.m0;
        let o_1_1 = p_1;
        let ops_d2 = ops_loop.dats[2];
        let p_2 = ops_d2.origin + ops_x * ops_d2.i0 + ops_y * ops_d2.i1 + ops_z * ops_d2.i2;
        let o_2_0 = p_2 + (2) * ops_d2.m0;
        let o_2_1 = p_2 - ops_d2.m0;
        let o_2_2 = p_2 + ops_d2.m0;
        let o_2_3 = p_2;
        let ops_d3 = ops_loop.dats[3];
        let p_3 = ops_d3.origin + ops_x * ops_d3.i0 + ops_y * ops_d3.i1 + ops_z * ops_d3.i2;
        let o_3_0 = p_3 + (2) * ops_d3.m0;
        let o_3_1 = p_3 - ops_d3.m0;
        let o_3_2 = p_3 + ops_d3.m0;
        let o_3_3 = p_3;
        let ops_d4 = ops_loop.dats[4];
        let p_4 = ops_d4.origin + ops_x * ops_d4.i0 + ops_y * ops_d4.i1 + ops_z * ops_d4.i2;
        let o_4_0 = p_4;
        let ops_d5 = ops_loop.dats[5];
        let p_5 = ops_d5.origin + ops_x * ops_d5.i0 + ops_y * ops_d5.i1 + ops_z * ops_d5.i2;
        let o_5_0 = p_5;
        var l_nf_0: f64 = d_0[o_0_0];
        var l_neg_1: bool = (l_nf_0 < (0.0lf));
        var ops_t0: f64;
        if (l_neg_1) {
            ops_t0 = d_1[o_1_0];
        } else {
            ops_t0 = d_1[o_1_1];
        }
        var l_m_don_2: f64 = ops_t0;
        var l_sigma_3: f64 = (abs(l_nf_0) / l_m_don_2);
        var l_width_4: f64 = ops_loop.gf[6];
        var ops_t1: f64;
        if (l_neg_1) {
            ops_t1 = d_2[o_2_0];
        } else {
            ops_t1 = d_2[o_2_1];
        }
        var l_u_up_5: f64 = ops_t1;
        var ops_t2: f64;
        if (l_neg_1) {
            ops_t2 = d_2[o_2_2];
        } else {
            ops_t2 = d_2[o_2_3];
        }
        var l_u_don_6: f64 = ops_t2;
        var ops_t3: f64;
        if (l_neg_1) {
            ops_t3 = d_2[o_2_3];
        } else {
            ops_t3 = d_2[o_2_2];
        }
        var l_u_down_7: f64 = ops_t3;
        var l_u_diffuw_8: f64 = (l_u_don_6 - l_u_up_5);
        var l_u_diffdw_9: f64 = (l_u_down_7 - l_u_don_6);
        var l_u_limiter_10: f64 = (0.0lf);
        if (((l_u_diffuw_8 * l_u_diffdw_9) > (0.0lf))) {
            var l_auw_11: f64 = abs(l_u_diffuw_8);
            var l_adw_12: f64 = abs(l_u_diffdw_9);
            var ops_t4: f64;
            if ((l_u_diffdw_9 <= (0.0lf))) {
                ops_t4 = (-1.0lf);
            } else {
                ops_t4 = (1.0lf);
            }
            var l_wind_13: f64 = ops_t4;
            var l_lim_14: f64 = ((l_width_4 * (((((2.0lf) - l_sigma_3) * l_adw_12) / l_width_4) + ((((1.0lf) + l_sigma_3) * l_auw_11) / ops_loop.gf[6]))) / (6.0lf));
            var ops_t5: f64;
            if ((l_auw_11 < l_lim_14)) {
                ops_t5 = l_auw_11;
            } else {
                ops_t5 = l_lim_14;
            }
            var l_m_15: f64 = ops_t5;
            var ops_t6: f64;
            if ((l_adw_12 < l_m_15)) {
                ops_t6 = l_adw_12;
            } else {
                ops_t6 = l_m_15;
            }
            l_m_15 = ops_t6;
            l_u_limiter_10 = (l_wind_13 * l_m_15);
        }
        d_4[o_4_0] = ((l_u_don_6 + (((1.0lf) - l_sigma_3) * l_u_limiter_10)) * l_nf_0);
        var ops_t7: f64;
        if (l_neg_1) {
            ops_t7 = d_3[o_3_0];
        } else {
            ops_t7 = d_3[o_3_1];
        }
        var l_v_up_16: f64 = ops_t7;
        var ops_t8: f64;
        if (l_neg_1) {
            ops_t8 = d_3[o_3_2];
        } else {
            ops_t8 = d_3[o_3_3];
        }
        var l_v_don_17: f64 = ops_t8;
        var ops_t9: f64;
        if (l_neg_1) {
            ops_t9 = d_3[o_3_3];
        } else {
            ops_t9 = d_3[o_3_2];
        }
        var l_v_down_18: f64 = ops_t9;
        var l_v_diffuw_19: f64 = (l_v_don_17 - l_v_up_16);
        var l_v_diffdw_20: f64 = (l_v_down_18 - l_v_don_17);
        var l_v_limiter_21: f64 = (0.0lf);
        if (((l_v_diffuw_19 * l_v_diffdw_20) > (0.0lf))) {
            var l_auw_22: f64 = abs(l_v_diffuw_19);
            var l_adw_23: f64 = abs(l_v_diffdw_20);
            var ops_t10: f64;
            if ((l_v_diffdw_20 <= (0.0lf))) {
                ops_t10 = (-1.0lf);
            } else {
                ops_t10 = (1.0lf);
            }
            var l_wind_24: f64 = ops_t10;
            var l_lim_25: f64 = ((l_width_4 * (((((2.0lf) - l_sigma_3) * l_adw_23) / l_width_4) + ((((1.0lf) + l_sigma_3) * l_auw_22) / ops_loop.gf[6]))) / (6.0lf));
            var ops_t11: f64;
            if ((l_auw_22 < l_lim_25)) {
                ops_t11 = l_auw_22;
            } else {
                ops_t11 = l_lim_25;
            }
            var l_m_26: f64 = ops_t11;
            var ops_t12: f64;
            if ((l_adw_23 < l_m_26)) {
                ops_t12 = l_adw_23;
            } else {
                ops_t12 = l_m_26;
            }
            l_m_26 = ops_t12;
            l_v_limiter_21 = (l_wind_24 * l_m_26);
        }
        d_5[o_5_0] = ((l_v_don_17 + (((1.0lf) - l_sigma_3) * l_v_limiter_21)) * l_nf_0);
    }
}
