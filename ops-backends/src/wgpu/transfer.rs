//! Moving boxes of points between host and device: the geometry of a box in a dataset's buffer,
//! and the pack/unpack shaders (`shaders/pack.wgsl`) for boxes that are not one contiguous run.

use ops_core::{DatLayout, IterRange, Result};

use super::backend_err;
use super::device::Gpu;
use super::kernels::{compile_module, validate};

/// The pack/unpack shader.
pub const PACK_WGSL: &str = include_str!("../../../shaders/pack.wgsl");

/// A box of a dataset, in 32-bit words (`Box` in `shaders/pack.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct BoxDesc {
    /// Word of the box's first point.
    pub origin: u32,
    /// Words per row of the box.
    pub row: u32,
    pub ny: u32,
    pub nz: u32,
    pub stride_y: u32,
    pub stride_z: u32,
    /// Words in the box.
    pub total: u32,
    /// 1: row mode (grid ceil(row / 64) x ny x nz), 0: linear mode; set by [`BoxDesc::grid`].
    pub rows: u32,
}

impl BoxDesc {
    /// The geometry of `range` (non-empty, inside the layout) of a dataset laid out as `layout`.
    pub fn new(layout: &DatLayout, range: &IterRange) -> Result<BoxDesc> {
        let w = (layout.ty.size() / 4) as u64;
        let mem = layout.mem();
        let (lo, hi) = (range.lo(), range.hi());
        let first = layout.index(lo, 0) as u64;
        let n = |d: usize| (hi[d] - lo[d]) as u64;
        let row = n(0) * layout.components as u64 * w;
        let total = row * n(1) * n(2);
        let big = |v: u64| -> Result<u32> {
            u32::try_from(v).map_err(|_| {
                backend_err(format!(
                    "box {range} of a dataset of {} bytes is too large for the wgpu backend's \
                     32-bit transfer indices",
                    layout.bytes()
                ))
            })
        };
        Ok(BoxDesc {
            origin: big(first * w)?,
            row: big(row)?,
            ny: big(n(1))?,
            nz: big(n(2))?,
            stride_y: big(mem[1] as u64 * w)?,
            stride_z: big(mem[2] as u64 * w)?,
            total: big(total)?,
            rows: 0,
        })
    }

    /// Chooses the pack shader's mode for a device allowing `max` workgroups per dimension and
    /// returns the dispatch grid; `None` when even the linear mode's 2-D grid is too small.
    /// Rows of at least 32 words use row mode; shorter ones (a column, a narrow strip) linear
    /// mode, which keeps every lane busy.
    pub fn grid(&mut self, max: u32) -> Option<(u32, u32, u32)> {
        let max = max as u64;
        let gx = (self.row as u64).div_ceil(64);
        if self.row >= 32 && gx <= max && self.ny as u64 <= max && self.nz as u64 <= max {
            self.rows = 1;
            return Some((gx as u32, self.ny, self.nz));
        }
        self.rows = 0;
        let groups = (self.total as u64).div_ceil(64);
        let y = groups.div_ceil(max);
        if y > max {
            return None;
        }
        Some((groups.min(max) as u32, y as u32, 1))
    }

    /// Byte offset of the box's first point in the dataset's buffer.
    pub fn offset_bytes(&self) -> u64 {
        self.origin as u64 * 4
    }

    /// Bytes of the packed box.
    pub fn bytes(&self) -> u64 {
        self.total as u64 * 4
    }

    /// Each row of the box as (byte offset in the packed box, byte offset in the dataset's
    /// buffer, bytes): copies that move a box without the pack shader, for datasets too large
    /// to bind whole.
    pub fn rows(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        let (ny, row) = (self.ny as u64, self.row as u64);
        (0..self.nz as u64).flat_map(move |z| {
            (0..ny).map(move |y| {
                let packed = (z * ny + y) * row * 4;
                let dat =
                    (self.origin as u64 + z * self.stride_z as u64 + y * self.stride_y as u64) * 4;
                (packed, dat, row * 4)
            })
        })
    }

    /// True when the box is one contiguous run of the buffer (whole rows and planes, or a
    /// single row), so a plain buffer copy moves it.
    pub fn contiguous(&self) -> bool {
        let last = (self.nz as u64 - 1) * self.stride_z as u64
            + (self.ny as u64 - 1) * self.stride_y as u64
            + self.row as u64;
        last == self.total as u64
    }
}

/// The pack (device box -> packed buffer) and unpack (packed -> box) pipelines.
pub(crate) struct Packer {
    pub pack: ::wgpu::ComputePipeline,
    pub unpack: ::wgpu::ComputePipeline,
    pub layout: ::wgpu::BindGroupLayout,
}

impl Packer {
    pub fn new(gpu: &Gpu) -> Result<Packer> {
        validate("ops_pack", PACK_WGSL).map_err(backend_err)?;
        let entry = |binding, ty| ::wgpu::BindGroupLayoutEntry {
            binding,
            visibility: ::wgpu::ShaderStages::COMPUTE,
            ty: ::wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let rw = ::wgpu::BufferBindingType::Storage { read_only: false };
        let layout = gpu
            .device
            .create_bind_group_layout(&::wgpu::BindGroupLayoutDescriptor {
                label: Some("ops_pack"),
                entries: &[
                    entry(0, ::wgpu::BufferBindingType::Uniform),
                    entry(1, rw),
                    entry(2, rw),
                ],
            });
        let pack =
            compile_module(gpu, "ops_pack", PACK_WGSL, "pack", &layout).map_err(backend_err)?;
        let unpack =
            compile_module(gpu, "ops_unpack", PACK_WGSL, "unpack", &layout).map_err(backend_err)?;
        Ok(Packer {
            pack,
            unpack,
            layout,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ops_core::kernel::ElemType;

    fn layout(ty: ElemType, comps: usize) -> DatLayout {
        DatLayout {
            ty,
            dims: 3,
            components: comps,
            size: [4, 3, 2],
            base: [0, 0, 0],
            neg: [-1, -1, 0],
            pos: [1, 1, 0],
        }
    }

    fn r(lo: [i32; 3], hi: [i32; 3]) -> IterRange {
        IterRange::new(3, lo, hi).unwrap()
    }

    #[test]
    fn box_geometry_in_words() {
        let l = layout(ElemType::F64, 2);
        // 6 x 5 x 2 points stored, 2 components of 2 words: rows of 24 words.
        let b = BoxDesc::new(&l, &r([0, 0, 0], [2, 1, 1])).unwrap();
        assert_eq!(b.origin, ((6 + 1) * 2 * 2) as u32);
        assert_eq!(
            (b.row, b.ny, b.nz, b.stride_y, b.stride_z),
            (8, 1, 1, 24, 120)
        );
        assert_eq!(b.total, 8);
        assert!(b.contiguous());
        let whole = BoxDesc::new(&l, &l.extent()).unwrap();
        assert!(whole.contiguous());
        assert_eq!(whole.bytes() as usize, l.bytes());
        let rows = BoxDesc::new(&l, &r([-1, 0, 0], [5, 2, 2])).unwrap();
        assert!(!rows.contiguous());
        let planes = BoxDesc::new(&l, &r([-1, -1, 1], [5, 4, 2])).unwrap();
        assert!(planes.contiguous());
        let mut sub = BoxDesc::new(&l, &r([0, 0, 0], [3, 2, 1])).unwrap();
        assert!(!sub.contiguous());
        // 12-word rows: linear mode, 24 words in one workgroup.
        assert_eq!(sub.grid(65535), Some((1, 1, 1)));
        assert_eq!(sub.rows, 0);
        // 36-word rows (three components): row mode.
        let l3 = layout(ElemType::F64, 3);
        let mut wide = BoxDesc::new(&l3, &r([-1, -1, 0], [5, 4, 2])).unwrap();
        assert_eq!(wide.grid(65535), Some((1, 5, 2)));
        assert_eq!(wide.rows, 1);
        // Beyond the limits: linear mode on a 2-D grid (360 words: 6 workgroups).
        assert_eq!(wide.grid(4), Some((4, 2, 1)));
        assert_eq!(wide.rows, 0);
        assert_eq!(wide.grid(1), None);
        // Row copies: the 3 x 2 box of `sub` is two rows of 12 words, 24 words apart.
        let rows: Vec<_> = sub.rows().collect();
        assert_eq!(
            rows,
            [
                (0, sub.offset_bytes(), 48),
                (48, sub.offset_bytes() + 96, 48)
            ]
        );
    }
}
