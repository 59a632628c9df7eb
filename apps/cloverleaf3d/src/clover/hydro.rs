//! The Lagrangian part of a step and its helpers: ideal_gas, viscosity, calc_dt and timestep,
//! PdV (predictor and corrector) with revert, accelerate, flux_calc, reset_field, and the field
//! summary.

use crate::kernels::hydro::*;

use super::*;

/// The smallest stable step over the cells, where it is and which limit sets it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DtCell {
    /// The step.
    pub dt: f64,
    /// Which of the cell's limits is smallest.
    pub control: DtControl,
    /// The cell (1-based).
    pub cell: [i64; 3],
    /// Its centre.
    pub pos: [f64; 3],
}

impl Clover {
    /// The interior cells.
    fn cells(&self) -> [Range<i32>; 3] {
        let [nx, ny, nz] = self.n;
        rg((0, nx), (0, ny), (0, nz))
    }

    /// The interior nodes.
    fn nodes(&self) -> [Range<i32>; 3] {
        let [nx, ny, nz] = self.n;
        rg((0, nx + 1), (0, ny + 1), (0, nz + 1))
    }

    /// Equation of state on the interior, from density0/energy0 (or density1/energy1 when
    /// `predict`).
    pub fn ideal_gas(&mut self, predict: bool) -> Result<()> {
        let f = &self.f;
        let (d, e) = if predict {
            (&f.density1, &f.energy1)
        } else {
            (&f.density0, &f.energy0)
        };
        let p = &self.s.point;
        let range = self.cells();
        self.ops.par_loop(
            ideal_gas,
            "ideal_gas",
            &self.grid,
            range,
            &[
                d.arg(p, Read),
                e.arg(p, Read),
                f.pressure.arg(p, Write),
                f.soundspeed.arg(p, Write),
            ],
        )
    }

    /// Artificial viscosity on the interior.
    pub fn viscosity(&mut self) -> Result<()> {
        let (f, s) = (&self.f, &self.s);
        let [dx, dy, dz] = self.d;
        let range = self.cells();
        let areas = [self.area(0), self.area(1), self.area(2)];
        self.ops.par_loop(
            viscosity_kernel,
            "viscosity",
            &self.grid,
            range,
            &[
                f.xvel0.arg(&s.box_p, Read),
                f.yvel0.arg(&s.box_p, Read),
                f.zvel0.arg(&s.box_p, Read),
                f.pressure.arg(&s.cross, Read),
                f.density0.arg(&s.point, Read),
                f.viscosity.arg(&s.point, Write),
                Arg::global(dx),
                Arg::global(dy),
                Arg::global(dz),
                Arg::global(areas[0]),
                Arg::global(areas[1]),
                Arg::global(areas[2]),
            ],
        )
    }

    /// The globals `calc_dt` and `calc_dt_report` share, in their order: `ds`, `g_small`, the
    /// five safety factors, the cell volume and the three face areas.
    fn dt_globals(&self) -> [Arg; 11] {
        let d = &self.deck;
        let m = self.d[0].min(self.d[1]).min(self.d[2]);
        [
            1.0 / (m * m),
            G_SMALL,
            d.dtc_safe,
            d.dtu_safe,
            d.dtv_safe,
            d.dtw_safe,
            d.dtdiv_safe,
            self.volume(),
            self.area(0),
            self.area(1),
            self.area(2),
        ]
        .map(Arg::global)
    }

    /// calc_dt: the smallest stable step over the interior, the cell that sets it and why.
    pub fn calc_dt(&mut self) -> Result<DtCell> {
        let [nx, ny, _] = self.n;
        let range = self.cells();
        let globals = self.dt_globals();
        let (f, s, g) = (&self.f, &self.s, &self.grid);
        let ops = &mut self.ops;
        let mut args = vec![
            f.soundspeed.arg(&s.point, Read),
            f.viscosity.arg(&s.point, Read),
            f.density0.arg(&s.point, Read),
            f.xvel0.arg(&s.box_p, Read),
            f.yvel0.arg(&s.box_p, Read),
            f.zvel0.arg(&s.box_p, Read),
            f.work_cell.arg(&s.point, Write),
        ];
        args.extend(globals);
        ops.par_loop(calc_dt, "calc_dt", g, range.clone(), &args)?;
        ops.par_loop(
            calc_dt_min,
            "calc_dt_min",
            g,
            range.clone(),
            &[f.work_cell.arg(&s.point, Read), self.red_dt.arg()],
        )?;
        // As the original: the step starts from its big number and takes any smaller cell's.
        let dt_min = ops.reduction_result(&self.red_dt)?.min(G_BIG);
        ops.par_loop(
            calc_dt_locate,
            "calc_dt_locate",
            g,
            range,
            &[
                f.work_cell.arg(&s.point, Read),
                Arg::idx(),
                Arg::global(dt_min),
                Arg::global(nx as f64),
                Arg::global(ny as f64),
                self.red_loc.arg(),
            ],
        )?;
        let loc = ops.reduction_result(&self.red_loc)?;
        if !loc.is_finite() {
            // No cell matched (the minimum is NaN or the big number): report the first cell.
            return Ok(DtCell {
                dt: dt_min,
                control: DtControl::Sound,
                cell: [1, 1, 1],
                pos: [f64::NAN; 3],
            });
        }
        let loc = loc as i64;
        let (nx, ny) = (nx as i64, ny as i64);
        let cell = [loc % nx, (loc / nx) % ny, loc / (nx * ny)].map(|c| c as i32);
        let at = rg(
            (cell[0], cell[0] + 1),
            (cell[1], cell[1] + 1),
            (cell[2], cell[2] + 1),
        );
        let mut args = vec![
            f.cellx.arg(&s.axis[0].s0, Read),
            f.celly.arg(&s.axis[1].s0, Read),
            f.cellz.arg(&s.axis[2].s0, Read),
            f.soundspeed.arg(&s.point, Read),
            f.viscosity.arg(&s.point, Read),
            f.density0.arg(&s.point, Read),
            f.xvel0.arg(&s.box_p, Read),
            f.yvel0.arg(&s.box_p, Read),
            f.zvel0.arg(&s.box_p, Read),
        ];
        args.extend(globals);
        args.extend(self.red_out.iter().map(|r| r.arg()));
        ops.par_loop(calc_dt_report, "calc_dt_report", g, at, &args)?;
        let mut out = [0.0; 8];
        for (o, r) in out.iter_mut().zip(&self.red_out) {
            *o = ops.reduction_result(r)?;
        }
        let limits = [
            DtControl::Sound,
            DtControl::XVel,
            DtControl::YVel,
            DtControl::ZVel,
            DtControl::Div,
        ];
        let control = limits
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
            cell: cell.map(|c| c as i64 + 1),
            pos: [out[5], out[6], out[7]],
        })
    }

    /// The original's `timestep`: equation of state, halos, viscosity, calc_dt and the growth
    /// and size limits. Sets `dt` and `dtold`. (The original refreshes the halos of xvel0 and
    /// yvel0 here but not zvel0's; no loop reads a velocity's halo before the next refresh of
    /// the end-of-step velocities, so this port does the same.)
    pub fn timestep(&mut self) -> Result<StepInfo> {
        self.ideal_gas(false)?;
        if self.halos == HaloPlan::Original {
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
        } else {
            // No loop reads the halos of energy0, xvel0 or yvel0 (the original refreshes them).
            self.update_halo(&[Field::Pressure, Field::Density0], 1)?;
        }
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
        let range = self.cells();
        let geometry = [
            Arg::global(self.dt),
            Arg::global(self.volume()),
            Arg::global(self.area(0)),
            Arg::global(self.area(1)),
            Arg::global(self.area(2)),
        ];
        {
            let (f, s, g) = (&self.f, &self.s, &self.grid);
            if predict {
                let mut args = vec![
                    f.xvel0.arg(&s.box_p, Read),
                    f.yvel0.arg(&s.box_p, Read),
                    f.zvel0.arg(&s.box_p, Read),
                    f.pressure.arg(&s.point, Read),
                    f.viscosity.arg(&s.point, Read),
                    f.density0.arg(&s.point, Read),
                    f.density1.arg(&s.point, Write),
                    f.energy0.arg(&s.point, Read),
                    f.energy1.arg(&s.point, Write),
                ];
                args.extend(geometry);
                self.ops
                    .par_loop(pdv_predict, "PdV_predict", g, range, &args)?;
            } else {
                let mut args = vec![
                    f.xvel0.arg(&s.box_p, Read),
                    f.xvel1.arg(&s.box_p, Read),
                    f.yvel0.arg(&s.box_p, Read),
                    f.yvel1.arg(&s.box_p, Read),
                    f.zvel0.arg(&s.box_p, Read),
                    f.zvel1.arg(&s.box_p, Read),
                    f.pressure.arg(&s.point, Read),
                    f.viscosity.arg(&s.point, Read),
                    f.density0.arg(&s.point, Read),
                    f.density1.arg(&s.point, Write),
                    f.energy0.arg(&s.point, Read),
                    f.energy1.arg(&s.point, Write),
                ];
                args.extend(geometry);
                self.ops
                    .par_loop(pdv_correct, "PdV_correct", g, range, &args)?;
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
        let (f, p) = (&self.f, &self.s.point);
        let range = self.cells();
        self.ops.par_loop(
            copy2,
            "revert",
            &self.grid,
            range,
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
        let range = self.nodes();
        self.ops.par_loop(
            accelerate,
            "accelerate",
            &self.grid,
            range,
            &[
                f.density0.arg(&s.box_m, Read),
                f.pressure.arg(&s.box_m, Read),
                f.viscosity.arg(&s.box_m, Read),
                f.xvel0.arg(&s.point, Read),
                f.yvel0.arg(&s.point, Read),
                f.zvel0.arg(&s.point, Read),
                f.xvel1.arg(&s.point, Write),
                f.yvel1.arg(&s.point, Write),
                f.zvel1.arg(&s.point, Write),
                Arg::global(self.dt),
                Arg::global(self.volume()),
                Arg::global(self.area(0)),
                Arg::global(self.area(1)),
                Arg::global(self.area(2)),
            ],
        )
    }

    /// flux_calc: volume fluxes through the faces over the step.
    pub fn flux_calc(&mut self) -> Result<()> {
        let [nx, ny, nz] = self.n;
        let dt = self.dt;
        let areas = [self.area(0), self.area(1), self.area(2)];
        let (f, s, g) = (&self.f, &self.s, &self.grid);
        self.ops.par_loop(
            flux_calc_x,
            "flux_calc_x",
            g,
            rg((0, nx + 1), (0, ny), (0, nz)),
            &[
                f.xvel0.arg(&s.axis[0].face, Read),
                f.xvel1.arg(&s.axis[0].face, Read),
                f.vol_flux_x.arg(&s.point, Write),
                Arg::global(dt),
                Arg::global(areas[0]),
            ],
        )?;
        self.ops.par_loop(
            flux_calc_y,
            "flux_calc_y",
            g,
            rg((0, nx), (0, ny + 1), (0, nz)),
            &[
                f.yvel0.arg(&s.axis[1].face, Read),
                f.yvel1.arg(&s.axis[1].face, Read),
                f.vol_flux_y.arg(&s.point, Write),
                Arg::global(dt),
                Arg::global(areas[1]),
            ],
        )?;
        self.ops.par_loop(
            flux_calc_z,
            "flux_calc_z",
            g,
            rg((0, nx), (0, ny), (0, nz + 1)),
            &[
                f.zvel0.arg(&s.axis[2].face, Read),
                f.zvel1.arg(&s.axis[2].face, Read),
                f.vol_flux_z.arg(&s.point, Write),
                Arg::global(dt),
                Arg::global(areas[2]),
            ],
        )
    }

    /// reset_field: the end-of-step values become the start-of-step values.
    pub fn reset_field(&mut self) -> Result<()> {
        let (cells, nodes) = (self.cells(), self.nodes());
        let (f, p) = (&self.f, &self.s.point);
        self.ops.par_loop(
            copy2,
            "reset_field_cells",
            &self.grid,
            cells,
            &[
                f.density1.arg(p, Read),
                f.density0.arg(p, Write),
                f.energy1.arg(p, Read),
                f.energy0.arg(p, Write),
            ],
        )?;
        self.ops.par_loop(
            copy3,
            "reset_field_nodes",
            &self.grid,
            nodes,
            &[
                f.xvel1.arg(p, Read),
                f.xvel0.arg(p, Write),
                f.yvel1.arg(p, Read),
                f.yvel0.arg(p, Write),
                f.zvel1.arg(p, Read),
                f.zvel0.arg(p, Write),
            ],
        )
    }

    /// One full step of the original's hydro loop; returns the time-step report. When the step
    /// is below `dtmin` nothing else is done (the caller stops the run).
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
        let range = self.cells();
        let (f, s) = (&self.f, &self.s);
        self.ops.par_loop(
            field_summary,
            "field_summary",
            &self.grid,
            range,
            &[
                f.density0.arg(&s.point, Read),
                f.energy0.arg(&s.point, Read),
                f.pressure.arg(&s.point, Read),
                f.xvel0.arg(&s.box_p, Read),
                f.yvel0.arg(&s.box_p, Read),
                f.zvel0.arg(&s.box_p, Read),
                Arg::global(self.volume()),
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
        self.update_halo(
            &[Field::Pressure, Field::XVel0, Field::YVel0, Field::ZVel0],
            1,
        )?;
        self.viscosity()
    }
}
