//! # ops-io: datasets to and from files
//!
//! What OPS users have as `ops_decl_dat_hdf5` and `ops_fetch_dat_hdf5_file`, in global index
//! space and under MPI too:
//!
//! - [`dat_from_hdf5`] declares a dataset whose interior comes from an HDF5 dataset (initial
//!   conditions, a mesh made elsewhere). The values enter through the runtime like any initial
//!   values, so the checkpointing sees them: a restart reads the file again at start-up.
//! - [`Dump`] writes any set of datasets' interiors (and a mesh, and attributes) to one HDF5
//!   file with an XDMF companion that ParaView and VisIt open; [`Series`] keeps an XDMF time
//!   series of several dumps.
//!
//! Under `mpirun` every process makes the same calls: a dump gathers each dataset from the
//! processes that own its parts and process 0 writes the one file; a declaration reads the file
//! on every process, each keeping the part it stores.
//!
//! HDF5 arrays are stored slowest dimension first (`[ny, nx]`, `[nz, ny, nx]`, with a last
//! dimension for the components of a dataset that has several), which is the order h5py and
//! numpy show.
//!
//! ```
//! use ops_backends::prelude::*;
//! use ops_io::{dat_from_hdf5, Dump};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq))?;
//! let grid = ops.block("grid", 2)?;
//! let init: Vec<f64> = (0..6).map(f64::from).collect();
//! let t = ops.dat_with(&grid, "temperature", DatSpec::new([3, 2]).init(&init))?;
//! let path = dir.path().join("state.h5");
//! let mut dump = Dump::create(&mut ops, &path).unwrap();
//! dump.write(&mut ops, &t).unwrap();
//! dump.attr("time", 0.25).unwrap();
//! dump.finish().unwrap(); // state.h5 and state.xmf
//!
//! let again: Dat<f64> =
//!     dat_from_hdf5(&mut ops, &grid, "t0", &path, "temperature", Halo::<2>::uniform(1)).unwrap();
//! assert_eq!(ops.fetch_data(&again)?, init);
//! # Ok::<(), OpsError>(())
//! ```

#![warn(missing_docs)]

use std::path::{Path, PathBuf};

use ops_core::{Block, Dat, DatSpec, ElemType, Element, Halo, Ops, OpsError};

mod xdmf;

pub use xdmf::Series;

/// What went wrong reading or writing a file.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// HDF5 refused (a missing file or dataset, a file that cannot be written).
    #[error("{path}: {what}: {reason}")]
    Hdf5 {
        /// The file.
        path: PathBuf,
        /// What was being done (`dataset /density`, `creating the file`, ...).
        what: String,
        /// HDF5's message.
        reason: String,
    },
    /// The file's array does not fit the dataset asked for.
    #[error("{path}: dataset `{dataset}`: {reason}")]
    Shape {
        /// The file.
        path: PathBuf,
        /// The dataset in the file.
        dataset: String,
        /// What does not fit.
        reason: String,
    },
    /// The runtime refused (a bad declaration, a fetch that failed).
    #[error("{path}: {source}")]
    Runtime {
        /// The file.
        path: PathBuf,
        /// The runtime's error (boxed: it is large, and rare).
        #[source]
        source: Box<OpsError>,
    },
    /// The XDMF companion could not be written.
    #[error("{path}: {source}")]
    Xdmf {
        /// The XDMF file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

fn hdf5_err(path: &Path, what: impl Into<String>) -> impl FnOnce(hdf5::Error) -> IoError {
    let (path, what) = (path.to_path_buf(), what.into());
    move |e| IoError::Hdf5 {
        path,
        what,
        reason: e.to_string(),
    }
}

fn runtime_err(path: &Path) -> impl FnOnce(OpsError) -> IoError {
    let path = path.to_path_buf();
    move |e| IoError::Runtime {
        path,
        source: Box::new(e),
    }
}

/// A rectilinear mesh the fields of a dump live on: the node coordinates along each axis
/// (x first). Fields with one point per cell are drawn cell-centred, fields with one per node
/// node-centred.
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    nodes: Vec<Vec<f64>>,
}

impl Mesh {
    /// A mesh with these node coordinates per axis (x first; 2 or 3 axes).
    pub fn rectilinear(nodes: Vec<Vec<f64>>) -> Mesh {
        Mesh { nodes }
    }

    /// A uniform mesh of `cells[d]` cells of width `spacing[d]` from `origin[d]`.
    pub fn uniform(cells: &[usize], origin: &[f64], spacing: &[f64]) -> Mesh {
        let nodes = cells
            .iter()
            .zip(origin.iter().zip(spacing))
            .map(|(&n, (&o, &h))| (0..=n).map(|k| o + h * k as f64).collect())
            .collect();
        Mesh { nodes }
    }

    /// Cells per axis (x first).
    pub fn cells(&self) -> Vec<usize> {
        self.nodes
            .iter()
            .map(|n| n.len().saturating_sub(1))
            .collect()
    }
}

/// One array written to a dump: its name in the file, its points per axis (x first), element
/// type and components.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// Name of the HDF5 dataset (at the file's root).
    pub name: String,
    /// Points per axis, x first.
    pub size: Vec<usize>,
    /// Element type.
    pub ty: ElemType,
    /// Components per point.
    pub components: usize,
}

/// What a finished dump holds, for its XDMF description.
#[derive(Clone, Debug, PartialEq)]
pub struct DumpRecord {
    /// The HDF5 file.
    pub path: PathBuf,
    /// The mesh, if one was written (`/mesh/x`, `/mesh/y`, `/mesh/z`).
    pub mesh: Option<Mesh>,
    /// The fields written, in order.
    pub fields: Vec<Field>,
    /// This process wrote the file (process 0 of a distributed run, or the only one); a
    /// [`Series`] is written by that process only.
    pub writer: bool,
}

/// One HDF5 file being written with datasets in global index space.
pub struct Dump {
    path: PathBuf,
    /// The open file, on process 0 only.
    file: Option<hdf5::File>,
    record: DumpRecord,
}

impl Dump {
    /// Creates (or truncates) the file `path`, on process 0 of a distributed run.
    pub fn create(ops: &mut Ops, path: impl AsRef<Path>) -> Result<Dump, IoError> {
        let path = path.as_ref().to_path_buf();
        let file = if ops.rank() == 0 {
            Some(hdf5::File::create(&path).map_err(hdf5_err(&path, "creating the file"))?)
        } else {
            None
        };
        Ok(Dump {
            record: DumpRecord {
                path: path.clone(),
                mesh: None,
                fields: Vec::new(),
                writer: file.is_some(),
            },
            path,
            file,
        })
    }

    /// Writes the mesh's node coordinates (`/mesh/x`, ...), which the XDMF companion uses as
    /// the geometry.
    pub fn mesh(&mut self, mesh: Mesh) -> Result<(), IoError> {
        if let Some(file) = &self.file {
            let group = file
                .create_group("mesh")
                .map_err(hdf5_err(&self.path, "group /mesh"))?;
            for (axis, nodes) in ["x", "y", "z"].iter().zip(&mesh.nodes) {
                write_array(&group, axis, &[nodes.len()], nodes)
                    .map_err(hdf5_err(&self.path, format!("dataset /mesh/{axis}")))?;
            }
        }
        self.record.mesh = Some(mesh);
        Ok(())
    }

    /// Writes the interior of `dat` under its own name.
    pub fn write<T: Element>(&mut self, ops: &mut Ops, dat: &Dat<T>) -> Result<(), IoError> {
        let name = ops
            .dat_name(dat)
            .map_err(runtime_err(&self.path))?
            .to_string();
        self.write_as(ops, dat, &name)
    }

    /// Writes the interior of `dat` as the HDF5 dataset `name` (at the file's root). Every
    /// process of a distributed run must call it: the interior is gathered from its owners.
    pub fn write_as<T: Element>(
        &mut self,
        ops: &mut Ops,
        dat: &Dat<T>,
        name: &str,
    ) -> Result<(), IoError> {
        let layout = ops.dat_layout(dat).map_err(runtime_err(&self.path))?;
        let values = ops
            .fetch_range(dat, layout.interior())
            .map_err(runtime_err(&self.path))?;
        let size: Vec<usize> = layout.size[..layout.dims].to_vec();
        let mut shape: Vec<usize> = size.iter().rev().copied().collect();
        if layout.components > 1 {
            shape.push(layout.components);
        }
        if let Some(file) = &self.file {
            let what = format!("dataset /{name}");
            let made = match T::TYPE {
                ElemType::F64 => write_array(file, name, &shape, cast::<T, f64>(&values)),
                ElemType::F32 => write_array(file, name, &shape, cast::<T, f32>(&values)),
                ElemType::I32 => write_array(file, name, &shape, cast::<T, i32>(&values)),
            };
            made.map_err(hdf5_err(&self.path, what))?;
        }
        self.record.fields.push(Field {
            name: name.to_string(),
            size,
            ty: T::TYPE,
            components: layout.components,
        });
        Ok(())
    }

    /// Writes a number as an attribute of the file's root (`time`, `step`, ...).
    pub fn attr(&mut self, name: &str, value: f64) -> Result<(), IoError> {
        if let Some(file) = &self.file {
            file.new_attr::<f64>()
                .create(name)
                .and_then(|a| a.write_scalar(&value))
                .map_err(hdf5_err(&self.path, format!("attribute {name}")))?;
        }
        Ok(())
    }

    /// Closes the file and writes its XDMF companion (the same path with `.xmf`) on process 0;
    /// returns what the dump holds (for a [`Series`]).
    pub fn finish(self) -> Result<DumpRecord, IoError> {
        if let Some(file) = self.file {
            file.close()
                .map_err(hdf5_err(&self.path, "closing the file"))?;
            let xmf = self.path.with_extension("xmf");
            std::fs::write(&xmf, xdmf::document(&[(None, &self.record)]))
                .map_err(|source| IoError::Xdmf { path: xmf, source })?;
        }
        Ok(self.record)
    }
}

/// Creates dataset `name` of `shape` in `group` and writes `values` (x fastest) into it.
fn write_array<U: hdf5::H5Type>(
    group: &hdf5::Group,
    name: &str,
    shape: &[usize],
    values: &[U],
) -> hdf5::Result<()> {
    group
        .new_dataset::<U>()
        .shape(shape)
        .create(name)?
        .write_raw(values)
}

/// `values` (of element type `T`, whose tag says it is `U`) as `U`s.
fn cast<T: Element, U: bytemuck::Pod>(values: &[T]) -> &[U] {
    bytemuck::cast_slice(values)
}

/// Declares dataset `name` on `block` with its interior read from the HDF5 dataset `dataset`
/// of `path` (slowest dimension first, as [`Dump`] writes it; a last dimension for several
/// components), and halo `halo`. Its size (and components) are the file's.
///
/// The values enter through the runtime as initial values, so the checkpointing tracks them
/// and a restart reads the file again; their fingerprint is an input of the run, so a restart
/// whose file holds other values is refused, naming the dataset. Errors name the file and the dataset: a missing file or
/// dataset, an array whose dimension count does not fit the block, an element type that is
/// not the dataset's.
pub fn dat_from_hdf5<T: Element, const N: usize>(
    ops: &mut Ops,
    block: &Block,
    name: &str,
    path: impl AsRef<Path>,
    dataset: &str,
    halo: Halo<N>,
) -> Result<Dat<T>, IoError> {
    let path = path.as_ref();
    let what = format!("dataset `{dataset}`");
    let file = hdf5::File::open(path).map_err(hdf5_err(path, "opening the file"))?;
    let ds = file
        .dataset(dataset)
        .map_err(hdf5_err(path, what.clone()))?;
    let shape = ds.shape();
    let shape_err = |reason: String| IoError::Shape {
        path: path.to_path_buf(),
        dataset: dataset.to_string(),
        reason,
    };
    let components = match shape.len() {
        n if n == N => 1,
        n if n == N + 1 => shape[N],
        n => {
            return Err(shape_err(format!(
                "{n} dimension(s) ({shape:?}); a {N}-D dataset needs {N} (or {} with components \
                 last)",
                N + 1
            )))
        }
    };
    let stored = ds.dtype().map_err(hdf5_err(path, what.clone()))?;
    let class_fits = match T::TYPE {
        ElemType::F64 | ElemType::F32 => stored.is::<f64>() || stored.is::<f32>(),
        ElemType::I32 => stored.is::<i32>(),
    };
    if !class_fits {
        return Err(shape_err(format!(
            "its elements ({} bytes, {}) are not {}",
            stored.size(),
            if stored.is::<f64>() || stored.is::<f32>() {
                "floating point"
            } else {
                "not floating point"
            },
            T::TYPE
        )));
    }
    let mut size = [0usize; N];
    for (d, s) in size.iter_mut().enumerate() {
        *s = shape[N - 1 - d];
    }
    let values: Vec<T> = match T::TYPE {
        ElemType::F64 => uncast(ds.read_raw::<f64>()),
        ElemType::F32 => uncast(ds.read_raw::<f32>()),
        ElemType::I32 => uncast(ds.read_raw::<i32>()),
    }
    .map_err(hdf5_err(path, what))?;
    // The file is an input of the computation: a restart whose file holds other values is
    // refused, naming it, instead of continuing a different computation.
    use ops_resilience::ResilienceExt;
    let label = format!("contents of dataset `{name}` (read from `{dataset}`)");
    let mut print = bytemuck::cast_slice::<T, u8>(&values).to_vec();
    print.extend(shape.iter().flat_map(|n| (*n as u64).to_le_bytes()));
    ops.input_fingerprint(&label, &print)
        .map_err(runtime_err(path))?;
    let spec = DatSpec::new(size)
        .halo(halo)
        .components(components)
        .init(&values);
    ops.dat_with(block, name, spec).map_err(runtime_err(path))
}

/// Values read as `U`, handed over as `T` (the same type, as `T::TYPE` says).
fn uncast<U: bytemuck::Pod, T: Element>(read: hdf5::Result<Vec<U>>) -> hdf5::Result<Vec<T>> {
    read.map(|v| bytemuck::cast_slice(&v).to_vec())
}
