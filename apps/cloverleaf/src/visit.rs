//! Visualisation dumps (`visit_frequency`): the fields as HDF5 plus an XDMF index that ParaView
//! and VisIt open. Built only with the `hdf5` cargo feature; without it the run says so once.

use std::path::{Path, PathBuf};

use crate::clover::Clover;

/// Writes dumps into a directory and keeps the XDMF time series up to date.
pub struct VisitWriter {
    dir: PathBuf,
    /// (step, time, file name) of every dump so far.
    dumps: Vec<(u64, f64, String)>,
}

/// Whether this build can write visualisation dumps.
pub const AVAILABLE: bool = cfg!(feature = "hdf5");

/// What a build without HDF5 prints when a deck asks for dumps.
pub const UNAVAILABLE_MESSAGE: &str = "visit_frequency is set, but this build has no HDF5 output \
     (rebuild with `--features hdf5`, which needs libhdf5-dev); no visualisation files are written";

impl VisitWriter {
    /// A writer into `dir` (created if missing).
    pub fn new(dir: &Path) -> std::io::Result<VisitWriter> {
        std::fs::create_dir_all(dir)?;
        Ok(VisitWriter {
            dir: dir.to_path_buf(),
            dumps: Vec::new(),
        })
    }

    /// The XDMF document for the dumps so far.
    fn xdmf(&self, nx: usize, ny: usize) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "<?xml version=\"1.0\" ?>");
        let _ = writeln!(s, "<Xdmf Version=\"3.0\">");
        let _ = writeln!(s, " <Domain>");
        let _ = writeln!(
            s,
            "  <Grid Name=\"clover\" GridType=\"Collection\" CollectionType=\"Temporal\">"
        );
        for (step, time, file) in &self.dumps {
            let _ = writeln!(s, "   <Grid Name=\"step{step}\" GridType=\"Uniform\">");
            let _ = writeln!(s, "    <Time Value=\"{time:e}\"/>");
            // XDMF lists dimensions slowest first: y then x.
            let _ = writeln!(
                s,
                "    <Topology TopologyType=\"2DRectMesh\" Dimensions=\"{} {}\"/>",
                ny + 1,
                nx + 1
            );
            let _ = writeln!(s, "    <Geometry GeometryType=\"VXVY\">");
            for (name, n) in [("vertexx", nx + 1), ("vertexy", ny + 1)] {
                let _ = writeln!(
                    s,
                    "     <DataItem Dimensions=\"{n}\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">{file}:/{name}</DataItem>"
                );
            }
            let _ = writeln!(s, "    </Geometry>");
            for name in ["density", "energy", "pressure", "viscosity"] {
                let _ = writeln!(
                    s,
                    "    <Attribute Name=\"{name}\" AttributeType=\"Scalar\" Center=\"Cell\">"
                );
                let _ = writeln!(
                    s,
                    "     <DataItem Dimensions=\"{ny} {nx}\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">{file}:/{name}</DataItem>"
                );
                let _ = writeln!(s, "    </Attribute>");
            }
            for name in ["xvel", "yvel"] {
                let _ = writeln!(
                    s,
                    "    <Attribute Name=\"{name}\" AttributeType=\"Scalar\" Center=\"Node\">"
                );
                let _ = writeln!(
                    s,
                    "     <DataItem Dimensions=\"{} {}\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">{file}:/{name}</DataItem>",
                    ny + 1,
                    nx + 1
                );
                let _ = writeln!(s, "    </Attribute>");
            }
            let _ = writeln!(s, "   </Grid>");
        }
        let _ = writeln!(s, "  </Grid>");
        let _ = writeln!(s, " </Domain>");
        let _ = writeln!(s, "</Xdmf>");
        s
    }

    /// Writes one dump of the current state and rewrites the XDMF index.
    pub fn dump(&mut self, clover: &mut Clover) -> Result<PathBuf, String> {
        clover.prepare_visit().map_err(|e| e.to_string())?;
        let name = format!("clover.{:06}.h5", clover.step);
        let path = self.dir.join(&name);
        write_hdf5(&path, clover)?;
        self.dumps.push((clover.step, clover.time, name));
        let xmf = self.dir.join("clover.xmf");
        std::fs::write(&xmf, self.xdmf(clover.nx as usize, clover.ny as usize))
            .map_err(|e| format!("{}: {e}", xmf.display()))?;
        Ok(path)
    }
}

#[cfg(feature = "hdf5")]
fn write_hdf5(path: &Path, clover: &mut Clover) -> Result<(), String> {
    let (nx, ny) = (clover.nx as usize, clover.ny as usize);
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let file = hdf5::File::create(path).map_err(|e| err(&e))?;
    let f = &clover.f;
    let cell = [
        ("density", f.density0),
        ("energy", f.energy0),
        ("pressure", f.pressure),
        ("viscosity", f.viscosity),
    ];
    for (name, dat) in cell {
        let v = clover.ops.fetch_data(&dat).map_err(|e| err(&e))?;
        file.new_dataset::<f64>()
            .shape([ny, nx])
            .create(name)
            .and_then(|d| d.write_raw(&v))
            .map_err(|e| err(&e))?;
    }
    for (name, dat) in [("xvel", f.xvel0), ("yvel", f.yvel0)] {
        let v = clover.ops.fetch_data(&dat).map_err(|e| err(&e))?;
        file.new_dataset::<f64>()
            .shape([ny + 1, nx + 1])
            .create(name)
            .and_then(|d| d.write_raw(&v))
            .map_err(|e| err(&e))?;
    }
    for (name, dat, n) in [
        ("vertexx", f.vertexx, nx + 1),
        ("vertexy", f.vertexy, ny + 1),
    ] {
        let v = clover.ops.fetch_data(&dat).map_err(|e| err(&e))?;
        file.new_dataset::<f64>()
            .shape([n])
            .create(name)
            .and_then(|d| d.write_raw(&v))
            .map_err(|e| err(&e))?;
    }
    let step = clover.step;
    let time = clover.time;
    file.new_attr::<u64>()
        .create("step")
        .and_then(|a| a.write_scalar(&step))
        .map_err(|e| err(&e))?;
    file.new_attr::<f64>()
        .create("time")
        .and_then(|a| a.write_scalar(&time))
        .map_err(|e| err(&e))?;
    Ok(())
}

#[cfg(not(feature = "hdf5"))]
fn write_hdf5(_path: &Path, _clover: &mut Clover) -> Result<(), String> {
    Err(UNAVAILABLE_MESSAGE.to_string())
}
