//! Advection: three directional sweeps per step, each cell advection (density, energy) then
//! momentum advection (the three velocity components). Odd steps sweep x, y, z; even steps
//! z, y, x, as the original alternates them.

use crate::kernels::{advec_cell::*, advec_mom::*, volumes::*};

use super::*;

/// The fields cell advection reads through halos.
const CELL_HALOS: [Field; 5] = [
    Field::Energy1,
    Field::Density1,
    Field::VolFluxX,
    Field::VolFluxY,
    Field::VolFluxZ,
];

/// The fields momentum advection reads through halos.
const MOM_HALOS: [Field; 8] = [
    Field::Density1,
    Field::Energy1,
    Field::XVel1,
    Field::YVel1,
    Field::ZVel1,
    Field::MassFluxX,
    Field::MassFluxY,
    Field::MassFluxZ,
];

impl Clover {
    /// advection: the three sweeps, x or z first as `advect_x` says, with the original's halo
    /// refreshes between them ([`HaloPlan::Original`]) or only the parts of them a later loop
    /// reads ([`HaloPlan::Needed`]):
    ///
    /// - the refresh of the cell-advection fields before the second sweep is left out: none of
    ///   them changed since they were last refreshed, and the few halo corners a second
    ///   reflection would change (the original's short strips) are not read before the next
    ///   step refreshes them again;
    /// - before a momentum sweep along an axis, the velocities are reflected on that axis's
    ///   sides only (the only halo points momentum advection reads of them), the mass fluxes
    ///   through the other axes' faces not at all (only their own sweep reads them, after its
    ///   own refresh), and energy1 not before the last sweep (the next cell sweep is the only
    ///   reader).
    pub fn advection(&mut self) -> Result<()> {
        let (first, last) = if self.advect_x { (0, 2) } else { (2, 0) };
        let original = self.halos == HaloPlan::Original;
        self.update_halo(&CELL_HALOS, 2)?;
        self.advec_cell(1, first)?;
        self.momentum_halos(first, false)?;
        self.advec_mom(1, first)?;
        if original {
            self.update_halo(&CELL_HALOS, 2)?;
        }
        self.advec_cell(2, 1)?;
        self.momentum_halos(1, false)?;
        self.advec_mom(2, 1)?;
        self.advec_cell(3, last)?;
        self.momentum_halos(last, true)?;
        self.advec_mom(3, last)
    }

    /// The halo refresh before the momentum sweep along `axis` (`last`: the step's third).
    fn momentum_halos(&mut self, axis: usize, last: bool) -> Result<()> {
        if self.halos == HaloPlan::Original {
            return self.update_halo(&MOM_HALOS, 2);
        }
        let mass_flux = [Field::MassFluxX, Field::MassFluxY, Field::MassFluxZ][axis];
        if last {
            self.update_halo(&[Field::Density1, mass_flux], 2)?;
        } else {
            self.update_halo(&[Field::Density1, Field::Energy1, mass_flux], 2)?;
        }
        self.update_halo_along(&[Field::XVel1, Field::YVel1, Field::ZVel1], axis, 2)
    }

    /// The volume fluxes' arguments (read through their upper neighbour along their axis).
    fn vol_flux_args(&self, axis: usize) -> Arg {
        let dat = [self.f.vol_flux_x, self.f.vol_flux_y, self.f.vol_flux_z][axis];
        dat.arg(&self.s.axis[axis].p0_1, Read)
    }

    /// Writes into `out`, over `range`, the cell volume plus the divergence of the volume fluxes
    /// along `axes`, in that order (a momentum sweep's cell volumes after it).
    fn volume_after(
        &mut self,
        axes: VolumeAfter,
        out: Dat<f64>,
        range: [Range<i32>; 3],
    ) -> Result<()> {
        let vol = Arg::global(self.volume());
        let w = out.arg(&self.s.point, Write);
        let fx = self.vol_flux_args(0);
        let fy = self.vol_flux_args(1);
        let fz = self.vol_flux_args(2);
        let (ops, g) = (&mut self.ops, &self.grid);
        let name = "advec_volume";
        match axes {
            VolumeAfter::YZ => ops.par_loop(vol_after_y_z, name, g, range, &[fy, fz, w, vol]),
            VolumeAfter::XY => ops.par_loop(vol_after_x_y, name, g, range, &[fx, fy, w, vol]),
            VolumeAfter::X => ops.par_loop(vol_after_x, name, g, range, &[fx, w, vol]),
            VolumeAfter::Z => ops.par_loop(vol_after_z, name, g, range, &[fz, w, vol]),
        }
    }

    /// Cell advection of density and energy along `axis` in sweep `sweep` (1..=3).
    pub fn advec_cell(&mut self, sweep: u32, axis: usize) -> Result<()> {
        let [nx, ny, nz] = self.n;
        // Faces normal to the axis where the original computes fluxes: the interior ones and,
        // along the axis, one more layer on the high side; across it, the interior for the x
        // and z sweeps and two more layers on the high side of z for the y sweep. The values
        // beyond the interior are overwritten by the next halo refresh, except in a few corners
        // that the original's reflections leave alone (see `halo`), which is why they are
        // computed as it does.
        let mut faces = [(0, nx), (0, ny), (0, nz)];
        faces[axis].1 += 1;
        if axis == 1 {
            faces[2].1 += 2;
        }
        let mut edge = faces;
        edge[axis] = (faces[axis].1, faces[axis].1 + 1);
        // The volume fluxes still to come, which make the cell volumes before the sweep.
        let remaining: &[usize] = match (axis, sweep) {
            (0 | 2, 1) => &[0, 1, 2],
            (1, _) if self.advect_x => &[1, 2],
            (1, _) => &[1, 0],
            _ => &[axis],
        };
        let vol = Arg::global(self.volume());
        let (f, s, g) = (&self.f, &self.s, &self.grid);
        let ops = &mut self.ops;
        let ener_flux = &f.mom_flux_x;
        let st = &s.axis[axis];
        let vol_flux = [f.vol_flux_x, f.vol_flux_y, f.vol_flux_z];
        let mass_flux = [f.mass_flux_x, f.mass_flux_y, f.mass_flux_z][axis];
        // Every volume flux the kernels read, in x, y, z order: the sweep's own at the faces
        // of the two cells beside a face (or of the cell), the others at those cells' faces.
        let fluxes = |update: bool| -> Vec<Arg> {
            (0..3)
                .filter(|b| *b == axis || remaining.contains(b))
                .map(|b| {
                    let stencil = match (update, b == axis) {
                        (true, _) => &s.axis[b].p0_1,
                        (false, true) => &st.m1_p1,
                        (false, false) => &s.beside[axis][b],
                    };
                    vol_flux[b].arg(stencil, Read)
                })
                .collect()
        };
        let flux_args = |cells: &Stencil| {
            let mut args = fluxes(false);
            args.extend([
                f.density1.arg(cells, Read),
                f.energy1.arg(cells, Read),
                mass_flux.arg(&s.point, Write),
                ener_flux.arg(&s.point, Write),
                vol,
            ]);
            args
        };
        let name = "advec_cell_flux";
        let (main, last) = (
            rg(faces[0], faces[1], faces[2]),
            rg(edge[0], edge[1], edge[2]),
        );
        let (args, edge_args) = (flux_args(&st.m2_p1), flux_args(&st.m2_0));
        let mut update_args = vec![
            f.density1.arg(&s.point, ReadWrite),
            f.energy1.arg(&s.point, ReadWrite),
            mass_flux.arg(&st.p0_1, Read),
        ];
        update_args.extend(fluxes(true));
        update_args.extend([ener_flux.arg(&st.p0_1, Read), vol]);
        let cells = rg((0, nx), (0, ny), (0, nz));
        let uname = "advec_cell_update";
        match (axis, remaining.len()) {
            (0, 3) => {
                ops.par_loop(advec_cell_flux_x_all, name, g, main, &args)?;
                ops.par_loop(advec_cell_flux_x_all_edge, name, g, last, &edge_args)?;
                ops.par_loop(advec_cell_update_x_all, uname, g, cells, &update_args)
            }
            (0, _) => {
                ops.par_loop(advec_cell_flux_x_x, name, g, main, &args)?;
                ops.par_loop(advec_cell_flux_x_x_edge, name, g, last, &edge_args)?;
                ops.par_loop(advec_cell_update_x_x, uname, g, cells, &update_args)
            }
            (1, _) if remaining[1] == 2 => {
                ops.par_loop(advec_cell_flux_y_yz, name, g, main, &args)?;
                ops.par_loop(advec_cell_flux_y_yz_edge, name, g, last, &edge_args)?;
                ops.par_loop(advec_cell_update_y_yz, uname, g, cells, &update_args)
            }
            (1, _) => {
                ops.par_loop(advec_cell_flux_y_yx, name, g, main, &args)?;
                ops.par_loop(advec_cell_flux_y_yx_edge, name, g, last, &edge_args)?;
                ops.par_loop(advec_cell_update_y_yx, uname, g, cells, &update_args)
            }
            (_, 3) => {
                ops.par_loop(advec_cell_flux_z_all, name, g, main, &args)?;
                ops.par_loop(advec_cell_flux_z_all_edge, name, g, last, &edge_args)?;
                ops.par_loop(advec_cell_update_z_all, uname, g, cells, &update_args)
            }
            _ => {
                ops.par_loop(advec_cell_flux_z_z, name, g, main, &args)?;
                ops.par_loop(advec_cell_flux_z_z_edge, name, g, last, &edge_args)?;
                ops.par_loop(advec_cell_update_z_z, uname, g, cells, &update_args)
            }
        }
    }

    /// Momentum advection of the three velocity components along `axis` in sweep `sweep`.
    pub fn advec_mom(&mut self, sweep: u32, axis: usize) -> Result<()> {
        let [nx, ny, nz] = self.n;
        let n = self.n[axis];
        // Along the axis the staggered cells reach two nodes into the halo; across it, the
        // interior nodes.
        let span = |lo: i32, hi: i32| {
            let mut e = [(0, nx + 1), (0, ny + 1), (0, nz + 1)];
            e[axis] = (lo, hi);
            rg(e[0], e[1], e[2])
        };
        // The cell volumes after the sweep, where the staggered masses need them; after the
        // last sweep every cell has its original volume again.
        let post_vol = self.f.work_cell;
        let after = match (sweep, axis) {
            (1, 0) => Some(VolumeAfter::YZ),
            (1, _) => Some(VolumeAfter::XY),
            (2, _) if self.advect_x => Some(VolumeAfter::Z),
            (2, _) => Some(VolumeAfter::X),
            _ => None,
        };
        if let Some(which) = after {
            let mut e = [(-1, nx + 1), (-1, ny + 1), (-1, nz + 1)];
            e[axis] = (-2, n + 2);
            self.volume_after(which, post_vol, rg(e[0], e[1], e[2]))?;
        }

        let vol = self.volume();
        let width = self.d[axis];
        let (f, s, g) = (&self.f, &self.s, &self.grid);
        let ops = &mut self.ops;
        let st = &s.axis[axis];
        let mass_flux = [f.mass_flux_x, f.mass_flux_y, f.mass_flux_z][axis];
        // The staggered masses after the sweep and the staggered mass fluxes; the masses before
        // the sweep are made from them where they are needed. The momentum fluxes reach the
        // staggered mass flux of one node layer more, on the low side.
        let faces = mass_flux.arg(&st.node_faces, Read);
        let node_flux = f.node_flux.arg(&s.point, Write);
        let name = "advec_mom_node_flux";
        let range = span(-2, -1);
        match axis {
            0 => ops.par_loop(advec_mom_node_flux_x, name, g, range, &[faces, node_flux])?,
            1 => ops.par_loop(advec_mom_node_flux_y, name, g, range, &[faces, node_flux])?,
            _ => ops.par_loop(advec_mom_node_flux_z, name, g, range, &[faces, node_flux])?,
        }
        let name = "advec_mom_node_mass";
        let range = span(-1, n + 2);
        let density = f.density1.arg(&s.box_m, Read);
        let post = f.node_mass_post.arg(&s.point, Write);
        if after.is_some() {
            let args = [
                density,
                post_vol.arg(&s.box_m, Read),
                faces,
                node_flux,
                post,
            ];
            match axis {
                0 => ops.par_loop(advec_mom_node_mass_x, name, g, range, &args)?,
                1 => ops.par_loop(advec_mom_node_mass_y, name, g, range, &args)?,
                _ => ops.par_loop(advec_mom_node_mass_z, name, g, range, &args)?,
            }
        } else {
            let args = [density, faces, node_flux, post, Arg::global(vol)];
            match axis {
                0 => ops.par_loop(advec_mom_node_mass_x_last, name, g, range, &args)?,
                1 => ops.par_loop(advec_mom_node_mass_y_last, name, g, range, &args)?,
                _ => ops.par_loop(advec_mom_node_mass_z_last, name, g, range, &args)?,
            }
        }
        let name = "advec_mom_flux";
        let range = span(-1, n + 1);
        let args = [
            f.node_flux.arg(&st.m1_p1, Read),
            f.node_mass_post.arg(&st.p0_1, Read),
            f.xvel1.arg(&st.m1_p2, Read),
            f.yvel1.arg(&st.m1_p2, Read),
            f.zvel1.arg(&st.m1_p2, Read),
            f.mom_flux_x.arg(&s.point, Write),
            f.mom_flux_y.arg(&s.point, Write),
            f.mom_flux_z.arg(&s.point, Write),
            Arg::global(width),
        ];
        match axis {
            0 => ops.par_loop(advec_mom_flux_x, name, g, range, &args)?,
            1 => ops.par_loop(advec_mom_flux_y, name, g, range, &args)?,
            _ => ops.par_loop(advec_mom_flux_z, name, g, range, &args)?,
        }
        let name = "advec_mom_update";
        let range = span(0, n + 1);
        let args = [
            f.xvel1.arg(&s.point, ReadWrite),
            f.yvel1.arg(&s.point, ReadWrite),
            f.zvel1.arg(&s.point, ReadWrite),
            f.node_mass_post.arg(&s.point, Read),
            f.node_flux.arg(&st.m1_0, Read),
            f.mom_flux_x.arg(&st.m1_0, Read),
            f.mom_flux_y.arg(&st.m1_0, Read),
            f.mom_flux_z.arg(&st.m1_0, Read),
        ];
        match axis {
            0 => ops.par_loop(advec_mom_update_x, name, g, range, &args),
            1 => ops.par_loop(advec_mom_update_y, name, g, range, &args),
            _ => ops.par_loop(advec_mom_update_z, name, g, range, &args),
        }
    }
}

/// Which volume fluxes a cell volume after a momentum sweep adds, in order (see
/// [`crate::kernels::volumes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VolumeAfter {
    YZ,
    XY,
    X,
    Z,
}
