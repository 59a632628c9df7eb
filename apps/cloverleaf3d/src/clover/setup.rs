//! Set-up: initialise_chunk (mesh coordinates), generate_chunk (the states of the deck) and the
//! first equation of state and halo exchange.

use crate::kernels::setup::*;

use super::*;

impl Clover {
    /// initialise_chunk + generate_chunk + the first equation of state and halo exchange.
    ///
    /// Returns the states (1-based) whose region covers no interior cell.
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
                Field::ZVel0,
                Field::XVel1,
                Field::YVel1,
                Field::ZVel1,
            ],
            2,
        )?;
        Ok(empty)
    }

    /// Vertex and cell-centre coordinates and spacings along each axis.
    fn initialise_chunk(&mut self) -> Result<()> {
        let d = self.d;
        let origin = self.deck.min;
        let (f, s, g) = (&self.f, &self.s, &self.grid);
        let ops = &mut self.ops;
        let vertex = [
            (f.vertexx, f.vertexdx, f.cellx, f.celldx),
            (f.vertexy, f.vertexdy, f.celly, f.celldy),
            (f.vertexz, f.vertexdz, f.cellz, f.celldz),
        ];
        for (a, (v, vd, c, cd)) in vertex.into_iter().enumerate() {
            let n = self.n[a];
            // Along the axis: every vertex (-2..=n+2) and every cell (-2..=n+1) of the halo.
            let line = |lo: i32, hi: i32| {
                let mut r = [(0, 1); 3];
                r[a] = (lo, hi);
                rg(r[0], r[1], r[2])
            };
            let args = [
                v.arg(&s.point, Write),
                vd.arg(&s.point, Write),
                Arg::idx(),
                Arg::global(origin[a]),
                Arg::global(d[a]),
            ];
            let name = "initialise_chunk_vertex";
            match a {
                0 => ops.par_loop(init_vertex_x, name, g, line(-2, n + 3), &args)?,
                1 => ops.par_loop(init_vertex_y, name, g, line(-2, n + 3), &args)?,
                _ => ops.par_loop(init_vertex_z, name, g, line(-2, n + 3), &args)?,
            }
            let args = [
                v.arg(&s.axis[a].p0_1, Read),
                c.arg(&s.point, Write),
                cd.arg(&s.point, Write),
                Arg::global(d[a]),
            ];
            let name = "initialise_chunk_cell";
            match a {
                0 => ops.par_loop(init_cell_x, name, g, line(-2, n + 2), &args)?,
                1 => ops.par_loop(init_cell_y, name, g, line(-2, n + 2), &args)?,
                _ => ops.par_loop(init_cell_z, name, g, line(-2, n + 2), &args)?,
            }
        }
        Ok(())
    }

    /// State 1 everywhere, then each later state over the cells it covers (and the corners of
    /// those cells for its velocities). Returns the states covering no interior cell.
    fn generate_chunk(&mut self) -> Result<Vec<usize>> {
        let [nx, ny, nz] = self.n;
        let (f, s, g) = (&self.f, &self.s, &self.grid);
        let ops = &mut self.ops;
        let bg = &self.deck.states[0];
        ops.par_loop(
            generate_background_cells,
            "generate_chunk",
            g,
            rg((-2, nx + 2), (-2, ny + 2), (-2, nz + 2)),
            &[
                f.density0.arg(&s.point, Write),
                f.energy0.arg(&s.point, Write),
                Arg::global(bg.density),
                Arg::global(bg.energy),
            ],
        )?;
        ops.par_loop(
            generate_background_nodes,
            "generate_chunk",
            g,
            rg((-2, nx + 3), (-2, ny + 3), (-2, nz + 3)),
            &[
                f.xvel0.arg(&s.point, Write),
                f.yvel0.arg(&s.point, Write),
                f.zvel0.arg(&s.point, Write),
                Arg::global(bg.velocity[0]),
                Arg::global(bg.velocity[1]),
                Arg::global(bg.velocity[2]),
            ],
        )?;
        let [ax, ay, az] = &s.axis;
        let mut empty = Vec::new();
        for n in 1..self.deck.states.len() {
            let st = &self.deck.states[n];
            let geometry = st.geometry.map_or(0, |g| g.code());
            let b = self.deck.generator_bounds(n);
            let region = [
                Arg::global(geometry),
                Arg::global(b.min[0]),
                Arg::global(b.max[0]),
                Arg::global(b.min[1]),
                Arg::global(b.max[1]),
                Arg::global(b.min[2]),
                Arg::global(b.max[2]),
                Arg::global(b.radius),
            ];
            let cell_coords = [
                f.vertexx.arg(&ax.s0_1, Read),
                f.vertexy.arg(&ay.s0_1, Read),
                f.vertexz.arg(&az.s0_1, Read),
                f.cellx.arg(&ax.s0, Read),
                f.celly.arg(&ay.s0, Read),
                f.cellz.arg(&az.s0, Read),
            ];
            let mut args: Vec<Arg> = cell_coords.to_vec();
            args.extend([
                f.density0.arg(&s.point, ReadWrite),
                f.energy0.arg(&s.point, ReadWrite),
            ]);
            args.extend(region);
            args.extend([Arg::global(st.density), Arg::global(st.energy)]);
            ops.par_loop(
                generate_state_cells,
                "generate_chunk",
                g,
                rg((-2, nx + 2), (-2, ny + 2), (-2, nz + 2)),
                &args,
            )?;
            // Nodes whose eight neighbouring cells all exist; the outermost halo layer of nodes
            // is rewritten by the halo exchange that follows generation.
            let mut args = vec![
                f.vertexx.arg(&ax.sm1_1, Read),
                f.vertexy.arg(&ay.sm1_1, Read),
                f.vertexz.arg(&az.sm1_1, Read),
                f.cellx.arg(&ax.sm1_0, Read),
                f.celly.arg(&ay.sm1_0, Read),
                f.cellz.arg(&az.sm1_0, Read),
                f.xvel0.arg(&s.point, ReadWrite),
                f.yvel0.arg(&s.point, ReadWrite),
                f.zvel0.arg(&s.point, ReadWrite),
            ];
            args.extend(region);
            args.extend(st.velocity.map(Arg::global));
            ops.par_loop(
                generate_state_nodes,
                "generate_chunk",
                g,
                rg((-1, nx + 2), (-1, ny + 2), (-1, nz + 2)),
                &args,
            )?;
            let mut args: Vec<Arg> = cell_coords.to_vec();
            args.extend(region);
            args.push(self.red_count.arg());
            ops.par_loop(
                count_state_cells,
                "generate_chunk_count",
                g,
                rg((0, nx), (0, ny), (0, nz)),
                &args,
            )?;
            if ops.reduction_result(&self.red_count)? == 0.0 {
                empty.push(n + 1);
            }
        }
        Ok(empty)
    }
}
