//! The CloverLeaf 3D method on the EDSL: datasets, stencils and the original's driver routines,
//! each a sequence of `par_loop`s. The routines live in one file per concern:
//! [`setup`] (initialise_chunk, generate_chunk), [`halo`] (update_halo), [`hydro`] (ideal_gas,
//! viscosity, calc_dt, timestep, PdV, revert, accelerate, flux_calc, reset_field,
//! field_summary), [`advection`] (the three sweeps of cell and momentum advection).

use std::ops::Range;

use ops::prelude::*;

use crate::deck::Deck;

pub mod advection;
pub mod halo;
pub mod hydro;
pub mod setup;

pub use halo::Field;
pub use ops_app_common::summary::Summary;

/// The original's small number, `1.0e-16` written as a single-precision literal and widened to
/// double: the value its comparisons (end time, sound-speed floor) use.
pub const G_SMALL: f64 = 1.0e-16_f32 as f64;
/// The original's big number, `1.0e21` as a single-precision literal widened to double.
pub const G_BIG: f64 = 1.0e21_f32 as f64;

/// Which limit set the time step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtControl {
    /// Sound speed (plus viscosity) across the cell.
    Sound,
    /// Flow through the x faces.
    XVel,
    /// Flow through the y faces.
    YVel,
    /// Flow through the z faces.
    ZVel,
    /// Volume change.
    Div,
    /// The growth limit `timestep_rise` on the previous step.
    Rise,
    /// `max_timestep`.
    Max,
}

impl DtControl {
    /// The label the step line prints.
    pub fn label(self) -> &'static str {
        match self {
            DtControl::Sound => "sound",
            DtControl::XVel => "xvel",
            DtControl::YVel => "yvel",
            DtControl::ZVel => "zvel",
            DtControl::Div => "div",
            DtControl::Rise => "rise",
            DtControl::Max => "max",
        }
    }
}

/// The outcome of the time-step calculation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepInfo {
    /// Simulated time at the start of the step.
    pub time: f64,
    /// The step about to be taken.
    pub dt: f64,
    /// What limited it.
    pub control: DtControl,
    /// The cell with the smallest stable step (1-based, like the original's output).
    pub cell: [i64; 3],
    /// That cell's centre.
    pub pos: [f64; 3],
    /// The smallest stable step of any cell.
    pub dt_cell: f64,
}

/// Which halo refreshes a step makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HaloPlan {
    /// Every refresh the original makes, of every field it names, on every side.
    Original,
    /// Only the halo points some loop reads before they are refreshed again: the same results
    /// (a test checks that the two plans give bitwise-identical summaries), about half the
    /// halo loops. See [`Clover::advection`] and [`Clover::timestep`].
    Needed,
}

/// Every dataset of the method. The mesh is uniform, so cell volumes and face areas are the
/// constants [`Clover::volume`] and [`Clover::area`] rather than datasets.
#[allow(missing_docs)]
pub struct Fields {
    pub density0: Dat<f64>,
    pub density1: Dat<f64>,
    pub energy0: Dat<f64>,
    pub energy1: Dat<f64>,
    pub pressure: Dat<f64>,
    pub viscosity: Dat<f64>,
    pub soundspeed: Dat<f64>,
    pub xvel0: Dat<f64>,
    pub xvel1: Dat<f64>,
    pub yvel0: Dat<f64>,
    pub yvel1: Dat<f64>,
    pub zvel0: Dat<f64>,
    pub zvel1: Dat<f64>,
    pub vol_flux_x: Dat<f64>,
    pub mass_flux_x: Dat<f64>,
    pub vol_flux_y: Dat<f64>,
    pub mass_flux_y: Dat<f64>,
    pub vol_flux_z: Dat<f64>,
    pub mass_flux_z: Dat<f64>,
    /// Cell-sized work array: per-cell dt, cell volumes after a momentum sweep.
    pub work_cell: Dat<f64>,
    /// Node-sized work arrays: staggered mass fluxes and masses after a sweep, momentum fluxes
    /// (the first also holds cell advection's energy fluxes).
    pub node_flux: Dat<f64>,
    pub node_mass_post: Dat<f64>,
    pub mom_flux_x: Dat<f64>,
    pub mom_flux_y: Dat<f64>,
    pub mom_flux_z: Dat<f64>,
    pub cellx: Dat<f64>,
    pub celldx: Dat<f64>,
    pub celly: Dat<f64>,
    pub celldy: Dat<f64>,
    pub cellz: Dat<f64>,
    pub celldz: Dat<f64>,
    pub vertexx: Dat<f64>,
    pub vertexdx: Dat<f64>,
    pub vertexy: Dat<f64>,
    pub vertexdy: Dat<f64>,
    pub vertexz: Dat<f64>,
    pub vertexdz: Dat<f64>,
}

/// Every stencil of the method. `axis[a]` holds the stencils along axis `a` (0 = x).
#[allow(missing_docs)]
pub struct Stencils {
    pub point: Stencil,
    /// The eight nodes of a cell, `{0, 1}^3`.
    pub box_p: Stencil,
    /// The eight cells around a node, `{-1, 0}^3`.
    pub box_m: Stencil,
    /// The six face neighbours of a cell.
    pub cross: Stencil,
    pub axis: [AxisStencils; 3],
    /// `beside[a][b]`: the faces normal to `b` of the two cells beside a face normal to `a`
    /// (cells -1 and 0 along `a`, faces 0 and +1 along `b`); the diagonal is unused.
    pub beside: [[Stencil; 3]; 3],
}

/// The stencils along one axis (named for the x axis: `0_1` is `{(0,0,0), (1,0,0)}`).
#[allow(missing_docs)]
pub struct AxisStencils {
    /// The point and its upper neighbour.
    pub p0_1: Stencil,
    /// The lower neighbour and the point.
    pub m1_0: Stencil,
    /// Four points `-2..=1` (cell advection's upwind, donor, downwind).
    pub m2_p1: Stencil,
    /// Three points `-2..=0` (cell advection on the outermost face).
    pub m2_0: Stencil,
    /// Three points `-1..=1`.
    pub m1_p1: Stencil,
    /// Four points `-1..=2` (momentum advection's upwind, donor, downwind).
    pub m1_p2: Stencil,
    /// The four nodes of a face normal to this axis (flux_calc's velocities).
    pub face: Stencil,
    /// The eight faces normal to this axis around a node (momentum advection's staggered mass
    /// flux): `0..=1` along the axis, `-1..=0` across it.
    pub node_faces: Stencil,
    /// Strided (a 1-D array along this axis read in 3-D loops): the point.
    pub s0: Stencil,
    /// Strided: the point and its upper neighbour.
    pub s0_1: Stencil,
    /// Strided: the lower neighbour and the point.
    pub sm1_0: Stencil,
    /// Strided: lower neighbour, point, upper neighbour.
    pub sm1_1: Stencil,
}

/// Per-dimension ranges `[x0..x1, y0..y1, z0..z1]`.
pub(crate) fn rg(x: (i32, i32), y: (i32, i32), z: (i32, i32)) -> [Range<i32>; 3] {
    [x.0..x.1, y.0..y.1, z.0..z.1]
}

/// The point `v` along `axis`, zero elsewhere.
pub(crate) fn along(axis: usize, v: i32) -> [i32; 3] {
    let mut p = [0; 3];
    p[axis] = v;
    p
}

/// The simulation: runtime, mesh, fields and the time-stepping state.
pub struct Clover {
    /// The runtime.
    pub ops: Ops,
    /// The 3-D block everything lives on.
    pub grid: Block,
    /// Datasets.
    pub f: Fields,
    /// Stencils.
    pub s: Stencils,
    /// The deck being run.
    pub deck: Deck,
    /// Cells per direction.
    pub n: [i32; 3],
    /// Cell widths per direction.
    pub d: [f64; 3],
    /// Simulated time.
    pub time: f64,
    /// Steps taken.
    pub step: u64,
    /// Current step size.
    pub dt: f64,
    /// Previous step size.
    pub dtold: f64,
    /// Whether this step's advection sweeps x first (then y, z); z first otherwise.
    pub advect_x: bool,
    /// Which halo refreshes to make.
    pub halos: HaloPlan,
    red_dt: Reduction<f64>,
    red_loc: Reduction<f64>,
    red_out: [Reduction<f64>; 8],
    red_sum: [Reduction<f64>; 5],
    red_count: Reduction<f64>,
}

impl Clover {
    /// Declares every dataset and stencil for `deck` on `ops`. Use [`Clover::initialise`] next.
    pub fn new(mut ops: Ops, deck: Deck) -> Result<Clover> {
        let [nx, ny, nz] = deck.cells;
        let grid = ops.block("clover", 3)?;
        let h2 = Halo::new([-2, -2, -2], [2, 2, 2]);
        let cell = [nx, ny, nz];
        let node = [nx + 1, ny + 1, nz + 1];
        let facex = [nx + 1, ny, nz];
        let facey = [nx, ny + 1, nz];
        let facez = [nx, ny, nz + 1];
        // A distributed run decomposes the block by its first fully 3-D dataset: a cell field.
        let mut dat = |name: &str, size: [usize; 3]| ops.dat::<f64, 3>(&grid, name, size, h2);
        let density0 = dat("density0", cell)?;
        let density1 = dat("density1", cell)?;
        let energy0 = dat("energy0", cell)?;
        let energy1 = dat("energy1", cell)?;
        let pressure = dat("pressure", cell)?;
        let viscosity = dat("viscosity", cell)?;
        let soundspeed = dat("soundspeed", cell)?;
        let xvel0 = dat("xvel0", node)?;
        let xvel1 = dat("xvel1", node)?;
        let yvel0 = dat("yvel0", node)?;
        let yvel1 = dat("yvel1", node)?;
        let zvel0 = dat("zvel0", node)?;
        let zvel1 = dat("zvel1", node)?;
        let vol_flux_x = dat("vol_flux_x", facex)?;
        let mass_flux_x = dat("mass_flux_x", facex)?;
        let vol_flux_y = dat("vol_flux_y", facey)?;
        let mass_flux_y = dat("mass_flux_y", facey)?;
        let vol_flux_z = dat("vol_flux_z", facez)?;
        let mass_flux_z = dat("mass_flux_z", facez)?;
        let work_cell = dat("work_cell", cell)?;
        let node_flux = dat("node_flux", node)?;
        let node_mass_post = dat("node_mass_post", node)?;
        let mom_flux_x = dat("mom_flux_x", node)?;
        let mom_flux_y = dat("mom_flux_y", node)?;
        let mom_flux_z = dat("mom_flux_z", node)?;
        // 1-D coordinate arrays, one per axis, with halos along that axis only.
        let mut line = |name: &str, axis: usize, points: usize| {
            let mut size = [1; 3];
            size[axis] = points;
            let (mut lo, mut hi) = ([0; 3], [0; 3]);
            lo[axis] = -2;
            hi[axis] = 2;
            ops.dat::<f64, 3>(&grid, name, size, Halo::new(lo, hi))
        };
        let cellx = line("cellx", 0, nx)?;
        let celldx = line("celldx", 0, nx)?;
        let vertexx = line("vertexx", 0, nx + 1)?;
        let vertexdx = line("vertexdx", 0, nx + 1)?;
        let celly = line("celly", 1, ny)?;
        let celldy = line("celldy", 1, ny)?;
        let vertexy = line("vertexy", 1, ny + 1)?;
        let vertexdy = line("vertexdy", 1, ny + 1)?;
        let cellz = line("cellz", 2, nz)?;
        let celldz = line("celldz", 2, nz)?;
        let vertexz = line("vertexz", 2, nz + 1)?;
        let vertexdz = line("vertexdz", 2, nz + 1)?;

        let s = declare_stencils(&mut ops)?;

        let red_dt = ops.reduction::<f64>("dt_min", ReduceOp::Min);
        let red_loc = ops.reduction::<f64>("dt_cell", ReduceOp::Min);
        let red_out = [
            "dt_sound", "dt_xvel", "dt_yvel", "dt_zvel", "dt_div", "dt_x_pos", "dt_y_pos",
            "dt_z_pos",
        ]
        .map(|name| ops.reduction::<f64>(name, ReduceOp::Sum));
        let red_sum =
            ["vol", "mass", "ie", "ke", "press"].map(|name| ops.reduction(name, ReduceOp::Sum));
        let red_count = ops.reduction::<f64>("state_cells", ReduceOp::Sum);

        let f = Fields {
            density0,
            density1,
            energy0,
            energy1,
            pressure,
            viscosity,
            soundspeed,
            xvel0,
            xvel1,
            yvel0,
            yvel1,
            zvel0,
            zvel1,
            vol_flux_x,
            mass_flux_x,
            vol_flux_y,
            mass_flux_y,
            vol_flux_z,
            mass_flux_z,
            work_cell,
            node_flux,
            node_mass_post,
            mom_flux_x,
            mom_flux_y,
            mom_flux_z,
            cellx,
            celldx,
            celly,
            celldy,
            cellz,
            celldz,
            vertexx,
            vertexdx,
            vertexy,
            vertexdy,
            vertexz,
            vertexdz,
        };
        let dtinit = deck.dtinit;
        let d = deck.spacing();
        Ok(Clover {
            ops,
            grid,
            f,
            s,
            n: [nx as i32, ny as i32, nz as i32],
            d,
            deck,
            time: 0.0,
            step: 0,
            dt: dtinit,
            dtold: dtinit,
            advect_x: true,
            halos: HaloPlan::Needed,
            red_dt,
            red_loc,
            red_out,
            red_sum,
            red_count,
        })
    }

    /// The volume of every cell, `dx * dy * dz` (the original's `volume` array).
    pub fn volume(&self) -> f64 {
        self.d[0] * self.d[1] * self.d[2]
    }

    /// The area of every face normal to `axis` (the original's `xarea`, `yarea`, `zarea`):
    /// `dy * dz`, `dx * dz`, `dx * dy`.
    pub fn area(&self, axis: usize) -> f64 {
        let [dx, dy, dz] = self.d;
        match axis {
            0 => dy * dz,
            1 => dx * dz,
            _ => dx * dy,
        }
    }

    /// Whether the run is over after the current step.
    pub fn finished(&self) -> bool {
        self.time + G_SMALL > self.deck.end_time || self.step >= self.deck.end_step
    }
}

/// Declares every stencil the method uses.
fn declare_stencils(ops: &mut Ops) -> Result<Stencils> {
    let point = ops.stencil("S3D_000", &[[0, 0, 0]])?;
    let corners = |v: i32| -> Vec<[i32; 3]> {
        let mut pts = Vec::with_capacity(8);
        for c in 0..8 {
            pts.push([c & 1, (c >> 1) & 1, (c >> 2) & 1].map(|b| b * v));
        }
        pts
    };
    let box_p = ops.stencil("S3D_BOX_P", &corners(1))?;
    let box_m = ops.stencil("S3D_BOX_M", &corners(-1))?;
    let cross = ops.stencil(
        "S3D_CROSS",
        &[
            [1, 0, 0],
            [-1, 0, 0],
            [0, 1, 0],
            [0, -1, 0],
            [0, 0, 1],
            [0, 0, -1],
        ],
    )?;
    let mut axes = Vec::with_capacity(3);
    for a in 0..3 {
        let name = ["X", "Y", "Z"][a];
        let pts = |vs: &[i32]| -> Vec<[i32; 3]> { vs.iter().map(|&v| along(a, v)).collect() };
        // The other two axes, in order.
        let (b, c) = match a {
            0 => (1, 2),
            1 => (0, 2),
            _ => (0, 1),
        };
        let square = |lo: i32| -> Vec<[i32; 3]> {
            let mut out = Vec::with_capacity(4);
            for (u, v) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let mut p = [0; 3];
                p[b] = lo + u;
                p[c] = lo + v;
                out.push(p);
            }
            out
        };
        let face = ops.stencil(&format!("S3D_FACE_{name}"), &square(0))?;
        // Faces normal to `a` at offsets 0 and +1 along `a`, -1 and 0 across it.
        let mut nf = Vec::with_capacity(8);
        for p in square(-1) {
            for along_a in [0, 1] {
                let mut q = p;
                q[a] = along_a;
                nf.push(q);
            }
        }
        let node_faces = ops.stencil(&format!("S3D_NODE_FACES_{name}"), &nf)?;
        let stride = along(a, 1);
        axes.push(AxisStencils {
            p0_1: ops.stencil(&format!("S3D_{name}_0_P1"), &pts(&[0, 1]))?,
            m1_0: ops.stencil(&format!("S3D_{name}_M1_0"), &pts(&[-1, 0]))?,
            m2_p1: ops.stencil(&format!("S3D_{name}_M2_P1"), &pts(&[-2, -1, 0, 1]))?,
            m2_0: ops.stencil(&format!("S3D_{name}_M2_0"), &pts(&[-2, -1, 0]))?,
            m1_p1: ops.stencil(&format!("S3D_{name}_M1_P1"), &pts(&[-1, 0, 1]))?,
            m1_p2: ops.stencil(&format!("S3D_{name}_M1_P2"), &pts(&[-1, 0, 1, 2]))?,
            face,
            node_faces,
            s0: ops.strided_stencil(&format!("S3D_STRIDE_{name}_0"), &pts(&[0]), stride)?,
            s0_1: ops.strided_stencil(&format!("S3D_STRIDE_{name}_0_P1"), &pts(&[0, 1]), stride)?,
            sm1_0: ops.strided_stencil(
                &format!("S3D_STRIDE_{name}_M1_0"),
                &pts(&[-1, 0]),
                stride,
            )?,
            sm1_1: ops.strided_stencil(
                &format!("S3D_STRIDE_{name}_M1_P1"),
                &pts(&[-1, 0, 1]),
                stride,
            )?,
        });
    }
    let mut beside = [[point; 3]; 3];
    for (a, row) in beside.iter_mut().enumerate() {
        for (b, slot) in row.iter_mut().enumerate() {
            if a == b {
                continue;
            }
            let mut pts = Vec::with_capacity(4);
            for cell in [-1, 0] {
                for face in [0, 1] {
                    let mut p = along(a, cell);
                    p[b] = face;
                    pts.push(p);
                }
            }
            *slot = ops.stencil(&format!("S3D_BESIDE_{a}_{b}"), &pts)?;
        }
    }
    let axis: [AxisStencils; 3] = match axes.try_into() {
        Ok(a) => a,
        Err(_) => unreachable!("three axes"),
    };
    Ok(Stencils {
        point,
        beside,
        box_p,
        box_m,
        cross,
        axis,
    })
}
