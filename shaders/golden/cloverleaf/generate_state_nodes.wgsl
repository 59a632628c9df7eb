// kernel generate_state_nodes
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
        let o_0_0 = p_0 + ops_d0.m0;
        let o_0_1 = p_0;
        let o_0_2 = p_0 - ops_d0.m0;
        let ops_d1 = ops_loop.dats[1];
        let p_1 = ops_d1.origin + ops_x * ops_d1.i0 + ops_y * ops_d1.i1 + ops_z * ops_d1.i2;
        let o_1_0 = p_1 + ops_d1.m1;
        let o_1_1 = p_1;
        let o_1_2 = p_1 - ops_d1.m1;
        let ops_d2 = ops_loop.dats[2];
        let p_2 = ops_d2.origin + ops_x * ops_d2.i0 + ops_y * ops_d2.i1 + ops_z * ops_d2.i2;
        let o_2_0 = p_2 - ops_d2.m0;
        let o_2_1 = p_2;
        let ops_d3 = ops_loop.dats[3];
        let p_3 = ops_d3.origin + ops_x * ops_d3.i0 + ops_y * ops_d3.i1 + ops_z * ops_d3.i2;
        let o_3_0 = p_3 - ops_d3.m1;
        let o_3_1 = p_3;
        let ops_d4 = ops_loop.dats[4];
        let p_4 = ops_d4.origin + ops_x * ops_d4.i0 + ops_y * ops_d4.i1 + ops_z * ops_d4.i2;
        let o_4_0 = p_4;
        let ops_d5 = ops_loop.dats[5];
        let p_5 = ops_d5.origin + ops_x * ops_d5.i0 + ops_y * ops_d5.i1 + ops_z * ops_d5.i2;
        let o_5_0 = p_5;
        var l_inside_0: bool = false;
        if ((ops_loop.gi[6] == (1i))) {
            var l_in_x_1: bool = (((d_0[o_0_0] >= ops_loop.gf[7]) && (d_0[o_0_1] < ops_loop.gf[8])) || ((d_0[o_0_1] >= ops_loop.gf[7]) && (d_0[o_0_2] < ops_loop.gf[8])));
            var l_in_y_2: bool = (((d_1[o_1_0] >= ops_loop.gf[9]) && (d_1[o_1_1] < ops_loop.gf[10])) || ((d_1[o_1_1] >= ops_loop.gf[9]) && (d_1[o_1_2] < ops_loop.gf[10])));
            if ((l_in_x_1 && l_in_y_2)) {
                l_inside_0 = true;
            }
        } else {
            if ((ops_loop.gi[6] == (2i))) {
                var l_ax_3: f64 = ((d_2[o_2_0] - ops_loop.gf[7]) * (d_2[o_2_0] - ops_loop.gf[7]));
                var l_bx_4: f64 = ((d_2[o_2_1] - ops_loop.gf[7]) * (d_2[o_2_1] - ops_loop.gf[7]));
                var l_ay_5: f64 = ((d_3[o_3_0] - ops_loop.gf[9]) * (d_3[o_3_0] - ops_loop.gf[9]));
                var l_by_6: f64 = ((d_3[o_3_1] - ops_loop.gf[9]) * (d_3[o_3_1] - ops_loop.gf[9]));
                if (((((sqrt((l_ax_3 + l_ay_5)) <= ops_loop.gf[11]) || (sqrt((l_bx_4 + l_ay_5)) <= ops_loop.gf[11])) || (sqrt((l_ax_3 + l_by_6)) <= ops_loop.gf[11])) || (sqrt((l_bx_4 + l_by_6)) <= ops_loop.gf[11]))) {
                    l_inside_0 = true;
                }
            } else {
                if ((ops_loop.gi[6] == (3i))) {
                    var l_in_x_7: bool = ((d_0[o_0_2] == ops_loop.gf[7]) || (d_0[o_0_1] == ops_loop.gf[7]));
                    var l_in_y_8: bool = ((d_1[o_1_2] == ops_loop.gf[9]) || (d_1[o_1_1] == ops_loop.gf[9]));
                    if ((l_in_x_7 && l_in_y_8)) {
                        l_inside_0 = true;
                    }
                }
            }
        }
        if (l_inside_0) {
            d_4[o_4_0] = ops_loop.gf[12];
            d_5[o_5_0] = ops_loop.gf[13];
        }
    }
}
