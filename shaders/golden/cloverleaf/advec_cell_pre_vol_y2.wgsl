// kernel advec_cell_pre_vol_y2
@group(0) @binding(1) var<storage, read> d_0: array<f64>;
@group(0) @binding(2) var<storage, read> d_1: array<f64>;
@group(0) @binding(3) var<storage, read_write> d_2: array<f64>;
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
        let o_1_0 = p_1 + ops_d1.m1;
        let o_1_1 = p_1;
        let ops_d2 = ops_loop.dats[2];
        let p_2 = ops_d2.origin + ops_x * ops_d2.i0 + ops_y * ops_d2.i1 + ops_z * ops_d2.i2;
        let o_2_0 = p_2;
        d_2[o_2_0] = ((d_0[o_0_0] + d_1[o_1_0]) - d_1[o_1_1]);
    }
}
