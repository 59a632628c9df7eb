// kernel accelerate
@group(0) @binding(1) var<storage, read> d_0: array<f64>;
@group(0) @binding(2) var<storage, read> d_1: array<f64>;
@group(0) @binding(3) var<storage, read> d_2: array<f64>;
@group(0) @binding(4) var<storage, read_write> d_3: array<f64>;
@group(0) @binding(5) var<storage, read> d_4: array<f64>;
@group(0) @binding(6) var<storage, read> d_5: array<f64>;
@group(0) @binding(7) var<storage, read> d_6: array<f64>;
@group(0) @binding(8) var<storage, read_write> d_7: array<f64>;
@group(0) @binding(9) var<storage, read> d_8: array<f64>;
@group(0) @binding(10) var<storage, read> d_9: array<f64>;
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
        let o_0_0 = p_0 - ops_d0.m0 - ops_d0.m1;
        let o_0_1 = p_0 - ops_d0.m1;
        let o_0_2 = p_0;
        let o_0_3 = p_0 - ops_d0.m0;
        let ops_d1 = ops_loop.dats[1];
        let p_1 = ops_d1.origin + ops_x * ops_d1.i0 + ops_y * ops_d1.i1 + ops_z * ops_d1.i2;
        let o_1_0 = p_1 - ops_d1.m0 - ops_d1.m1;
        let o_1_1 = p_1 - ops_d1.m1;
        let o_1_2 = p_1;
        let o_1_3 = p_1 - ops_d1.m0;
        let ops_d2 = ops_loop.dats[2];
        let p_2 = ops_d2.origin + ops_x * ops_d2.i0 + ops_y * ops_d2.i1 + ops_z * ops_d2.i2;
        let o_2_0 = p_2;
        let ops_d3 = ops_loop.dats[3];
        let p_3 = ops_d3.origin + ops_x * ops_d3.i0 + ops_y * ops_d3.i1 + ops_z * ops_d3.i2;
        let o_3_0 = p_3;
        let ops_d4 = ops_loop.dats[4];
        let p_4 = ops_d4.origin + ops_x * ops_d4.i0 + ops_y * ops_d4.i1 + ops_z * ops_d4.i2;
        let o_4_0 = p_4;
        let o_4_1 = p_4 - ops_d4.m1;
        let ops_d5 = ops_loop.dats[5];
        let p_5 = ops_d5.origin + ops_x * ops_d5.i0 + ops_y * ops_d5.i1 + ops_z * ops_d5.i2;
        let o_5_0 = p_5;
        let o_5_1 = p_5 - ops_d5.m0;
        let o_5_2 = p_5 - ops_d5.m1;
        let o_5_3 = p_5 - ops_d5.m0 - ops_d5.m1;
        let ops_d6 = ops_loop.dats[6];
        let p_6 = ops_d6.origin + ops_x * ops_d6.i0 + ops_y * ops_d6.i1 + ops_z * ops_d6.i2;
        let o_6_0 = p_6;
        let ops_d7 = ops_loop.dats[7];
        let p_7 = ops_d7.origin + ops_x * ops_d7.i0 + ops_y * ops_d7.i1 + ops_z * ops_d7.i2;
        let o_7_0 = p_7;
        let ops_d8 = ops_loop.dats[8];
        let p_8 = ops_d8.origin + ops_x * ops_d8.i0 + ops_y * ops_d8.i1 + ops_z * ops_d8.i2;
        let o_8_0 = p_8;
        let o_8_1 = p_8 - ops_d8.m0;
        let ops_d9 = ops_loop.dats[9];
        let p_9 = ops_d9.origin + ops_x * ops_d9.i0 + ops_y * ops_d9.i1 + ops_z * ops_d9.i2;
        let o_9_0 = p_9;
        let o_9_1 = p_9 - ops_d9.m0;
        let o_9_2 = p_9 - ops_d9.m1;
        let o_9_3 = p_9 - ops_d9.m0 - ops_d9.m1;
        var l_halfdt_0: f64 = ((0.5lf) * ops_loop.gf[10]);
        var l_stepbymass_1: f64 = (l_halfdt_0 / (((((d_0[o_0_0] * d_1[o_1_0]) + (d_0[o_0_1] * d_1[o_1_1])) + (d_0[o_0_2] * d_1[o_1_2])) + (d_0[o_0_3] * d_1[o_1_3])) * (0.25lf)));
        var l_xv_2: f64 = (d_2[o_2_0] - (l_stepbymass_1 * ((d_4[o_4_0] * (d_5[o_5_0] - d_5[o_5_1])) + (d_4[o_4_1] * (d_5[o_5_2] - d_5[o_5_3])))));
        var l_yv_3: f64 = (d_6[o_6_0] - (l_stepbymass_1 * ((d_8[o_8_0] * (d_5[o_5_0] - d_5[o_5_2])) + (d_8[o_8_1] * (d_5[o_5_1] - d_5[o_5_3])))));
        l_xv_2 = (l_xv_2 - (l_stepbymass_1 * ((d_4[o_4_0] * (d_9[o_9_0] - d_9[o_9_1])) + (d_4[o_4_1] * (d_9[o_9_2] - d_9[o_9_3])))));
        l_yv_3 = (l_yv_3 - (l_stepbymass_1 * ((d_8[o_8_0] * (d_9[o_9_0] - d_9[o_9_2])) + (d_8[o_8_1] * (d_9[o_9_1] - d_9[o_9_3])))));
        d_3[o_3_0] = l_xv_2;
        d_7[o_7_0] = l_yv_3;
    }
}
