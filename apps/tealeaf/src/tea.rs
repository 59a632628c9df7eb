//! The TeaLeaf method on the EDSL: datasets, stencils and the original's driver routines
//! (initialise_chunk, generate_chunk, set_field, update_halo, field_summary and the implicit
//! solve of each step, see [`crate::solve`]), each a sequence of `par_loop`s.

use std::ops::Range;

use crate::deck::{Coefficient, Deck, Geometry, Preconditioner};
use crate::kernels::*;
use crate::prelude::*;

/// What the field summary reports, over the interior cells.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Step the summary was taken after (0: the initial state).
    pub step: u64,
    /// Simulated time.
    pub time: f64,
    /// Total volume.
    pub volume: f64,
    /// Total mass.
    pub mass: f64,
    /// Mass / volume.
    pub density: f64,
    /// Total internal energy (mass times specific energy).
    pub energy: f64,
    /// Mass-weighted temperature (`u`, the original's last column).
    pub temperature: f64,
    /// Solver iterations of the step the summary follows (0 for the initial state).
    pub iterations: u64,
}

/// The fields the original's `update_halo` knows, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Field {
    /// density
    Density = 0,
    /// energy0
    Energy0,
    /// energy1
    Energy1,
    /// u (the temperature times density being solved for)
    U,
    /// p (the search direction)
    P,
    /// sd (PPCG's inner search direction)
    Sd,
    /// the original's FIELD_R, which names the inner residual `rtemp`
    R,
    /// z (the preconditioned residual)
    Z,
    /// Kx
    Kx,
    /// Ky
    Ky,
    /// Di
    Di,
}

/// A set of [`Field`]s (the original's `fields` array of flags).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fields(u16);

impl Fields {
    /// The empty set.
    pub const NONE: Fields = Fields(0);

    /// The set of `list`.
    pub fn of(list: &[Field]) -> Fields {
        let mut s = Fields::NONE;
        for f in list {
            s.insert(*f);
        }
        s
    }

    /// Adds `f`.
    pub fn insert(&mut self, f: Field) {
        self.0 |= 1 << f as u8;
    }

    /// Whether `f` is in the set.
    pub fn contains(self, f: Field) -> bool {
        self.0 & (1 << f as u8) != 0
    }
}

/// Every dataset of the method (all cell-centred `nx` x `ny` with the same halo, except the
/// 1-D coordinate arrays).
#[allow(missing_docs)]
pub struct Dats {
    pub density: Dat<f64>,
    pub energy0: Dat<f64>,
    pub energy1: Dat<f64>,
    pub u: Dat<f64>,
    pub u0: Dat<f64>,
    pub p: Dat<f64>,
    pub r: Dat<f64>,
    pub r_store: Dat<f64>,
    pub mi: Dat<f64>,
    pub w: Dat<f64>,
    pub z: Dat<f64>,
    pub utemp: Dat<f64>,
    pub rtemp: Dat<f64>,
    pub di: Dat<f64>,
    pub kx: Dat<f64>,
    pub ky: Dat<f64>,
    pub sd: Dat<f64>,
    pub cp: Dat<f64>,
    pub bfp: Dat<f64>,
    pub volume: Dat<f64>,
    pub cellx: Dat<f64>,
    pub celly: Dat<f64>,
    pub vertexx: Dat<f64>,
    pub vertexy: Dat<f64>,
}

/// Every stencil of the method.
#[allow(missing_docs)]
pub struct Stencils {
    pub p00: Stencil,
    /// The 5-point operator.
    pub five: Stencil,
    /// (0,0), (1,0): Kx as the operator reads it.
    pub kx: Stencil,
    /// (0,0), (0,1): Ky as the operator reads it.
    pub ky: Stencil,
    /// (0,0), (-1,0), (0,-1): the density as the coefficients read it.
    pub lower: Stencil,
    /// (0,-3) ..= (0,3): a cell's 4-row block.
    pub block: Stencil,
    /// (0,0) ..= (0,3): the rows a [`dot4`] cell sums.
    pub dot: Stencil,
    pub sx_00: Stencil,
    pub sx_00_p10: Stencil,
    pub sy_00: Stencil,
    pub sy_00_0p1: Stencil,
    pub x_00_p10: Stencil,
    pub y_00_0p1: Stencil,
}

/// Reductions (sums) the loops fold into.
struct Reductions {
    a: Reduction<f64>,
    b: Reduction<f64>,
    dot: [Reduction<f64>; 4],
    summary: [Reduction<f64>; 4],
}

/// Per-dimension ranges `x0..x1`, `y0..y1`.
pub(crate) fn rg(x0: i32, x1: i32, y0: i32, y1: i32) -> [Range<i32>; 2] {
    [x0..x1, y0..y1]
}

/// The simulation: runtime, mesh, fields and the time-stepping state.
pub struct Tea {
    /// The runtime.
    pub ops: Ops,
    /// The 2-D block everything lives on.
    pub grid: Block,
    /// Datasets.
    pub d: Dats,
    /// Stencils.
    pub s: Stencils,
    /// The deck being run.
    pub deck: Deck,
    /// Cells in x.
    pub nx: i32,
    /// Cells in y.
    pub ny: i32,
    /// The deck's halo depth.
    pub depth: i32,
    /// Simulated time.
    pub time: f64,
    /// Steps taken.
    pub step: u64,
    /// The step size.
    pub dt: f64,
    /// `dt / dx²` and `dt / dy²` of the current step.
    pub rx: f64,
    /// See [`Tea::rx`].
    pub ry: f64,
    /// Eigenvalue estimates, made once (at the first switch from CG) and kept for the run.
    pub eigen: Option<(f64, f64)>,

    red: Reductions,
}

impl Tea {
    /// Declares every dataset and stencil for `deck` on `ops`. Use [`Tea::initialise`] next.
    pub fn new(mut ops: Ops, deck: Deck) -> Result<Tea> {
        let nx = deck.x_cells;
        let ny = deck.y_cells;
        let depth = deck.halo_depth as i32;
        let grid = ops.block("tea", 2)?;
        // Every field gets the deck's halo depth, and at least 3 rows (a block-preconditioner
        // cell reads its whole 4-row block).
        let h = depth.max(3);
        let halo = Halo::new([-h, -h], [h, h]);
        let mut dat = |name: &str| ops.dat::<f64, 2>(&grid, name, [nx, ny], halo);
        let density = dat("density")?;
        let energy0 = dat("energy0")?;
        let energy1 = dat("energy1")?;
        let u = dat("u")?;
        let u0 = dat("u0")?;
        let p = dat("vector_p")?;
        let r = dat("vector_r")?;
        let r_store = dat("vector_r_store")?;
        let mi = dat("vector_Mi")?;
        let w = dat("vector_w")?;
        let z = dat("vector_z")?;
        let utemp = dat("vector_utemp")?;
        let rtemp = dat("vector_rtemp")?;
        let di = dat("vector_Di")?;
        let kx = dat("vector_Kx")?;
        let ky = dat("vector_Ky")?;
        let sd = dat("vector_sd")?;
        let cp = dat("tri_cp")?;
        let bfp = dat("tri_bfp")?;
        let volume = dat("volume")?;
        let hx = Halo::new([-h, 0], [h, 0]);
        let hy = Halo::new([0, -h], [0, h]);
        let cellx = ops.dat::<f64, 2>(&grid, "cellx", [nx, 1], hx)?;
        let celly = ops.dat::<f64, 2>(&grid, "celly", [1, ny], hy)?;
        let vertexx = ops.dat::<f64, 2>(&grid, "vertexx", [nx + 1, 1], hx)?;
        let vertexy = ops.dat::<f64, 2>(&grid, "vertexy", [1, ny + 1], hy)?;

        let mut st = |name: &str, pts: &[[i32; 2]]| ops.stencil(name, pts);
        let p00 = st("S2D_00", &[[0, 0]])?;
        let five = st("S2D_5PT", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
        let kxs = st("S2D_00_P10", &[[0, 0], [1, 0]])?;
        let kys = st("S2D_00_0P1", &[[0, 0], [0, 1]])?;
        let lower = st("S2D_00_M10_0M1", &[[0, 0], [-1, 0], [0, -1]])?;
        let block_pts: Vec<[i32; 2]> = (-3..=3).map(|k| [0, k]).collect();
        let block = st("S2D_BLOCK_Y", &block_pts)?;
        let dot_st = st("S2D_00_0P1_0P2_0P3", &[[0, 0], [0, 1], [0, 2], [0, 3]])?;
        let x_00_p10 = st("S2D_X_00_P10", &[[0, 0], [1, 0]])?;
        let y_00_0p1 = st("S2D_Y_00_0P1", &[[0, 0], [0, 1]])?;
        let mut sst =
            |name: &str, pts: &[[i32; 2]], stride: [i32; 2]| ops.strided_stencil(name, pts, stride);
        let sx_00 = sst("S2D_00_STRID2D_X", &[[0, 0]], [1, 0])?;
        let sx_00_p10 = sst("S2D_00_P10_STRID2D_X", &[[0, 0], [1, 0]], [1, 0])?;
        let sy_00 = sst("S2D_00_STRID2D_Y", &[[0, 0]], [0, 1])?;
        let sy_00_0p1 = sst("S2D_00_0P1_STRID2D_Y", &[[0, 0], [0, 1]], [0, 1])?;

        let red = Reductions {
            a: ops.reduction::<f64>("sum_a", ReduceOp::Sum),
            b: ops.reduction::<f64>("sum_b", ReduceOp::Sum),
            dot: [
                ops.reduction::<f64>("dot_0", ReduceOp::Sum),
                ops.reduction::<f64>("dot_1", ReduceOp::Sum),
                ops.reduction::<f64>("dot_2", ReduceOp::Sum),
                ops.reduction::<f64>("dot_3", ReduceOp::Sum),
            ],
            summary: [
                ops.reduction::<f64>("vol", ReduceOp::Sum),
                ops.reduction::<f64>("mass", ReduceOp::Sum),
                ops.reduction::<f64>("ie", ReduceOp::Sum),
                ops.reduction::<f64>("temp", ReduceOp::Sum),
            ],
        };
        let d = Dats {
            density,
            energy0,
            energy1,
            u,
            u0,
            p,
            r,
            r_store,
            mi,
            w,
            z,
            utemp,
            rtemp,
            di,
            kx,
            ky,
            sd,
            cp,
            bfp,
            volume,
            cellx,
            celly,
            vertexx,
            vertexy,
        };
        let s = Stencils {
            p00,
            five,
            kx: kxs,
            ky: kys,
            lower,
            block,
            dot: dot_st,
            sx_00,
            sx_00_p10,
            sy_00,
            sy_00_0p1,
            x_00_p10,
            y_00_0p1,
        };
        let dt = deck.dtinit;
        Ok(Tea {
            ops,
            grid,
            d,
            s,
            deck,
            nx: nx as i32,
            ny: ny as i32,
            depth,
            time: 0.0,
            step: 0,
            dt,
            rx: 0.0,
            ry: 0.0,
            eigen: None,

            red,
        })
    }

    /// The interior range.
    pub(crate) fn interior(&self) -> [Range<i32>; 2] {
        rg(0, self.nx, 0, self.ny)
    }

    /// Runs `kernel` over `range` with `args` (a shorthand for the runtime's `par_loop` on the
    /// mesh block).
    #[track_caller]
    pub(crate) fn run<K: ops::ops_core::kernel::Kernel>(
        &mut self,
        kernel: K,
        name: &str,
        range: [Range<i32>; 2],
        args: &[Arg],
    ) -> Result<()> {
        self.ops.par_loop(kernel, name, &self.grid, range, args)
    }

    /// The first sum reduction's argument and result (loops with one or two sums use `a`, `b`).
    pub(crate) fn sum_a(&self) -> Arg {
        self.red.a.arg()
    }

    /// See [`Tea::sum_a`].
    pub(crate) fn sum_b(&self) -> Arg {
        self.red.b.arg()
    }

    /// The value summed into `a` since the last call.
    pub(crate) fn take_a(&mut self) -> Result<f64> {
        self.ops.reduction_result(&self.red.a)
    }

    /// The value summed into `b` since the last call.
    pub(crate) fn take_b(&mut self) -> Result<f64> {
        self.ops.reduction_result(&self.red.b)
    }

    // ------------------------------------------------------------------------------------------
    // Set-up
    // ------------------------------------------------------------------------------------------

    /// initialise_chunk + generate_chunk + the first halo update + set_field.
    ///
    /// Returns the states (1-based) whose region covers no interior cell.
    pub fn initialise(&mut self) -> Result<Vec<usize>> {
        self.initialise_chunk()?;
        let empty = self.generate_chunk()?;
        self.update_halo(
            Fields::of(&[Field::Density, Field::Energy0, Field::Energy1]),
            self.depth,
        )?;
        self.set_field()?;
        Ok(empty)
    }

    fn initialise_chunk(&mut self) -> Result<()> {
        let (nx, ny, h) = (self.nx, self.ny, self.depth.max(3));
        let (dx, dy) = (self.deck.dx(), self.deck.dy());
        let (xmin, ymin) = (self.deck.xmin, self.deck.ymin);
        let (d, s) = (&self.d, &self.s);
        let (vx, vy, cx, cy, vol) = (d.vertexx, d.vertexy, d.cellx, d.celly, d.volume);
        let (p00, x2, y2) = (s.p00, s.x_00_p10, s.y_00_0p1);
        self.run(
            init_vertex_x,
            "initialise_chunk",
            rg(-h, nx + 1 + h, 0, 1),
            &[
                vx.arg(&p00, Write),
                Arg::idx(),
                Arg::global(xmin),
                Arg::global(dx),
            ],
        )?;
        self.run(
            init_vertex_y,
            "initialise_chunk",
            rg(0, 1, -h, ny + 1 + h),
            &[
                vy.arg(&p00, Write),
                Arg::idx(),
                Arg::global(ymin),
                Arg::global(dy),
            ],
        )?;
        self.run(
            init_cell_x,
            "initialise_chunk",
            rg(-h, nx + h, 0, 1),
            &[vx.arg(&x2, Read), cx.arg(&p00, Write)],
        )?;
        self.run(
            init_cell_y,
            "initialise_chunk",
            rg(0, 1, -h, ny + h),
            &[vy.arg(&y2, Read), cy.arg(&p00, Write)],
        )?;
        self.run(
            init_volume,
            "initialise_chunk",
            rg(-h, nx + h, -h, ny + h),
            &[vol.arg(&p00, Write), Arg::global(dx), Arg::global(dy)],
        )?;
        Ok(())
    }

    fn generate_chunk(&mut self) -> Result<Vec<usize>> {
        let (nx, ny, dep) = (self.nx, self.ny, self.depth);
        let full = rg(-dep, nx + dep, -dep, ny + dep);
        let d = &self.d;
        let (dens, e0, u) = (d.density, d.energy0, d.u);
        let (vx, vy, cx, cy) = (d.vertexx, d.vertexy, d.cellx, d.celly);
        let s = &self.s;
        let (p00, sx, sxp, sy, syp) = (s.p00, s.sx_00, s.sx_00_p10, s.sy_00, s.sy_00_0p1);
        let bg = self.deck.states[0].clone();
        self.run(
            generate_background,
            "generate_chunk",
            full.clone(),
            &[
                dens.arg(&p00, Write),
                e0.arg(&p00, Write),
                Arg::global(bg.density),
                Arg::global(bg.energy),
            ],
        )?;
        let mut empty = Vec::new();
        for n in 1..self.deck.states.len() {
            let st = self.deck.states[n].clone();
            let geom: i32 = match st.geometry {
                Some(Geometry::Rectangle { .. }) => 1,
                Some(Geometry::Circle { .. }) => 2,
                Some(Geometry::Point { .. }) => 3,
                None => 0,
            };
            let [xmin, xmax, ymin, ymax, radius] = self.deck.generator_bounds(n);
            let count = self.sum_a();
            self.run(
                generate_state,
                "generate_chunk",
                full.clone(),
                &[
                    vx.arg(&sxp, Read),
                    vy.arg(&syp, Read),
                    cx.arg(&sx, Read),
                    cy.arg(&sy, Read),
                    dens.arg(&p00, ReadWrite),
                    e0.arg(&p00, ReadWrite),
                    Arg::idx(),
                    Arg::global(geom),
                    Arg::global(xmin),
                    Arg::global(xmax),
                    Arg::global(ymin),
                    Arg::global(ymax),
                    Arg::global(radius),
                    Arg::global(st.density),
                    Arg::global(st.energy),
                    Arg::global(nx),
                    Arg::global(ny),
                    count,
                ],
            )?;
            if self.take_a()? == 0.0 {
                empty.push(n + 1);
            }
        }
        self.run(
            generate_u,
            "generate_chunk",
            full,
            &[e0.arg(&p00, Read), dens.arg(&p00, Read), u.arg(&p00, Write)],
        )?;
        Ok(empty)
    }

    /// set_field: `energy1 = energy0` on the interior.
    pub fn set_field(&mut self) -> Result<()> {
        let (e0, e1, p00) = (self.d.energy0, self.d.energy1, self.s.p00);
        self.run(
            copy,
            "set_field",
            self.interior(),
            &[e0.arg(&p00, Read), e1.arg(&p00, Write)],
        )
    }

    // ------------------------------------------------------------------------------------------
    // Halo updates
    // ------------------------------------------------------------------------------------------

    fn field_dat(&self, f: Field) -> Dat<f64> {
        let d = &self.d;
        match f {
            Field::Density => d.density,
            Field::Energy0 => d.energy0,
            Field::Energy1 => d.energy1,
            Field::U => d.u,
            Field::P => d.p,
            Field::Sd => d.sd,
            Field::R => d.rtemp,
            Field::Z => d.z,
            Field::Kx => d.kx,
            Field::Ky => d.ky,
            Field::Di => d.di,
        }
    }

    /// The original's update_halo on one chunk: with `reflective_boundary`, the reflective
    /// update of `fields` to `depth` layers in its order (field by field, the left and right
    /// strips over the interior rows and `depth` halo rows, then the bottom and top strips over
    /// the columns including the halo, layer by layer); without it, nothing, as in the original
    /// (the face coefficients are zero there, so no halo value is ever used).
    pub fn update_halo(&mut self, fields: Fields, depth: i32) -> Result<()> {
        if !self.deck.reflective_boundary {
            return Ok(());
        }
        const ALL: [Field; 11] = [
            Field::Density,
            Field::Energy0,
            Field::Energy1,
            Field::U,
            Field::P,
            Field::Sd,
            Field::R,
            Field::Z,
            Field::Kx,
            Field::Ky,
            Field::Di,
        ];
        for f in ALL {
            if fields.contains(f) {
                let dat = self.field_dat(f);
                self.reflect(dat, depth)?;
            }
        }
        Ok(())
    }

    /// The reflective update of one field: the left and right strips over the interior rows and
    /// `depth` halo rows, then the bottom and top strips over the columns including the halo,
    /// layer by layer (the runtime's boundary fills, in that order).
    fn reflect(&mut self, dat: Dat<f64>, depth: i32) -> Result<()> {
        self.ops.fill_halos(&dat, depth, Boundary::REFLECT)?;
        Ok(())
    }

    // ------------------------------------------------------------------------------------------
    // tea_leaf_common
    // ------------------------------------------------------------------------------------------

    /// tea_leaf_init_common: `u = u0 = energy1 * density`, the face coefficients, the diagonal
    /// and the preconditioner's data. (The original also forms `w = A u` and `r = u - w` here;
    /// both are overwritten before anything reads them, so they are not computed.)
    pub fn init_common(&mut self) -> Result<()> {
        let (nx, ny, dep) = (self.nx, self.ny, self.depth);
        let (dx, dy) = (self.deck.dx(), self.deck.dy());
        // The original: dt / celldx(x_min)**2.
        self.rx = self.dt / (dx * dx);
        self.ry = self.dt / (dy * dy);
        let (rx, ry) = (self.rx, self.ry);
        let d = &self.d;
        let (e1, dens, u, u0, kx, ky, di, mi, cp, bfp) = (
            d.energy1, d.density, d.u, d.u0, d.kx, d.ky, d.di, d.mi, d.cp, d.bfp,
        );
        let s = &self.s;
        let (p00, lower, kxs, kys, block) = (s.p00, s.lower, s.kx, s.ky, s.block);
        self.run(
            init_u,
            "tea_leaf_init_common",
            self.interior(),
            &[
                e1.arg(&p00, Read),
                dens.arg(&p00, Read),
                u.arg(&p00, Write),
                u0.arg(&p00, Write),
            ],
        )?;
        let recip = i32::from(self.deck.coefficient == Coefficient::InverseDensity);
        let zero_boundary = i32::from(!self.deck.reflective_boundary);
        self.run(
            init_k,
            "tea_leaf_init_common",
            rg(-dep + 1, nx + dep, -dep + 1, ny + dep),
            &[
                dens.arg(&lower, Read),
                kx.arg(&p00, Write),
                ky.arg(&p00, Write),
                Arg::idx(),
                Arg::global(recip),
                Arg::global(zero_boundary),
                Arg::global(nx),
                Arg::global(ny),
            ],
        )?;
        let di_range = rg(-dep + 1, nx + dep - 1, -dep + 1, ny + dep - 1);
        self.run(
            init_di,
            "tea_leaf_init_common",
            di_range.clone(),
            &[
                kx.arg(&kxs, Read),
                ky.arg(&kys, Read),
                di.arg(&p00, Write),
                Arg::global(rx),
                Arg::global(ry),
            ],
        )?;
        match self.deck.preconditioner {
            Preconditioner::None => {}
            Preconditioner::JacDiag => {
                self.run(
                    init_mi,
                    "tea_leaf_init_common",
                    di_range,
                    &[di.arg(&p00, Read), mi.arg(&p00, Write)],
                )?;
            }
            Preconditioner::JacBlock => {
                self.run(
                    block_init,
                    "tea_leaf_init_common",
                    self.interior(),
                    &[
                        ky.arg(&block, Read),
                        di.arg(&block, Read),
                        cp.arg(&p00, Write),
                        bfp.arg(&p00, Write),
                        Arg::idx(),
                        Arg::global(ry),
                    ],
                )?;
            }
        }
        Ok(())
    }

    /// `dst = M⁻¹ src` on the interior for the block preconditioner.
    pub(crate) fn block_solve(&mut self, src: Dat<f64>, dst: Dat<f64>, name: &str) -> Result<()> {
        let d = &self.d;
        let (ky, di, cp, bfp) = (d.ky, d.di, d.cp, d.bfp);
        let (block, p00) = (self.s.block, self.s.p00);
        let (ry, ny) = (self.ry, self.ny);
        self.run(
            block_solve,
            name,
            self.interior(),
            &[
                src.arg(&block, Read),
                ky.arg(&block, Read),
                di.arg(&block, Read),
                cp.arg(&block, Read),
                bfp.arg(&block, Read),
                dst.arg(&p00, Write),
                Arg::idx(),
                Arg::global(ry),
                Arg::global(ny),
            ],
        )
    }

    /// `Σ a·b` over the interior (`name` profiles it): [`dot4`] over the rows in whole groups
    /// of 4, [`dot1`] over the rest, added in a fixed order.
    pub fn dot(&mut self, a: Dat<f64>, b: Dat<f64>, name: &str) -> Result<f64> {
        let (nx, ny) = (self.nx, self.ny);
        let ny4 = ny / 4 * 4;
        let mut total = 0.0;
        if ny4 > 0 {
            let st = self.s.dot;
            let r = &self.red.dot;
            let args = [
                a.arg(&st, Read),
                b.arg(&st, Read),
                Arg::idx(),
                r[0].arg(),
                r[1].arg(),
                r[2].arg(),
                r[3].arg(),
            ];
            self.run(dot4, name, rg(0, nx, 0, ny4), &args)?;
            let mut s = [0.0; 4];
            for (v, r) in s.iter_mut().zip(&self.red.dot) {
                *v = self.ops.reduction_result(r)?;
            }
            total = ((s[0] + s[1]) + s[2]) + s[3];
        }
        if ny4 < ny {
            let p00 = self.s.p00;
            let args = [a.arg(&p00, Read), b.arg(&p00, Read), self.sum_a()];
            self.run(dot1, name, rg(0, nx, ny4, ny), &args)?;
            total += self.take_a()?;
        }
        Ok(total)
    }

    /// calc_residual and the 2-norm of the residual: `r = u0 - A u`, returns `Σ r²`.
    pub fn calc_residual(&mut self) -> Result<f64> {
        let d = &self.d;
        let (u, u0, kx, ky, di, r) = (d.u, d.u0, d.kx, d.ky, d.di, d.r);
        let s = &self.s;
        let (p00, five, kxs, kys) = (s.p00, s.five, s.kx, s.ky);
        let (rx, ry) = (self.rx, self.ry);
        let sum = self.sum_a();
        self.run(
            calc_residual,
            "tea_leaf_calc_residual",
            self.interior(),
            &[
                u.arg(&five, Read),
                u0.arg(&p00, Read),
                kx.arg(&kxs, Read),
                ky.arg(&kys, Read),
                di.arg(&p00, Read),
                r.arg(&p00, Write),
                Arg::global(rx),
                Arg::global(ry),
                sum,
            ],
        )?;
        self.take_a()
    }

    /// `Σ a²` over the interior (calc_2norm).
    pub fn norm2(&mut self, a: Dat<f64>) -> Result<f64> {
        let p00 = self.s.p00;
        let sum = self.sum_a();
        self.run(
            norm2,
            "tea_leaf_calc_2norm",
            self.interior(),
            &[a.arg(&p00, Read), sum],
        )?;
        self.take_a()
    }

    /// tea_leaf_finalise: `energy1 = u / density`.
    pub fn finalise(&mut self) -> Result<()> {
        let (u, dens, e1, p00) = (self.d.u, self.d.density, self.d.energy1, self.s.p00);
        self.run(
            finalise,
            "tea_leaf_finalise",
            self.interior(),
            &[u.arg(&p00, Read), dens.arg(&p00, Read), e1.arg(&p00, Write)],
        )
    }

    /// field_summary: totals over the interior.
    pub fn field_summary(&mut self, iterations: u64) -> Result<Summary> {
        let d = &self.d;
        let (vol, dens, e1, u) = (d.volume, d.density, d.energy1, d.u);
        let p00 = self.s.p00;
        let r = &self.red.summary;
        let args = [
            vol.arg(&p00, Read),
            dens.arg(&p00, Read),
            e1.arg(&p00, Read),
            u.arg(&p00, Read),
            r[0].arg(),
            r[1].arg(),
            r[2].arg(),
            r[3].arg(),
        ];
        self.run(field_summary, "field_summary", self.interior(), &args)?;
        let mut out = [0.0; 4];
        for (o, r) in out.iter_mut().zip(&self.red.summary) {
            *o = self.ops.reduction_result(r)?;
        }
        Ok(Summary {
            step: self.step,
            time: self.time,
            volume: out[0],
            mass: out[1],
            density: out[1] / out[0],
            energy: out[2],
            temperature: out[3],
            iterations,
        })
    }
}
