//! The CloverLeaf method on the EDSL: datasets, stencils and the driver routines of the original
//! (initialise_chunk, generate_chunk, ideal_gas, update_halo, viscosity, calc_dt, PdV, revert,
//! accelerate, flux_calc, advection, reset_field, field_summary), each a sequence of `par_loop`s.

use std::ops::Range;

use ops::prelude::*;

use crate::deck::{Deck, Geometry};
use crate::kernels::*;

/// The original's small and big numbers.
pub const G_SMALL: f64 = 1.0e-16;
/// See [`G_SMALL`].
pub const G_BIG: f64 = 1.0e21;

pub use ops_app_common::summary::Summary;

/// Which limit set the time step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtControl {
    /// Sound speed (plus viscosity) across the cell.
    Sound,
    /// Flow through the x faces.
    XVel,
    /// Flow through the y faces.
    YVel,
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
    pub cell: (i64, i64),
    /// That cell's centre.
    pub pos: (f64, f64),
    /// The smallest stable step of any cell.
    pub dt_cell: f64,
}

/// The smallest stable step over the cells, where it is and which limit sets it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DtCell {
    /// The step.
    pub dt: f64,
    /// Which of the cell's limits is smallest.
    pub control: DtControl,
    /// The cell (1-based).
    pub cell: (i64, i64),
    /// Its centre.
    pub pos: (f64, f64),
}

/// The fields of the original, by name, for halo updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// density0
    Density0,
    /// density1
    Density1,
    /// energy0
    Energy0,
    /// energy1
    Energy1,
    /// pressure
    Pressure,
    /// viscosity
    Viscosity,
    /// soundspeed
    Soundspeed,
    /// xvel0
    XVel0,
    /// xvel1
    XVel1,
    /// yvel0
    YVel0,
    /// yvel1
    YVel1,
    /// vol_flux_x
    VolFluxX,
    /// mass_flux_x
    MassFluxX,
    /// vol_flux_y
    VolFluxY,
    /// mass_flux_y
    MassFluxY,
}

/// How a field is staggered, which fixes its reflection rule at the boundaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stagger {
    /// Cell-centred.
    Cell,
    /// Node, x component of a vector (flips sign across x boundaries).
    NodeX,
    /// Node, y component (flips sign across y boundaries).
    NodeY,
    /// x faces (x flux: flips sign across x boundaries).
    FaceX,
    /// y faces (y flux: flips sign across y boundaries).
    FaceY,
}

/// Every dataset of the method.
#[allow(missing_docs)]
pub struct Fields {
    pub density0: Dat<f64>,
    pub density1: Dat<f64>,
    pub energy0: Dat<f64>,
    pub energy1: Dat<f64>,
    pub pressure: Dat<f64>,
    pub viscosity: Dat<f64>,
    pub soundspeed: Dat<f64>,
    pub volume: Dat<f64>,
    pub xvel0: Dat<f64>,
    pub xvel1: Dat<f64>,
    pub yvel0: Dat<f64>,
    pub yvel1: Dat<f64>,
    pub vol_flux_x: Dat<f64>,
    pub mass_flux_x: Dat<f64>,
    pub xarea: Dat<f64>,
    pub vol_flux_y: Dat<f64>,
    pub mass_flux_y: Dat<f64>,
    pub yarea: Dat<f64>,
    /// Work arrays (node-sized): per-cell dt, pre/post volumes, fluxes, nodal masses.
    pub work1: Dat<f64>,
    pub work2: Dat<f64>,
    pub work3: Dat<f64>,
    pub work4: Dat<f64>,
    pub work5: Dat<f64>,
    pub work6: Dat<f64>,
    pub cellx: Dat<f64>,
    pub celldx: Dat<f64>,
    pub celly: Dat<f64>,
    pub celldy: Dat<f64>,
    pub vertexx: Dat<f64>,
    pub vertexdx: Dat<f64>,
    pub vertexy: Dat<f64>,
    pub vertexdy: Dat<f64>,
}

/// Every stencil of the method.
#[allow(missing_docs)]
pub struct Stencils {
    pub p00: Stencil,
    pub p00_p10: Stencil,
    pub p00_0p1: Stencil,
    pub p00_m10: Stencil,
    pub p00_0m1: Stencil,
    pub box_p: Stencil,
    pub box_m: Stencil,
    pub cross: Stencil,
    pub x_m2_p1: Stencil,
    pub y_m2_p1: Stencil,
    pub x_m1_p2: Stencil,
    pub y_m1_p2: Stencil,
    pub mfx_node: Stencil,
    pub mfy_node: Stencil,
    // Strided: 1-D x arrays read in 2-D loops.
    pub sx_00: Stencil,
    pub sx_00_p10: Stencil,
    pub sx_m10_00: Stencil,
    pub sx_m10_p10: Stencil,
    // Strided: 1-D y arrays read in 2-D loops.
    pub sy_00: Stencil,
    pub sy_00_0p1: Stencil,
    pub sy_0m1_00: Stencil,
    pub sy_0m1_0p1: Stencil,
    // Halo reflections.
}

/// Per-dimension ranges `x0..x1`, `y0..y1`.
fn rg(x0: i32, x1: i32, y0: i32, y1: i32) -> [Range<i32>; 2] {
    [x0..x1, y0..y1]
}

/// The simulation: runtime, mesh, fields and the time-stepping state.
pub struct Clover {
    /// The runtime.
    pub ops: Ops,
    /// The 2-D block everything lives on.
    pub grid: Block,
    /// Datasets.
    pub f: Fields,
    /// Stencils.
    pub s: Stencils,
    /// The deck being run.
    pub deck: Deck,
    /// Cells in x.
    pub nx: i32,
    /// Cells in y.
    pub ny: i32,
    /// Simulated time.
    pub time: f64,
    /// Steps taken.
    pub step: u64,
    /// Current step size.
    pub dt: f64,
    /// Previous step size.
    pub dtold: f64,
    /// Whether this step's advection sweeps x first.
    pub advect_x: bool,
    red_dt: Reduction<f64>,
    red_loc: Reduction<f64>,
    red_out: [Reduction<f64>; 6],
    red_sum: [Reduction<f64>; 5],
    red_count: Reduction<f64>,
}

impl Clover {
    /// Declares every dataset and stencil for `deck` on `ops`. Use [`Clover::initialise`] next.
    pub fn new(mut ops: Ops, deck: Deck) -> Result<Clover> {
        let nx = deck.x_cells;
        let ny = deck.y_cells;
        let grid = ops.block("clover", 2)?;
        let h2 = Halo::new([-2, -2], [2, 2]);
        let cell = [nx, ny];
        let node = [nx + 1, ny + 1];
        let facex = [nx + 1, ny];
        let facey = [nx, ny + 1];
        let mut dat = |name: &str, size: [usize; 2]| ops.dat::<f64, 2>(&grid, name, size, h2);
        let density0 = dat("density0", cell)?;
        let density1 = dat("density1", cell)?;
        let energy0 = dat("energy0", cell)?;
        let energy1 = dat("energy1", cell)?;
        let pressure = dat("pressure", cell)?;
        let viscosity = dat("viscosity", cell)?;
        let soundspeed = dat("soundspeed", cell)?;
        let volume = dat("volume", cell)?;
        let xvel0 = dat("xvel0", node)?;
        let xvel1 = dat("xvel1", node)?;
        let yvel0 = dat("yvel0", node)?;
        let yvel1 = dat("yvel1", node)?;
        let vol_flux_x = dat("vol_flux_x", facex)?;
        let mass_flux_x = dat("mass_flux_x", facex)?;
        let xarea = dat("xarea", facex)?;
        let vol_flux_y = dat("vol_flux_y", facey)?;
        let mass_flux_y = dat("mass_flux_y", facey)?;
        let yarea = dat("yarea", facey)?;
        let work1 = dat("work_array1", node)?;
        let work2 = dat("work_array2", node)?;
        let work3 = dat("work_array3", node)?;
        let work4 = dat("work_array4", node)?;
        let work5 = dat("work_array5", node)?;
        let work6 = dat("work_array6", node)?;
        let hx = Halo::new([-2, 0], [2, 0]);
        let hy = Halo::new([0, -2], [0, 2]);
        let cellx = ops.dat::<f64, 2>(&grid, "cellx", [nx, 1], hx)?;
        let celldx = ops.dat::<f64, 2>(&grid, "celldx", [nx, 1], hx)?;
        let vertexx = ops.dat::<f64, 2>(&grid, "vertexx", [nx + 1, 1], hx)?;
        let vertexdx = ops.dat::<f64, 2>(&grid, "vertexdx", [nx + 1, 1], hx)?;
        let celly = ops.dat::<f64, 2>(&grid, "celly", [1, ny], hy)?;
        let celldy = ops.dat::<f64, 2>(&grid, "celldy", [1, ny], hy)?;
        let vertexy = ops.dat::<f64, 2>(&grid, "vertexy", [1, ny + 1], hy)?;
        let vertexdy = ops.dat::<f64, 2>(&grid, "vertexdy", [1, ny + 1], hy)?;

        let mut st = |name: &str, pts: &[[i32; 2]]| ops.stencil(name, pts);
        let p00 = st("S2D_00", &[[0, 0]])?;
        let p00_p10 = st("S2D_00_P10", &[[0, 0], [1, 0]])?;
        let p00_0p1 = st("S2D_00_0P1", &[[0, 0], [0, 1]])?;
        let p00_m10 = st("S2D_00_M10", &[[0, 0], [-1, 0]])?;
        let p00_0m1 = st("S2D_00_0M1", &[[0, 0], [0, -1]])?;
        let box_p = st("S2D_00_P10_0P1_P1P1", &[[0, 0], [1, 0], [0, 1], [1, 1]])?;
        let box_m = st("S2D_00_M10_0M1_M1M1", &[[0, 0], [-1, 0], [0, -1], [-1, -1]])?;
        let cross = st("S2D_10_M10_01_0M1", &[[1, 0], [-1, 0], [0, 1], [0, -1]])?;
        let x_m2_p1 = st("S2D_00_P10_M10_M20", &[[0, 0], [1, 0], [-1, 0], [-2, 0]])?;
        let y_m2_p1 = st("S2D_00_0P1_0M1_0M2", &[[0, 0], [0, 1], [0, -1], [0, -2]])?;
        let x_m1_p2 = st("S2D_00_P10_P20_M10", &[[0, 0], [1, 0], [2, 0], [-1, 0]])?;
        let y_m1_p2 = st("S2D_00_0P1_0P2_0M1", &[[0, 0], [0, 1], [0, 2], [0, -1]])?;
        let mfx_node = st("S2D_00_P10_0M1_P1M1", &[[0, 0], [1, 0], [0, -1], [1, -1]])?;
        let mfy_node = st("S2D_00_0P1_M10_M1P1", &[[0, 0], [0, 1], [-1, 0], [-1, 1]])?;
        let mut sst =
            |name: &str, pts: &[[i32; 2]], stride: [i32; 2]| ops.strided_stencil(name, pts, stride);
        let sx_00 = sst("S2D_00_STRID2D_X", &[[0, 0]], [1, 0])?;
        let sx_00_p10 = sst("S2D_00_P10_STRID2D_X", &[[0, 0], [1, 0]], [1, 0])?;
        let sx_m10_00 = sst("S2D_00_M10_STRID2D_X", &[[0, 0], [-1, 0]], [1, 0])?;
        let sx_m10_p10 = sst(
            "S2D_00_P10_M10_STRID2D_X",
            &[[0, 0], [1, 0], [-1, 0]],
            [1, 0],
        )?;
        let sy_00 = sst("S2D_00_STRID2D_Y", &[[0, 0]], [0, 1])?;
        let sy_00_0p1 = sst("S2D_00_0P1_STRID2D_Y", &[[0, 0], [0, 1]], [0, 1])?;
        let sy_0m1_00 = sst("S2D_00_0M1_STRID2D_Y", &[[0, 0], [0, -1]], [0, 1])?;
        let sy_0m1_0p1 = sst(
            "S2D_00_0P1_0M1_STRID2D_Y",
            &[[0, 0], [0, 1], [0, -1]],
            [0, 1],
        )?;

        let red_dt = ops.reduction::<f64>("dt_min", ReduceOp::Min);
        let red_loc = ops.reduction::<f64>("dt_cell", ReduceOp::Min);
        let red_out = [
            ops.reduction::<f64>("dt_sound", ReduceOp::Sum),
            ops.reduction::<f64>("dt_xvel", ReduceOp::Sum),
            ops.reduction::<f64>("dt_yvel", ReduceOp::Sum),
            ops.reduction::<f64>("dt_div", ReduceOp::Sum),
            ops.reduction::<f64>("dt_x_pos", ReduceOp::Sum),
            ops.reduction::<f64>("dt_y_pos", ReduceOp::Sum),
        ];
        let red_sum = [
            ops.reduction::<f64>("vol", ReduceOp::Sum),
            ops.reduction::<f64>("mass", ReduceOp::Sum),
            ops.reduction::<f64>("ie", ReduceOp::Sum),
            ops.reduction::<f64>("ke", ReduceOp::Sum),
            ops.reduction::<f64>("press", ReduceOp::Sum),
        ];
        let red_count = ops.reduction::<f64>("state_cells", ReduceOp::Sum);

        let f = Fields {
            density0,
            density1,
            energy0,
            energy1,
            pressure,
            viscosity,
            soundspeed,
            volume,
            xvel0,
            xvel1,
            yvel0,
            yvel1,
            vol_flux_x,
            mass_flux_x,
            xarea,
            vol_flux_y,
            mass_flux_y,
            yarea,
            work1,
            work2,
            work3,
            work4,
            work5,
            work6,
            cellx,
            celldx,
            celly,
            celldy,
            vertexx,
            vertexdx,
            vertexy,
            vertexdy,
        };
        let s = Stencils {
            p00,
            p00_p10,
            p00_0p1,
            p00_m10,
            p00_0m1,
            box_p,
            box_m,
            cross,
            x_m2_p1,
            y_m2_p1,
            x_m1_p2,
            y_m1_p2,
            mfx_node,
            mfy_node,
            sx_00,
            sx_00_p10,
            sx_m10_00,
            sx_m10_p10,
            sy_00,
            sy_00_0p1,
            sy_0m1_00,
            sy_0m1_0p1,
        };
        let dtinit = deck.dtinit;
        let clover = Clover {
            ops,
            grid,
            f,
            s,
            deck,
            nx: nx as i32,
            ny: ny as i32,
            time: 0.0,
            step: 0,
            dt: dtinit,
            dtold: dtinit,
            advect_x: true,
            red_dt,
            red_loc,
            red_out,
            red_sum,
            red_count,
        };
        Ok(clover)
    }

    // ------------------------------------------------------------------------------------------
    // Set-up
    // ------------------------------------------------------------------------------------------

    /// initialise_chunk + generate_chunk + the first equation of state and halo exchange.
    ///
    /// Returns the states (1-based) whose region covers no cell.
    pub fn initialise(&mut self) -> Result<Vec<usize>> {
        self.initialise_chunk()?;
        let empty = self.generate_chunk()?;
        self.ideal_gas(false)?;
        self.update_halo(
            &[
                Field::Density0,
                Field::Energy0,
                Field::Pressure,
                Field::Viscosity,
                Field::Density1,
                Field::Energy1,
                Field::XVel0,
                Field::YVel0,
                Field::XVel1,
                Field::YVel1,
            ],
            2,
        )?;
        Ok(empty)
    }

    fn initialise_chunk(&mut self) -> Result<()> {
        let (nx, ny) = (self.nx, self.ny);
        let (dx, dy) = (self.deck.dx(), self.deck.dy());
        let (xmin, ymin) = (self.deck.xmin, self.deck.ymin);
        let (f, s, g) = (&self.f, &self.s, &self.grid);
        let ops = &mut self.ops;
        ops.par_loop(
            init_vertex_x,
            "initialise_chunk_vertex_x",
            g,
            rg(-2, nx + 3, 0, 1),
            &[
                f.vertexx.arg(&s.p00, Write),
                f.vertexdx.arg(&s.p00, Write),
                Arg::idx(),
                Arg::global(xmin),
                Arg::global(dx),
            ],
        )?;
        ops.par_loop(
            init_vertex_y,
            "initialise_chunk_vertex_y",
            g,
            rg(0, 1, -2, ny + 3),
            &[
                f.vertexy.arg(&s.p00, Write),
                f.vertexdy.arg(&s.p00, Write),
                Arg::idx(),
                Arg::global(ymin),
                Arg::global(dy),
            ],
        )?;
        ops.par_loop(
            init_cell_x,
            "initialise_chunk_cell_x",
            g,
            rg(-2, nx + 2, 0, 1),
            &[
                f.vertexx.arg(&s.p00_p10, Read),
                f.cellx.arg(&s.p00, Write),
                f.celldx.arg(&s.p00, Write),
                Arg::global(dx),
            ],
        )?;
        ops.par_loop(
            init_cell_y,
            "initialise_chunk_cell_y",
            g,
            rg(0, 1, -2, ny + 2),
            &[
                f.vertexy.arg(&s.p00_0p1, Read),
                f.celly.arg(&s.p00, Write),
                f.celldy.arg(&s.p00, Write),
                Arg::global(dy),
            ],
        )?;
        ops.par_loop(
            init_volume,
            "initialise_chunk_volume",
            g,
            rg(-2, nx + 2, -2, ny + 2),
            &[
                f.volume.arg(&s.p00, Write),
                Arg::global(dx),
                Arg::global(dy),
            ],
        )?;
        ops.par_loop(
            init_xarea,
            "initialise_chunk_xarea",
            g,
            rg(-2, nx + 3, -2, ny + 2),
            &[f.celldy.arg(&s.sy_00, Read), f.xarea.arg(&s.p00, Write)],
        )?;
        ops.par_loop(
            init_yarea,
            "initialise_chunk_yarea",
            g,
            rg(-2, nx + 2, -2, ny + 3),
            &[f.celldx.arg(&s.sx_00, Read), f.yarea.arg(&s.p00, Write)],
        )?;
        Ok(())
    }

    fn generate_chunk(&mut self) -> Result<Vec<usize>> {
        let (nx, ny) = (self.nx, self.ny);
        let (f, s, g) = (&self.f, &self.s, &self.grid);
        let ops = &mut self.ops;
        let bg = &self.deck.states[0];
        ops.par_loop(
            generate_background_cells,
            "generate_chunk",
            g,
            rg(-2, nx + 2, -2, ny + 2),
            &[
                f.density0.arg(&s.p00, Write),
                f.energy0.arg(&s.p00, Write),
                Arg::global(bg.density),
                Arg::global(bg.energy),
            ],
        )?;
        ops.par_loop(
            generate_background_nodes,
            "generate_chunk",
            g,
            rg(-2, nx + 3, -2, ny + 3),
            &[
                f.xvel0.arg(&s.p00, Write),
                f.yvel0.arg(&s.p00, Write),
                Arg::global(bg.xvel),
                Arg::global(bg.yvel),
            ],
        )?;
        let mut empty = Vec::new();
        for n in 1..self.deck.states.len() {
            let st = &self.deck.states[n];
            let geom: i32 = match st.geometry {
                Some(Geometry::Rectangle { .. }) => 1,
                Some(Geometry::Circle { .. }) => 2,
                Some(Geometry::Point { .. }) => 3,
                None => 0,
            };
            let [xmin, xmax, ymin, ymax, radius] = self.deck.generator_bounds(n);
            ops.par_loop(
                generate_state_cells,
                "generate_chunk",
                g,
                rg(-2, nx + 2, -2, ny + 2),
                &[
                    f.vertexx.arg(&s.sx_00_p10, Read),
                    f.vertexy.arg(&s.sy_00_0p1, Read),
                    f.cellx.arg(&s.sx_00, Read),
                    f.celly.arg(&s.sy_00, Read),
                    f.density0.arg(&s.p00, ReadWrite),
                    f.energy0.arg(&s.p00, ReadWrite),
                    Arg::global(geom),
                    Arg::global(xmin),
                    Arg::global(xmax),
                    Arg::global(ymin),
                    Arg::global(ymax),
                    Arg::global(radius),
                    Arg::global(st.density),
                    Arg::global(st.energy),
                ],
            )?;
            // Nodes whose four neighbouring cells all exist; the outermost halo layer of nodes
            // is rewritten by the halo exchange that follows generation.
            ops.par_loop(
                generate_state_nodes,
                "generate_chunk",
                g,
                rg(-1, nx + 2, -1, ny + 2),
                &[
                    f.vertexx.arg(&s.sx_m10_p10, Read),
                    f.vertexy.arg(&s.sy_0m1_0p1, Read),
                    f.cellx.arg(&s.sx_m10_00, Read),
                    f.celly.arg(&s.sy_0m1_00, Read),
                    f.xvel0.arg(&s.p00, ReadWrite),
                    f.yvel0.arg(&s.p00, ReadWrite),
                    Arg::global(geom),
                    Arg::global(xmin),
                    Arg::global(xmax),
                    Arg::global(ymin),
                    Arg::global(ymax),
                    Arg::global(radius),
                    Arg::global(st.xvel),
                    Arg::global(st.yvel),
                ],
            )?;
            ops.par_loop(
                count_state_cells,
                "generate_chunk_count",
                g,
                rg(0, nx, 0, ny),
                &[
                    f.vertexx.arg(&s.sx_00_p10, Read),
                    f.vertexy.arg(&s.sy_00_0p1, Read),
                    f.cellx.arg(&s.sx_00, Read),
                    f.celly.arg(&s.sy_00, Read),
                    Arg::global(geom),
                    Arg::global(xmin),
                    Arg::global(xmax),
                    Arg::global(ymin),
                    Arg::global(ymax),
                    Arg::global(radius),
                    self.red_count.arg(),
                ],
            )?;
            if ops.reduction_result(&self.red_count)? == 0.0 {
                empty.push(n + 1);
            }
        }
        Ok(empty)
    }

    // ------------------------------------------------------------------------------------------
    // Physics
    // ------------------------------------------------------------------------------------------

    /// Equation of state on the interior, from density0/energy0 (or density1/energy1 when
    /// `predict`).
    pub fn ideal_gas(&mut self, predict: bool) -> Result<()> {
        let f = &self.f;
        let (d, e) = if predict {
            (&f.density1, &f.energy1)
        } else {
            (&f.density0, &f.energy0)
        };
        let p = &self.s.p00;
        self.ops.par_loop(
            ideal_gas,
            "ideal_gas",
            &self.grid,
            rg(0, self.nx, 0, self.ny),
            &[
                d.arg(p, Read),
                e.arg(p, Read),
                f.pressure.arg(p, Write),
                f.soundspeed.arg(p, Write),
            ],
        )
    }

    /// Reflective boundary conditions for `fields` to `depth` layers (1 or 2), in the original's
    /// order: bottom, top, left, right for each field.
    pub fn update_halo(&mut self, fields: &[Field], depth: i32) -> Result<()> {
        for &fld in fields {
            let (dat, stagger) = self.field(fld);
            let dat = *dat;
            self.reflect(&dat, stagger, depth)?;
        }
        Ok(())
    }

    fn field(&self, fld: Field) -> (&Dat<f64>, Stagger) {
        let f = &self.f;
        match fld {
            Field::Density0 => (&f.density0, Stagger::Cell),
            Field::Density1 => (&f.density1, Stagger::Cell),
            Field::Energy0 => (&f.energy0, Stagger::Cell),
            Field::Energy1 => (&f.energy1, Stagger::Cell),
            Field::Pressure => (&f.pressure, Stagger::Cell),
            Field::Viscosity => (&f.viscosity, Stagger::Cell),
            Field::Soundspeed => (&f.soundspeed, Stagger::Cell),
            Field::XVel0 => (&f.xvel0, Stagger::NodeX),
            Field::XVel1 => (&f.xvel1, Stagger::NodeX),
            Field::YVel0 => (&f.yvel0, Stagger::NodeY),
            Field::YVel1 => (&f.yvel1, Stagger::NodeY),
            Field::VolFluxX => (&f.vol_flux_x, Stagger::FaceX),
            Field::MassFluxX => (&f.mass_flux_x, Stagger::FaceX),
            Field::VolFluxY => (&f.vol_flux_y, Stagger::FaceY),
            Field::MassFluxY => (&f.mass_flux_y, Stagger::FaceY),
        }
    }

    /// One field's reflection at the walls, in the original's order (bottom, top, left,
    /// right), by the runtime's boundary fills. Cell-centred fields mirror about the cell
    /// faces. Staggered fields mirror about the boundary node in both directions (x-face data
    /// in y and y-face data in x too: the original's rule), and change sign across the walls
    /// normal to their direction.
    fn reflect(&mut self, dat: &Dat<f64>, stagger: Stagger, depth: i32) -> Result<()> {
        let mirror = |centring, negate| Boundary::Reflect { centring, negate };
        let (node, cell) = (Centring::Node, Centring::Cell);
        let (y_walls, x_walls) = match stagger {
            Stagger::Cell => (mirror(cell, false), mirror(cell, false)),
            Stagger::NodeX | Stagger::FaceX => (mirror(node, false), mirror(node, true)),
            Stagger::NodeY | Stagger::FaceY => (mirror(node, true), mirror(node, false)),
        };
        for (face, bc) in [
            (Face::Y_LO, y_walls),
            (Face::Y_HI, y_walls),
            (Face::X_LO, x_walls),
            (Face::X_HI, x_walls),
        ] {
            self.ops.fill_halo(dat, face, depth, bc)?;
        }
        Ok(())
    }

    /// Artificial viscosity on the interior.
    pub fn viscosity(&mut self) -> Result<()> {
        let (f, s) = (&self.f, &self.s);
        self.ops.par_loop(
            viscosity_kernel,
            "viscosity",
            &self.grid,
            rg(0, self.nx, 0, self.ny),
            &[
                f.xvel0.arg(&s.box_p, Read),
                f.yvel0.arg(&s.box_p, Read),
                f.pressure.arg(&s.cross, Read),
                f.density0.arg(&s.p00, Read),
                f.viscosity.arg(&s.p00, Write),
                Arg::global(self.deck.dx()),
                Arg::global(self.deck.dy()),
            ],
        )
    }

    /// calc_dt: the smallest stable step over the interior, the cell that sets it and why.
    pub fn calc_dt(&mut self) -> Result<DtCell> {
        let (nx, ny) = (self.nx, self.ny);
        let d = &self.deck;
        let (dx, dy) = (d.dx(), d.dy());
        let globals = [
            G_SMALL,
            G_BIG,
            d.dtc_safe,
            d.dtu_safe,
            d.dtv_safe,
            d.dtdiv_safe,
        ];
        let (f, s, g) = (&self.f, &self.s, &self.grid);
        let ops = &mut self.ops;
        ops.par_loop(
            calc_dt,
            "calc_dt",
            g,
            rg(0, nx, 0, ny),
            &[
                f.soundspeed.arg(&s.p00, Read),
                f.viscosity.arg(&s.p00, Read),
                f.density0.arg(&s.p00, Read),
                f.xvel0.arg(&s.box_p, Read),
                f.xarea.arg(&s.p00_p10, Read),
                f.volume.arg(&s.p00, Read),
                f.yvel0.arg(&s.box_p, Read),
                f.yarea.arg(&s.p00_0p1, Read),
                f.work1.arg(&s.p00, Write),
                Arg::global(dx),
                Arg::global(dy),
                Arg::global(globals[0]),
                Arg::global(globals[1]),
                Arg::global(globals[2]),
                Arg::global(globals[3]),
                Arg::global(globals[4]),
                Arg::global(globals[5]),
            ],
        )?;
        ops.par_loop(
            calc_dt_min,
            "calc_dt_min",
            g,
            rg(0, nx, 0, ny),
            &[f.work1.arg(&s.p00, Read), self.red_dt.arg()],
        )?;
        let dt_min = ops.reduction_result(&self.red_dt)?.min(G_BIG);
        ops.par_loop(
            calc_dt_locate,
            "calc_dt_locate",
            g,
            rg(0, nx, 0, ny),
            &[
                f.work1.arg(&s.p00, Read),
                Arg::idx(),
                Arg::global(dt_min),
                Arg::global(nx as f64),
                self.red_loc.arg(),
            ],
        )?;
        let loc = ops.reduction_result(&self.red_loc)?;
        if !loc.is_finite() {
            // No cell matched (the minimum is NaN): report the first cell.
            return Ok(DtCell {
                dt: dt_min,
                control: DtControl::Sound,
                cell: (1, 1),
                pos: (f64::NAN, f64::NAN),
            });
        }
        let loc = loc as i64;
        let (j, k) = ((loc % nx as i64) as i32, (loc / nx as i64) as i32);
        ops.par_loop(
            calc_dt_report,
            "calc_dt_report",
            g,
            rg(j, j + 1, k, k + 1),
            &[
                f.celldx.arg(&s.sx_00, Read),
                f.celldy.arg(&s.sy_00, Read),
                f.cellx.arg(&s.sx_00, Read),
                f.celly.arg(&s.sy_00, Read),
                f.soundspeed.arg(&s.p00, Read),
                f.viscosity.arg(&s.p00, Read),
                f.density0.arg(&s.p00, Read),
                f.xvel0.arg(&s.box_p, Read),
                f.xarea.arg(&s.p00_p10, Read),
                f.volume.arg(&s.p00, Read),
                f.yvel0.arg(&s.box_p, Read),
                f.yarea.arg(&s.p00_0p1, Read),
                Arg::global(globals[0]),
                Arg::global(globals[1]),
                Arg::global(globals[2]),
                Arg::global(globals[3]),
                Arg::global(globals[4]),
                Arg::global(globals[5]),
                self.red_out[0].arg(),
                self.red_out[1].arg(),
                self.red_out[2].arg(),
                self.red_out[3].arg(),
                self.red_out[4].arg(),
                self.red_out[5].arg(),
            ],
        )?;
        let mut out = [0.0; 6];
        for (o, r) in out.iter_mut().zip(&self.red_out) {
            *o = ops.reduction_result(r)?;
        }
        let control = [
            DtControl::Sound,
            DtControl::XVel,
            DtControl::YVel,
            DtControl::Div,
        ]
        .into_iter()
        .zip(out)
        .fold((DtControl::Sound, f64::INFINITY), |best, (c, v)| {
            if v < best.1 {
                (c, v)
            } else {
                best
            }
        })
        .0;
        Ok(DtCell {
            dt: dt_min,
            control,
            cell: (j as i64 + 1, k as i64 + 1),
            pos: (out[4], out[5]),
        })
    }

    /// The original's `timestep`: equation of state, halos, viscosity, calc_dt and the growth
    /// and size limits. Sets `dt` and `dtold`.
    pub fn timestep(&mut self) -> Result<StepInfo> {
        self.ideal_gas(false)?;
        self.update_halo(
            &[
                Field::Pressure,
                Field::Energy0,
                Field::Density0,
                Field::XVel0,
                Field::YVel0,
            ],
            1,
        )?;
        self.viscosity()?;
        self.update_halo(&[Field::Viscosity], 1)?;
        let DtCell {
            dt: dtl,
            mut control,
            cell,
            pos,
        } = self.calc_dt()?;
        let mut dt = G_BIG;
        if dtl <= dt {
            dt = dtl;
        }
        let rise = self.dtold * self.deck.dtrise;
        if rise < dt {
            control = DtControl::Rise;
        }
        if self.deck.dtmax < dt.min(rise) {
            control = DtControl::Max;
        }
        dt = dt.min(rise).min(self.deck.dtmax);
        self.dt = dt;
        self.dtold = dt;
        Ok(StepInfo {
            time: self.time,
            dt,
            control,
            cell,
            pos,
            dt_cell: dtl,
        })
    }

    /// PdV: the Lagrangian update of density and energy, predictor or corrector.
    pub fn pdv(&mut self, predict: bool) -> Result<()> {
        let (nx, ny, dt) = (self.nx, self.ny, self.dt);
        {
            let (f, s, g) = (&self.f, &self.s, &self.grid);
            if predict {
                self.ops.par_loop(
                    pdv_predict,
                    "PdV_predict",
                    g,
                    rg(0, nx, 0, ny),
                    &[
                        f.xarea.arg(&s.p00_p10, Read),
                        f.xvel0.arg(&s.box_p, Read),
                        f.yarea.arg(&s.p00_0p1, Read),
                        f.yvel0.arg(&s.box_p, Read),
                        f.volume.arg(&s.p00, Read),
                        f.pressure.arg(&s.p00, Read),
                        f.density0.arg(&s.p00, Read),
                        f.density1.arg(&s.p00, Write),
                        f.viscosity.arg(&s.p00, Read),
                        f.energy0.arg(&s.p00, Read),
                        f.energy1.arg(&s.p00, Write),
                        Arg::global(dt),
                    ],
                )?;
            } else {
                self.ops.par_loop(
                    pdv_correct,
                    "PdV_correct",
                    g,
                    rg(0, nx, 0, ny),
                    &[
                        f.xarea.arg(&s.p00_p10, Read),
                        f.xvel0.arg(&s.box_p, Read),
                        f.xvel1.arg(&s.box_p, Read),
                        f.yarea.arg(&s.p00_0p1, Read),
                        f.yvel0.arg(&s.box_p, Read),
                        f.yvel1.arg(&s.box_p, Read),
                        f.volume.arg(&s.p00, Read),
                        f.pressure.arg(&s.p00, Read),
                        f.density0.arg(&s.p00, Read),
                        f.density1.arg(&s.p00, Write),
                        f.viscosity.arg(&s.p00, Read),
                        f.energy0.arg(&s.p00, Read),
                        f.energy1.arg(&s.p00, Write),
                        Arg::global(dt),
                    ],
                )?;
            }
        }
        if predict {
            self.ideal_gas(true)?;
            self.update_halo(&[Field::Pressure], 1)?;
            self.revert()?;
        }
        Ok(())
    }

    /// revert: density1/energy1 back to the start-of-step values.
    pub fn revert(&mut self) -> Result<()> {
        let (f, p) = (&self.f, &self.s.p00);
        self.ops.par_loop(
            copy2,
            "revert",
            &self.grid,
            rg(0, self.nx, 0, self.ny),
            &[
                f.density0.arg(p, Read),
                f.density1.arg(p, Write),
                f.energy0.arg(p, Read),
                f.energy1.arg(p, Write),
            ],
        )
    }

    /// accelerate: node velocities from pressure and viscosity forces.
    pub fn accelerate(&mut self) -> Result<()> {
        let (f, s) = (&self.f, &self.s);
        self.ops.par_loop(
            accelerate,
            "accelerate",
            &self.grid,
            rg(0, self.nx + 1, 0, self.ny + 1),
            &[
                f.density0.arg(&s.box_m, Read),
                f.volume.arg(&s.box_m, Read),
                f.xvel0.arg(&s.p00, Read),
                f.xvel1.arg(&s.p00, Write),
                f.xarea.arg(&s.p00_0m1, Read),
                f.pressure.arg(&s.box_m, Read),
                f.yvel0.arg(&s.p00, Read),
                f.yvel1.arg(&s.p00, Write),
                f.yarea.arg(&s.p00_m10, Read),
                f.viscosity.arg(&s.box_m, Read),
                Arg::global(self.dt),
            ],
        )
    }

    /// flux_calc: volume fluxes through the faces over the step.
    pub fn flux_calc(&mut self) -> Result<()> {
        let (nx, ny, dt) = (self.nx, self.ny, self.dt);
        let (f, s, g) = (&self.f, &self.s, &self.grid);
        self.ops.par_loop(
            flux_calc_x,
            "flux_calc_x",
            g,
            rg(0, nx + 1, 0, ny),
            &[
                f.xarea.arg(&s.p00, Read),
                f.xvel0.arg(&s.p00_0p1, Read),
                f.xvel1.arg(&s.p00_0p1, Read),
                f.vol_flux_x.arg(&s.p00, Write),
                Arg::global(dt),
            ],
        )?;
        self.ops.par_loop(
            flux_calc_y,
            "flux_calc_y",
            g,
            rg(0, nx, 0, ny + 1),
            &[
                f.yarea.arg(&s.p00, Read),
                f.yvel0.arg(&s.p00_p10, Read),
                f.yvel1.arg(&s.p00_p10, Read),
                f.vol_flux_y.arg(&s.p00, Write),
                Arg::global(dt),
            ],
        )
    }

    /// advection: two directional sweeps of cell and momentum advection, x first on odd steps.
    pub fn advection(&mut self) -> Result<()> {
        let first_x = self.advect_x;
        self.update_halo(
            &[
                Field::Energy1,
                Field::Density1,
                Field::VolFluxX,
                Field::VolFluxY,
            ],
            2,
        )?;
        self.advec_cell(1, first_x)?;
        self.update_halo(
            &[
                Field::Density1,
                Field::Energy1,
                Field::XVel1,
                Field::YVel1,
                Field::MassFluxX,
                Field::MassFluxY,
            ],
            2,
        )?;
        self.advec_mom(1, first_x)?;
        self.advec_cell(2, !first_x)?;
        self.update_halo(
            &[
                Field::Density1,
                Field::Energy1,
                Field::XVel1,
                Field::YVel1,
                Field::MassFluxX,
                Field::MassFluxY,
            ],
            2,
        )?;
        self.advec_mom(2, !first_x)?;
        Ok(())
    }

    /// Cell advection of density and energy in one direction.
    pub fn advec_cell(&mut self, sweep: u32, x_dir: bool) -> Result<()> {
        let (nx, ny) = (self.nx, self.ny);
        let (dx, dy) = (self.deck.dx(), self.deck.dy());
        let (f, s, g) = (&self.f, &self.s, &self.grid);
        let ops = &mut self.ops;
        let pre_vol = &f.work1;
        let ener_flux = &f.work2;
        if x_dir {
            // pre_vol is needed at the donor cells of faces 0..=nx and in the interior.
            let r = rg(-1, nx + 1, 0, ny);
            if sweep == 1 {
                ops.par_loop(
                    advec_cell_pre_vol_x1,
                    "advec_cell_pre_vol",
                    g,
                    r,
                    &[
                        f.volume.arg(&s.p00, Read),
                        f.vol_flux_x.arg(&s.p00_p10, Read),
                        f.vol_flux_y.arg(&s.p00_0p1, Read),
                        pre_vol.arg(&s.p00, Write),
                    ],
                )?;
            } else {
                ops.par_loop(
                    advec_cell_pre_vol_x2,
                    "advec_cell_pre_vol",
                    g,
                    r,
                    &[
                        f.volume.arg(&s.p00, Read),
                        f.vol_flux_x.arg(&s.p00_p10, Read),
                        pre_vol.arg(&s.p00, Write),
                    ],
                )?;
            }
            ops.par_loop(
                advec_cell_flux_x,
                "advec_cell_flux_x",
                g,
                rg(0, nx + 1, 0, ny),
                &[
                    f.vol_flux_x.arg(&s.p00, Read),
                    pre_vol.arg(&s.p00_m10, Read),
                    f.density1.arg(&s.x_m2_p1, Read),
                    f.energy1.arg(&s.x_m2_p1, Read),
                    f.mass_flux_x.arg(&s.p00, Write),
                    ener_flux.arg(&s.p00, Write),
                    Arg::global(dx),
                ],
            )?;
            ops.par_loop(
                advec_cell_update_x,
                "advec_cell_update_x",
                g,
                rg(0, nx, 0, ny),
                &[
                    f.density1.arg(&s.p00, ReadWrite),
                    f.energy1.arg(&s.p00, ReadWrite),
                    f.mass_flux_x.arg(&s.p00_p10, Read),
                    f.vol_flux_x.arg(&s.p00_p10, Read),
                    pre_vol.arg(&s.p00, Read),
                    ener_flux.arg(&s.p00_p10, Read),
                ],
            )?;
        } else {
            let r = rg(0, nx, -1, ny + 1);
            if sweep == 1 {
                ops.par_loop(
                    advec_cell_pre_vol_y1,
                    "advec_cell_pre_vol",
                    g,
                    r,
                    &[
                        f.volume.arg(&s.p00, Read),
                        f.vol_flux_x.arg(&s.p00_p10, Read),
                        f.vol_flux_y.arg(&s.p00_0p1, Read),
                        pre_vol.arg(&s.p00, Write),
                    ],
                )?;
            } else {
                ops.par_loop(
                    advec_cell_pre_vol_y2,
                    "advec_cell_pre_vol",
                    g,
                    r,
                    &[
                        f.volume.arg(&s.p00, Read),
                        f.vol_flux_y.arg(&s.p00_0p1, Read),
                        pre_vol.arg(&s.p00, Write),
                    ],
                )?;
            }
            ops.par_loop(
                advec_cell_flux_y,
                "advec_cell_flux_y",
                g,
                rg(0, nx, 0, ny + 1),
                &[
                    f.vol_flux_y.arg(&s.p00, Read),
                    pre_vol.arg(&s.p00_0m1, Read),
                    f.density1.arg(&s.y_m2_p1, Read),
                    f.energy1.arg(&s.y_m2_p1, Read),
                    f.mass_flux_y.arg(&s.p00, Write),
                    ener_flux.arg(&s.p00, Write),
                    Arg::global(dy),
                ],
            )?;
            ops.par_loop(
                advec_cell_update_y,
                "advec_cell_update_y",
                g,
                rg(0, nx, 0, ny),
                &[
                    f.density1.arg(&s.p00, ReadWrite),
                    f.energy1.arg(&s.p00, ReadWrite),
                    f.mass_flux_y.arg(&s.p00_0p1, Read),
                    f.vol_flux_y.arg(&s.p00_0p1, Read),
                    pre_vol.arg(&s.p00, Read),
                    ener_flux.arg(&s.p00_0p1, Read),
                ],
            )?;
        }
        Ok(())
    }

    /// Momentum advection of both velocity components in one direction. The staggered-cell
    /// volumes, fluxes and masses depend only on the direction and sweep, so they are computed
    /// once for both components, and the two components' fluxes and updates share their loops
    /// (they are independent: same values as the original's one-component-at-a-time order).
    pub fn advec_mom(&mut self, sweep: u32, x_dir: bool) -> Result<()> {
        let (nx, ny) = (self.nx, self.ny);
        let (dx, dy) = (self.deck.dx(), self.deck.dy());
        let (f, s, g) = (&self.f, &self.s, &self.grid);
        let ops = &mut self.ops;
        let post_vol = &f.work1;
        let node_flux = &f.work2;
        let node_mass_post = &f.work3;
        let node_mass_pre = &f.work4;
        let mom_flux_x = &f.work5;
        let mom_flux_y = &f.work6;
        // On the second sweep the staggered cells' volume is the cell volume itself.
        let vol = if sweep == 1 {
            let full = rg(-2, nx + 2, -2, ny + 2);
            if x_dir {
                ops.par_loop(
                    advec_mom_post_vol_x1,
                    "advec_mom_post_vol",
                    g,
                    full,
                    &[
                        f.volume.arg(&s.p00, Read),
                        f.vol_flux_y.arg(&s.p00_0p1, Read),
                        post_vol.arg(&s.p00, Write),
                    ],
                )?;
            } else {
                ops.par_loop(
                    advec_mom_post_vol_y1,
                    "advec_mom_post_vol",
                    g,
                    full,
                    &[
                        f.volume.arg(&s.p00, Read),
                        f.vol_flux_x.arg(&s.p00_p10, Read),
                        post_vol.arg(&s.p00, Write),
                    ],
                )?;
            }
            post_vol
        } else {
            &f.volume
        };
        if x_dir {
            ops.par_loop(
                advec_mom_node_flux_x,
                "advec_mom_node_flux",
                g,
                rg(-2, nx + 2, 0, ny + 1),
                &[
                    f.mass_flux_x.arg(&s.mfx_node, Read),
                    node_flux.arg(&s.p00, Write),
                ],
            )?;
            ops.par_loop(
                advec_mom_node_mass_x,
                "advec_mom_node_mass",
                g,
                rg(-1, nx + 2, 0, ny + 1),
                &[
                    f.density1.arg(&s.box_m, Read),
                    vol.arg(&s.box_m, Read),
                    node_flux.arg(&s.p00_m10, Read),
                    node_mass_post.arg(&s.p00, Write),
                    node_mass_pre.arg(&s.p00, Write),
                ],
            )?;
            ops.par_loop(
                advec_mom_flux_x,
                "advec_mom_flux",
                g,
                rg(-1, nx + 1, 0, ny + 1),
                &[
                    node_flux.arg(&s.p00, Read),
                    node_mass_pre.arg(&s.p00_p10, Read),
                    f.xvel1.arg(&s.x_m1_p2, Read),
                    f.yvel1.arg(&s.x_m1_p2, Read),
                    mom_flux_x.arg(&s.p00, Write),
                    mom_flux_y.arg(&s.p00, Write),
                    Arg::global(dx),
                ],
            )?;
            ops.par_loop(
                advec_mom_update_x,
                "advec_mom_update",
                g,
                rg(0, nx + 1, 0, ny + 1),
                &[
                    f.xvel1.arg(&s.p00, ReadWrite),
                    f.yvel1.arg(&s.p00, ReadWrite),
                    node_mass_post.arg(&s.p00, Read),
                    node_mass_pre.arg(&s.p00, Read),
                    mom_flux_x.arg(&s.p00_m10, Read),
                    mom_flux_y.arg(&s.p00_m10, Read),
                ],
            )?;
        } else {
            ops.par_loop(
                advec_mom_node_flux_y,
                "advec_mom_node_flux",
                g,
                rg(0, nx + 1, -2, ny + 2),
                &[
                    f.mass_flux_y.arg(&s.mfy_node, Read),
                    node_flux.arg(&s.p00, Write),
                ],
            )?;
            ops.par_loop(
                advec_mom_node_mass_y,
                "advec_mom_node_mass",
                g,
                rg(0, nx + 1, -1, ny + 2),
                &[
                    f.density1.arg(&s.box_m, Read),
                    vol.arg(&s.box_m, Read),
                    node_flux.arg(&s.p00_0m1, Read),
                    node_mass_post.arg(&s.p00, Write),
                    node_mass_pre.arg(&s.p00, Write),
                ],
            )?;
            ops.par_loop(
                advec_mom_flux_y,
                "advec_mom_flux",
                g,
                rg(0, nx + 1, -1, ny + 1),
                &[
                    node_flux.arg(&s.p00, Read),
                    node_mass_pre.arg(&s.p00_0p1, Read),
                    f.xvel1.arg(&s.y_m1_p2, Read),
                    f.yvel1.arg(&s.y_m1_p2, Read),
                    mom_flux_x.arg(&s.p00, Write),
                    mom_flux_y.arg(&s.p00, Write),
                    Arg::global(dy),
                ],
            )?;
            ops.par_loop(
                advec_mom_update_y,
                "advec_mom_update",
                g,
                rg(0, nx + 1, 0, ny + 1),
                &[
                    f.xvel1.arg(&s.p00, ReadWrite),
                    f.yvel1.arg(&s.p00, ReadWrite),
                    node_mass_post.arg(&s.p00, Read),
                    node_mass_pre.arg(&s.p00, Read),
                    mom_flux_x.arg(&s.p00_0m1, Read),
                    mom_flux_y.arg(&s.p00_0m1, Read),
                ],
            )?;
        }
        Ok(())
    }

    /// reset_field: the end-of-step values become the start-of-step values.
    pub fn reset_field(&mut self) -> Result<()> {
        let (f, p) = (&self.f, &self.s.p00);
        self.ops.par_loop(
            copy2,
            "reset_field_cells",
            &self.grid,
            rg(0, self.nx, 0, self.ny),
            &[
                f.density1.arg(p, Read),
                f.density0.arg(p, Write),
                f.energy1.arg(p, Read),
                f.energy0.arg(p, Write),
            ],
        )?;
        self.ops.par_loop(
            copy2,
            "reset_field_nodes",
            &self.grid,
            rg(0, self.nx + 1, 0, self.ny + 1),
            &[
                f.xvel1.arg(p, Read),
                f.xvel0.arg(p, Write),
                f.yvel1.arg(p, Read),
                f.yvel0.arg(p, Write),
            ],
        )
    }

    /// One full step of the original's hydro loop; returns the time-step report.
    pub fn hydro_step(&mut self) -> Result<StepInfo> {
        self.step += 1;
        let info = self.timestep()?;
        if info.dt < self.deck.dtmin {
            return Ok(info);
        }
        self.pdv(true)?;
        self.accelerate()?;
        self.pdv(false)?;
        self.flux_calc()?;
        self.advection()?;
        self.reset_field()?;
        self.advect_x = !self.advect_x;
        self.time += self.dt;
        Ok(info)
    }

    /// field_summary: totals over the interior (after refreshing pressure, as the original).
    pub fn field_summary(&mut self) -> Result<Summary> {
        self.ideal_gas(false)?;
        let (f, s) = (&self.f, &self.s);
        self.ops.par_loop(
            field_summary,
            "field_summary",
            &self.grid,
            rg(0, self.nx, 0, self.ny),
            &[
                f.volume.arg(&s.p00, Read),
                f.density0.arg(&s.p00, Read),
                f.energy0.arg(&s.p00, Read),
                f.pressure.arg(&s.p00, Read),
                f.xvel0.arg(&s.box_p, Read),
                f.yvel0.arg(&s.box_p, Read),
                self.red_sum[0].arg(),
                self.red_sum[1].arg(),
                self.red_sum[2].arg(),
                self.red_sum[3].arg(),
                self.red_sum[4].arg(),
            ],
        )?;
        let mut v = [0.0; 5];
        for (o, r) in v.iter_mut().zip(&self.red_sum) {
            *o = self.ops.reduction_result(r)?;
        }
        let [vol, mass, ie, ke, press] = v;
        Ok(Summary {
            step: self.step,
            time: self.time,
            volume: vol,
            mass,
            density: mass / vol,
            pressure: press / vol,
            internal_energy: ie,
            kinetic_energy: ke,
            total_energy: ie + ke,
        })
    }

    /// The fields a visualisation dump shows, refreshed as the original does before writing.
    pub fn prepare_visit(&mut self) -> Result<()> {
        self.ideal_gas(false)?;
        self.update_halo(&[Field::Pressure, Field::XVel0, Field::YVel0], 1)?;
        self.viscosity()
    }

    /// Whether the run is over after the current step.
    pub fn finished(&self) -> bool {
        self.time + G_SMALL > self.deck.end_time || self.step >= self.deck.end_step
    }
}
