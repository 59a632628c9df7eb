// Copies a box of a dataset between its device buffer and a packed buffer (the box's points
// only, components interleaved, x fastest), for downloads (`pack`) and uploads (`unpack`) of
// sub-boxes that are not one contiguous run of the dataset's storage.
//
// Type-agnostic: everything is counted in 32-bit words (an f64 is two). A box is `ny * nz` rows
// of `row` words; row (y, z) starts at word `origin + y * stride_y + z * stride_z` of the
// dataset, and at word `(z * ny + y) * row` of the packed buffer. One invocation moves one word.
// Row mode (`rows` = 1; dispatch ceil(row / 64) x ny x nz workgroups): workgroup (i, y, z) moves
// words 64 i .. 64 i + 63 of row (y, z), with no integer division. Linear mode (`rows` = 0, for
// boxes beyond the dispatch limits): the packed words in order, 64 per workgroup, 2-D grid.

struct Box {
    origin: u32,
    row: u32,
    ny: u32,
    nz: u32,
    stride_y: u32,
    stride_z: u32,
    total: u32,
    rows: u32,
}

@group(0) @binding(0) var<uniform> bx: Box;
@group(0) @binding(1) var<storage, read_write> dat: array<u32>;
@group(0) @binding(2) var<storage, read_write> packed: array<u32>;

// (packed word, dataset word, inside) of an invocation.
fn words(gid: vec3<u32>, lid: u32, wid: vec3<u32>, nwg: vec3<u32>) -> vec3<u32> {
    if (bx.rows != 0u) {
        let w = wid.x * 64u + lid;
        let r = wid.z * bx.ny + wid.y;
        return vec3<u32>(r * bx.row + w,
                         bx.origin + wid.z * bx.stride_z + wid.y * bx.stride_y + w,
                         select(0u, 1u, w < bx.row));
    }
    let i = gid.x + gid.y * nwg.x * 64u;
    let r = i / bx.row;
    let y = r % bx.ny;
    let z = r / bx.ny;
    return vec3<u32>(i, bx.origin + z * bx.stride_z + y * bx.stride_y + (i - r * bx.row),
                     select(0u, 1u, i < bx.total));
}

@compute @workgroup_size(64)
fn pack(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let w = words(gid, lid, wid, nwg);
    if (w.z != 0u) {
        packed[w.x] = dat[w.y];
    }
}

@compute @workgroup_size(64)
fn unpack(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
          @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let w = words(gid, lid, wid, nwg);
    if (w.z != 0u) {
        dat[w.y] = packed[w.x];
    }
}
