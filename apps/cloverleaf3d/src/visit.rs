//! Visualisation dumps (`visit_frequency`): the fields as HDF5 (`clover.NNNNNN.h5`: density,
//! energy, pressure, viscosity per cell; xvel, yvel, zvel per node; the mesh's node coordinates
//! in `/mesh`) plus `clover.xmf`, an XDMF time series that ParaView and VisIt open. Written by
//! the runtime's dataset output (`ops::io`), in global index space, under MPI too (every process
//! calls it, process 0 writes).

use std::path::{Path, PathBuf};

use ops::io::{Mesh, Series};

use crate::clover::Clover;
use crate::AppError;

/// Writes dumps into a directory and keeps the XDMF time series up to date.
pub struct VisitWriter {
    series: Series,
}

impl VisitWriter {
    /// A writer into `dir` (created if missing).
    pub fn new(dir: &Path) -> std::io::Result<VisitWriter> {
        std::fs::create_dir_all(dir)?;
        Ok(VisitWriter {
            series: Series::new(dir.join("clover.xmf")),
        })
    }

    /// Writes one dump of the current state and extends the series.
    pub fn dump(&mut self, clover: &mut Clover) -> Result<PathBuf, AppError> {
        clover.prepare_visit()?;
        let (f, ops) = (&clover.f, &mut clover.ops);
        let mesh = Mesh::rectilinear(vec![
            ops.fetch_data(&f.vertexx)?,
            ops.fetch_data(&f.vertexy)?,
            ops.fetch_data(&f.vertexz)?,
        ]);
        let fields = [
            ("density", f.density0),
            ("energy", f.energy0),
            ("pressure", f.pressure),
            ("viscosity", f.viscosity),
            ("xvel", f.xvel0),
            ("yvel", f.yvel0),
            ("zvel", f.zvel0),
        ];
        let when = (clover.step, clover.time);
        Ok(self.series.dump_step(ops, when, mesh, &fields)?)
    }
}
