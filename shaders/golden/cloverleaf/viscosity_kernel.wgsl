// kernel viscosity_kernel
@group(0) @binding(1) var<storage, read> d_0: array<f64>;
@group(0) @binding(2) var<storage, read> d_1: array<f64>;
@group(0) @binding(3) var<storage, read> d_2: array<f64>;
@group(0) @binding(4) var<storage, read> d_3: array<f64>;
@group(0) @binding(5) var<storage, read_write> d_4: array<f64>;
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
        let o_0_0 = p_0 + ops_d0.m0;
        let o_0_1 = p_0 + ops_d0.m0 + ops_d0.m1;
        let o_0_2 = p_0;
        let o_0_3 = p_0 + ops_d0.m1;
        let ops_d1 = ops_loop.dats[1];
        let p_1 = ops_d1.origin + ops_x * ops_d1.i0 + ops_y * ops_d1.i1 + ops_z * ops_d1.i2;
        let o_1_0 = p_1 + ops_d1.m1;
        let o_1_1 = p_1 + ops_d1.m0 + ops_d1.m1;
        let o_1_2 = p_1;
        let o_1_3 = p_1 + ops_d1.m0;
        let ops_d2 = ops_loop.dats[2];
        let p_2 = ops_d2.origin + ops_x * ops_d2.i0 + ops_y * ops_d2.i1 + ops_z * ops_d2.i2;
        let o_2_0 = p_2 + ops_d2.m0;
        let o_2_1 = p_2 - ops_d2.m0;
        let o_2_2 = p_2 + ops_d2.m1;
        let o_2_3 = p_2 - ops_d2.m1;
        let ops_d3 = ops_loop.dats[3];
        let p_3 = ops_d3.origin + ops_x * ops_d3.i0 + ops_y * ops_d3.i1 + ops_z * ops_d3.i2;
        let o_3_0 = p_3;
        let ops_d4 = ops_loop.dats[4];
        let p_4 = ops_d4.origin + ops_x * ops_d4.i0 + ops_y * ops_d4.i1 + ops_z * ops_d4.i2;
        let o_4_0 = p_4;
        var l_ugrad_0: f64 = ((d_0[o_0_0] + d_0[o_0_1]) - (d_0[o_0_2] + d_0[o_0_3]));
        var l_vgrad_1: f64 = ((d_1[o_1_0] + d_1[o_1_1]) - (d_1[o_1_2] + d_1[o_1_3]));
        var l_div_2: f64 = ((ops_loop.gf[5] * l_ugrad_0) + (ops_loop.gf[6] * l_vgrad_1));
        var l_strain2_3: f64 = ((((0.5lf) * (((d_0[o_0_3] + d_0[o_0_1]) - d_0[o_0_2]) - d_0[o_0_0])) / ops_loop.gf[6]) + (((0.5lf) * (((d_1[o_1_3] + d_1[o_1_1]) - d_1[o_1_2]) - d_1[o_1_0])) / ops_loop.gf[5]));
        var l_pgradx_4: f64 = ((d_2[o_2_0] - d_2[o_2_1]) / (ops_loop.gf[5] + ops_loop.gf[5]));
        var l_pgrady_5: f64 = ((d_2[o_2_2] - d_2[o_2_3]) / (ops_loop.gf[6] + ops_loop.gf[6]));
        var l_pgradx2_6: f64 = (l_pgradx_4 * l_pgradx_4);
        var l_pgrady2_7: f64 = (l_pgrady_5 * l_pgrady_5);
        var l_psum_8: f64 = (l_pgradx2_6 + l_pgrady2_7);
        var ops_t0: f64;
        if ((l_psum_8 > (1e-16lf))) {
            ops_t0 = l_psum_8;
        } else {
            ops_t0 = (1e-16lf);
        }
        var l_pden_9: f64 = ops_t0;
        var l_limiter_10: f64 = (((((((0.5lf) * l_ugrad_0) / ops_loop.gf[5]) * l_pgradx2_6) + ((((0.5lf) * l_vgrad_1) / ops_loop.gf[6]) * l_pgrady2_7)) + ((l_strain2_3 * l_pgradx_4) * l_pgrady_5)) / l_pden_9);
        if (((l_limiter_10 > (0.0lf)) || (l_div_2 >= (0.0lf)))) {
            d_4[o_4_0] = (0.0lf);
        } else {
            var l_ax_11: f64 = abs(l_pgradx_4);
            var l_ay_12: f64 = abs(l_pgrady_5);
            var ops_t1: f64;
            if ((l_ax_11 > (1e-16lf))) {
                ops_t1 = l_ax_11;
            } else {
                ops_t1 = (1e-16lf);
            }
            var l_mx_13: f64 = ops_t1;
            var ops_t2: f64;
            if ((l_ay_12 > (1e-16lf))) {
                ops_t2 = l_ay_12;
            } else {
                ops_t2 = (1e-16lf);
            }
            var l_my_14: f64 = ops_t2;
            var ops_t3: f64;
            if ((l_pgradx_4 < (0.0lf))) {
                ops_t3 = (-l_mx_13);
            } else {
                ops_t3 = l_mx_13;
            }
            l_pgradx_4 = ops_t3;
            var ops_t4: f64;
            if ((l_pgrady_5 < (0.0lf))) {
                ops_t4 = (-l_my_14);
            } else {
                ops_t4 = l_my_14;
            }
            l_pgrady_5 = ops_t4;
            var l_pgrad_15: f64 = sqrt(((l_pgradx_4 * l_pgradx_4) + (l_pgrady_5 * l_pgrady_5)));
            var l_xgrad_16: f64 = abs(((ops_loop.gf[5] * l_pgrad_15) / l_pgradx_4));
            var l_ygrad_17: f64 = abs(((ops_loop.gf[6] * l_pgrad_15) / l_pgrady_5));
            var ops_t5: f64;
            if ((l_xgrad_16 < l_ygrad_17)) {
                ops_t5 = l_xgrad_16;
            } else {
                ops_t5 = l_ygrad_17;
            }
            var l_grad_18: f64 = ops_t5;
            var l_grad2_19: f64 = (l_grad_18 * l_grad_18);
            d_4[o_4_0] = (((((2.0lf) * d_3[o_3_0]) * l_grad2_19) * l_limiter_10) * l_limiter_10);
        }
    }
}
