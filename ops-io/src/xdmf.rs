//! XDMF descriptions of dumps: one uniform grid per dump (a rectilinear mesh, or unit cells
//! when the dump has no mesh) with the fields that live on its cells or nodes, and a temporal
//! collection of dumps ([`Series`]).

use std::fmt::Write;
use std::path::{Path, PathBuf};

use ops_core::{Dat, ElemType, Element, Ops};

use crate::{Dump, DumpRecord, IoError, Mesh};

/// An XDMF time series of dumps: every [`Series::push`] rewrites the `.xmf` file with all the
/// dumps so far, so a run that stops early leaves a valid series.
pub struct Series {
    path: PathBuf,
    grids: Vec<String>,
}

impl Series {
    /// A series written to `path` (a `.xmf` file beside the dumps it names).
    pub fn new(path: impl AsRef<Path>) -> Series {
        Series {
            path: path.as_ref().to_path_buf(),
            grids: Vec::new(),
        }
    }

    /// Writes the dump of one step beside the series (`STEM.NNNNNN.h5`, `STEM` the series
    /// file's stem and `NNNNNN` the step): the mesh, `fields` under the names given, `step` and
    /// `time` attributes; and adds it to the series. Every process of a distributed run calls it.
    pub fn dump_step<T: Element>(
        &mut self,
        ops: &mut Ops,
        (step, time): (u64, f64),
        mesh: Mesh,
        fields: &[(&str, Dat<T>)],
    ) -> Result<PathBuf, IoError> {
        let stem = self
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "dump".into());
        let path = self.path.with_file_name(format!("{stem}.{step:06}.h5"));
        let mut dump = Dump::create(ops, &path)?;
        dump.mesh(mesh)?;
        for (name, dat) in fields {
            dump.write_as(ops, dat, name)?;
        }
        dump.attr("step", step as f64)?;
        dump.attr("time", time)?;
        let record = dump.finish()?;
        self.push(step, time, &record)?;
        Ok(path)
    }

    /// Adds a dump taken at `step` and `time` and rewrites the series (on the process that
    /// wrote the dump).
    pub fn push(&mut self, step: u64, time: f64, dump: &DumpRecord) -> Result<(), IoError> {
        self.grids.push(grid(Some((step, time)), dump));
        if !dump.writer {
            return Ok(());
        }
        let mut s = String::new();
        header(&mut s);
        let _ = writeln!(
            s,
            "  <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">"
        );
        for g in &self.grids {
            s.push_str(g);
        }
        let _ = writeln!(s, "  </Grid>");
        footer(&mut s);
        std::fs::write(&self.path, s).map_err(|source| IoError::Xdmf {
            path: self.path.clone(),
            source,
        })
    }
}

fn header(s: &mut String) {
    let _ = writeln!(s, "<?xml version=\"1.0\" ?>");
    let _ = writeln!(s, "<Xdmf Version=\"3.0\">");
    let _ = writeln!(s, " <Domain>");
}

fn footer(s: &mut String) {
    let _ = writeln!(s, " </Domain>");
    let _ = writeln!(s, "</Xdmf>");
}

/// The XDMF document of single dumps.
pub(crate) fn document(dumps: &[(Option<(u64, f64)>, &DumpRecord)]) -> String {
    let mut s = String::new();
    header(&mut s);
    for (when, d) in dumps {
        s.push_str(&grid(*when, d));
    }
    footer(&mut s);
    s
}

/// Dimensions slowest first, as XDMF lists them.
fn dims(size: &[usize]) -> String {
    size.iter()
        .rev()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn number_type(ty: ElemType) -> (&'static str, usize) {
    match ty {
        ElemType::F64 => ("Float", 8),
        ElemType::F32 => ("Float", 4),
        ElemType::I32 => ("Int", 4),
    }
}

/// One dump as a uniform grid: the mesh (or unit cells sized by the first field), then every
/// field that has one point per cell or per node (others are in the file, not in the grid).
fn grid(when: Option<(u64, f64)>, d: &DumpRecord) -> String {
    let mut s = String::new();
    let file = d
        .path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match when {
        Some((step, _)) => format!("step{step}"),
        None => "dump".into(),
    };
    let _ = writeln!(s, "   <Grid Name=\"{name}\" GridType=\"Uniform\">");
    if let Some((_, time)) = when {
        let _ = writeln!(s, "    <Time Value=\"{time:e}\"/>");
    }
    let cells: Vec<usize> = match (&d.mesh, d.fields.first()) {
        (Some(m), _) => m.cells(),
        (None, Some(f)) => f.size.clone(),
        (None, None) => Vec::new(),
    };
    let nodes: Vec<usize> = cells.iter().map(|n| n + 1).collect();
    let nd = cells.len();
    match &d.mesh {
        Some(m) => {
            let _ = writeln!(
                s,
                "    <Topology TopologyType=\"{nd}DRectMesh\" Dimensions=\"{}\"/>",
                dims(&nodes)
            );
            let kind = ["VX", "VY", "VZ"][..nd].concat();
            let _ = writeln!(s, "    <Geometry GeometryType=\"{kind}\">");
            for (axis, n) in ["x", "y", "z"].iter().zip(&m.nodes) {
                let _ = writeln!(
                    s,
                    "     <DataItem Dimensions=\"{}\" NumberType=\"Float\" Precision=\"8\" \
                     Format=\"HDF\">{file}:/mesh/{axis}</DataItem>",
                    n.len()
                );
            }
            let _ = writeln!(s, "    </Geometry>");
        }
        None => {
            let kind = if nd == 3 {
                "ORIGIN_DXDYDZ"
            } else {
                "ORIGIN_DXDY"
            };
            let _ = writeln!(
                s,
                "    <Topology TopologyType=\"{nd}DCoRectMesh\" Dimensions=\"{}\"/>",
                dims(&nodes)
            );
            let _ = writeln!(s, "    <Geometry GeometryType=\"{kind}\">");
            for values in ["0", "1"] {
                let _ = writeln!(
                    s,
                    "     <DataItem Dimensions=\"{nd}\" NumberType=\"Float\" Format=\"XML\">{}</DataItem>",
                    vec![values; nd].join(" ")
                );
            }
            let _ = writeln!(s, "    </Geometry>");
        }
    }
    for f in &d.fields {
        let center = if f.size == cells {
            "Cell"
        } else if f.size == nodes {
            "Node"
        } else {
            continue;
        };
        let (kind, mut shape) = match f.components {
            1 => ("Scalar", dims(&f.size)),
            3 => ("Vector", dims(&f.size)),
            _ => continue,
        };
        if f.components > 1 {
            shape.push_str(&format!(" {}", f.components));
        }
        let (number, precision) = number_type(f.ty);
        let _ = writeln!(
            s,
            "    <Attribute Name=\"{}\" AttributeType=\"{kind}\" Center=\"{center}\">",
            f.name
        );
        let _ = writeln!(
            s,
            "     <DataItem Dimensions=\"{shape}\" NumberType=\"{number}\" \
             Precision=\"{precision}\" Format=\"HDF\">{file}:/{}</DataItem>",
            f.name
        );
        let _ = writeln!(s, "    </Attribute>");
    }
    let _ = writeln!(s, "   </Grid>");
    s
}
