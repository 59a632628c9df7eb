//! Visualisation dumps (`visit_frequency`): the fields as HDF5 plus an XDMF index that ParaView
//! and VisIt open. Built only with the `hdf5` cargo feature; without it the run says so once.

use std::fmt::Write as _;
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

/// The cell-centred fields of a dump.
const CELL_FIELDS: [&str; 4] = ["density", "energy", "pressure", "viscosity"];
/// The node-centred fields of a dump.
const NODE_FIELDS: [&str; 3] = ["xvel", "yvel", "zvel"];

impl VisitWriter {
    /// A writer into `dir` (created if missing).
    pub fn new(dir: &Path) -> std::io::Result<VisitWriter> {
        std::fs::create_dir_all(dir)?;
        Ok(VisitWriter {
            dir: dir.to_path_buf(),
            dumps: Vec::new(),
        })
    }

    /// The XDMF document for the dumps so far (dimensions listed slowest first: z, y, x).
    fn xdmf(&self, [nx, ny, nz]: [usize; 3]) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "<?xml version=\"1.0\" ?>");
        let _ = writeln!(s, "<Xdmf Version=\"3.0\">");
        let _ = writeln!(s, " <Domain>");
        let _ = writeln!(
            s,
            "  <Grid Name=\"clover\" GridType=\"Collection\" CollectionType=\"Temporal\">"
        );
        let item = |s: &mut String, dims: &str, file: &str, name: &str| {
            let _ = writeln!(
                s,
                "     <DataItem Dimensions=\"{dims}\" NumberType=\"Float\" Precision=\"8\" \
                 Format=\"HDF\">{file}:/{name}</DataItem>"
            );
        };
        let nodes = format!("{} {} {}", nz + 1, ny + 1, nx + 1);
        let cells = format!("{nz} {ny} {nx}");
        for (step, time, file) in &self.dumps {
            let _ = writeln!(s, "   <Grid Name=\"step{step}\" GridType=\"Uniform\">");
            let _ = writeln!(s, "    <Time Value=\"{time:e}\"/>");
            let _ = writeln!(
                s,
                "    <Topology TopologyType=\"3DRectMesh\" Dimensions=\"{nodes}\"/>"
            );
            let _ = writeln!(s, "    <Geometry GeometryType=\"VXVYVZ\">");
            for (name, n) in [("vertexx", nx), ("vertexy", ny), ("vertexz", nz)] {
                item(&mut s, &(n + 1).to_string(), file, name);
            }
            let _ = writeln!(s, "    </Geometry>");
            for (names, center, dims) in [
                (&CELL_FIELDS[..], "Cell", &cells),
                (&NODE_FIELDS[..], "Node", &nodes),
            ] {
                for name in names {
                    let _ = writeln!(
                        s,
                        "    <Attribute Name=\"{name}\" AttributeType=\"Scalar\" Center=\"{center}\">"
                    );
                    item(&mut s, dims, file, name);
                    let _ = writeln!(s, "    </Attribute>");
                }
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
        let n = clover.n.map(|c| c as usize);
        std::fs::write(&xmf, self.xdmf(n)).map_err(|e| format!("{}: {e}", xmf.display()))?;
        Ok(path)
    }
}

#[cfg(feature = "hdf5")]
fn write_hdf5(path: &Path, clover: &mut Clover) -> Result<(), String> {
    let [nx, ny, nz] = clover.n.map(|c| c as usize);
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let file = hdf5::File::create(path).map_err(|e| err(&e))?;
    let f = &clover.f;
    let cell = [f.density0, f.energy0, f.pressure, f.viscosity];
    let node = [f.xvel0, f.yvel0, f.zvel0];
    let mut write = |name: &str, dat, shape: &[usize]| -> Result<(), String> {
        let v = clover.ops.fetch_data(&dat).map_err(|e| err(&e))?;
        file.new_dataset::<f64>()
            .shape(shape)
            .create(name)
            .and_then(|d| d.write_raw(&v))
            .map_err(|e| err(&e))
    };
    for (name, dat) in CELL_FIELDS.into_iter().zip(cell) {
        write(name, dat, &[nz, ny, nx])?;
    }
    for (name, dat) in NODE_FIELDS.into_iter().zip(node) {
        write(name, dat, &[nz + 1, ny + 1, nx + 1])?;
    }
    for (name, dat, n) in [
        ("vertexx", f.vertexx, nx + 1),
        ("vertexy", f.vertexy, ny + 1),
        ("vertexz", f.vertexz, nz + 1),
    ] {
        write(name, dat, &[n])?;
    }
    let (step, time) = (clover.step, clover.time);
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
