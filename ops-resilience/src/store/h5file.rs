//! The HDF5 layout of one checkpoint file (documented on [`super::Hdf5Store`]), written once
//! and read back with verification.

use super::atomic::EarlyWriteback;
use super::manifest::{queries_crc, version_mismatch, DatSum, DatasetSum, Manifest};
use super::values::ValuesRef;
use super::{Checkpoint, CheckpointMeta, SavedDat, SavedRegion, StoreError, FORMAT_VERSION};
use hdf5::types::VarLenUnicode;
use hdf5::{Dataset, Group, H5Type, Location};
use ops_core::ElemType;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::str::FromStr;

#[cfg(not(target_endian = "little"))]
compile_error!("checkpoint regions hold little-endian bytes that are written as native HDF5 types");

/// Regions at least this large start the file's writeback to the device as soon as they are
/// written, overlapping the disk with the rest of the write (smaller ones wait for the next).
const EARLY_WRITEBACK_BYTES: usize = 1 << 20;

/// The group under `/dats` holding a dataset's regions.
pub(crate) fn group_name(dat: &str) -> String {
    dat.replace('/', "__")
}

/// Path of a dataset's group inside the file.
fn group_path(dat: &str) -> String {
    format!("/dats/{}", group_name(dat))
}

/// Path of region `k` of dataset `dat` inside the file.
fn region_path(dat: &str, k: usize) -> String {
    format!("{}/r{k}", group_path(dat))
}

/// Shape of a region's dataset: extents reversed (z, y, x), unused leading dimensions (`0..1`
/// above the highest used one) dropped, components appended when more than one.
fn region_shape(region: &SavedRegion, components: usize) -> Vec<usize> {
    let used = (0..3)
        .rev()
        .find(|&d| (region.lo[d], region.hi[d]) != (0, 1))
        .map_or(1, |d| d + 1);
    let mut shape: Vec<usize> = (0..used)
        .rev()
        .map(|d| (region.hi[d] - region.lo[d]).max(0) as usize)
        .collect();
    if components > 1 {
        shape.push(components);
    }
    shape
}

/// Bytes a region of this shape holds.
fn expected_bytes(region: &SavedRegion, elem: ElemType, components: usize) -> usize {
    region_shape(region, components).iter().product::<usize>() * elem.size()
}

fn elem_from_name(name: &str) -> Option<ElemType> {
    [ElemType::F64, ElemType::F32, ElemType::I32]
        .into_iter()
        .find(|e| e.rust_name() == name)
}

/// Checks a checkpoint can be written: region sizes match their boxes, names map to distinct
/// groups, strings hold no NUL.
fn validate(ck: &Checkpoint) -> Result<(), String> {
    let mut groups = HashSet::new();
    for dat in &ck.dats {
        if dat.name.is_empty() || dat.name.contains('\0') {
            return Err(format!(
                "dataset name {:?} cannot name an HDF5 group",
                dat.name
            ));
        }
        if !groups.insert(group_name(&dat.name)) {
            return Err(format!(
                "dataset {:?} maps to the group {:?} of another dataset",
                dat.name,
                group_name(&dat.name)
            ));
        }
        if dat.components == 0 {
            return Err(format!("dataset {:?} has 0 components", dat.name));
        }
        for (k, r) in dat.regions.iter().enumerate() {
            if (0..3).any(|d| r.hi[d] < r.lo[d]) {
                return Err(format!(
                    "{}: box {:?}..{:?} is inverted",
                    region_path(&dat.name, k),
                    r.lo,
                    r.hi
                ));
            }
            let want = expected_bytes(r, dat.elem, dat.components);
            if r.bytes.len() != want {
                return Err(format!(
                    "{}: {} bytes for box {:?}..{:?} of {} x {}, expected {want}",
                    region_path(&dat.name, k),
                    r.bytes.len(),
                    r.lo,
                    r.hi,
                    dat.components,
                    dat.elem
                ));
            }
        }
    }
    Ok(())
}

fn vlu(s: &str) -> hdf5::Result<VarLenUnicode> {
    VarLenUnicode::from_str(s).map_err(|e| hdf5::Error::from(format!("string {s:?}: {e}")))
}

fn set_attr<T: H5Type>(loc: &Location, name: &str, value: &T) -> hdf5::Result<()> {
    loc.new_attr::<T>()
        .shape(())
        .create(name)?
        .write_scalar(value)
}

fn set_str_attr(loc: &Location, name: &str, value: &str) -> hdf5::Result<()> {
    set_attr(loc, name, &vlu(value)?)
}

fn set_array_attr<T: H5Type>(loc: &Location, name: &str, values: &[T]) -> hdf5::Result<()> {
    loc.new_attr::<T>()
        .shape(values.len())
        .create(name)?
        .write_raw(values)
}

fn get_attr<T: H5Type>(loc: &Location, name: &str) -> hdf5::Result<T> {
    loc.attr(name)?.read_scalar()
}

fn get_str_attr(loc: &Location, name: &str) -> hdf5::Result<String> {
    Ok(get_attr::<VarLenUnicode>(loc, name)?.as_str().to_owned())
}

/// Creates a dataset of element type `T` from little-endian bytes (no copy when aligned).
fn write_typed<T: H5Type + bytemuck::Pod>(
    group: &Group,
    name: &str,
    shape: &[usize],
    bytes: &[u8],
) -> hdf5::Result<Dataset> {
    let ds = group.new_dataset::<T>().shape(shape).create(name)?;
    match bytemuck::try_cast_slice::<u8, T>(bytes) {
        Ok(values) => ds.write_raw(values)?,
        Err(_) => {
            let values: Vec<T> = bytes
                .chunks_exact(std::mem::size_of::<T>())
                .map(bytemuck::pod_read_unaligned)
                .collect();
            ds.write_raw(&values)?
        }
    }
    Ok(ds)
}

/// Reads a dataset of element type `T` as little-endian bytes; `None` if it holds another type.
fn read_typed<T: H5Type + bytemuck::Pod>(ds: &Dataset) -> hdf5::Result<Option<Vec<u8>>> {
    if !ds.dtype()?.is::<T>() {
        return Ok(None);
    }
    Ok(Some(bytemuck::cast_slice(&ds.read_raw::<T>()?).to_vec()))
}

/// Writes a region's elements as a dataset of its element type.
fn write_elems(
    group: &Group,
    name: &str,
    elem: ElemType,
    shape: &[usize],
    bytes: &[u8],
) -> hdf5::Result<Dataset> {
    match elem {
        ElemType::F64 => write_typed::<f64>(group, name, shape, bytes),
        ElemType::F32 => write_typed::<f32>(group, name, shape, bytes),
        ElemType::I32 => write_typed::<i32>(group, name, shape, bytes),
    }
}

/// Reads a region's elements, `None` if the dataset holds another type than `elem`.
fn read_elems(ds: &Dataset, elem: ElemType) -> hdf5::Result<Option<Vec<u8>>> {
    match elem {
        ElemType::F64 => read_typed::<f64>(ds),
        ElemType::F32 => read_typed::<f32>(ds),
        ElemType::I32 => read_typed::<i32>(ds),
    }
}

/// Opens HDF5 files without HDF5's own file lock. The directory lock
/// ([`DirLock`](super::DirLock)) already keeps runs apart, and HDF5's lock lives on a file
/// descriptor that any child process forked while the file is open inherits (HDF5 does not
/// open with `O_CLOEXEC`): for as long as that child lives, the checkpoint cannot be opened
/// ("unable to lock file"), which made the store's tests fail when run in parallel with tests
/// that start processes.
fn without_file_locking() -> hdf5::FileBuilder {
    let mut builder = hdf5::File::with_options();
    builder.with_fapl(|p| p.file_locking(false));
    builder
}

/// One HDF5 file open at a time per path in this process: held from before a file is opened
/// until every HDF5 object of it is closed.
///
/// HDF5 shares one file's state between all the handles a process opens on it, and the same
/// dataset opened through two of them shares its type, which points into the handle that
/// opened it first. When that handle closes while another thread still reads through the
/// other, the read follows a freed pointer (SIGSEGV in `H5F_addr_decode` under a vlen read,
/// about once in 30 runs of `tests/distributed.rs`, whose ranks are threads that all verify
/// every rank's files). hdf5-metno's lock makes each call atomic, not each open-read-close.
struct FileInUse(PathBuf);

static FILES_IN_USE: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
static FILE_RELEASED: std::sync::Condvar = std::sync::Condvar::new();

impl FileInUse {
    /// Waits until no other thread of this process has `path` open, and claims it.
    fn claim(path: &Path) -> FileInUse {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let mut open = FILES_IN_USE.lock().unwrap_or_else(|e| e.into_inner());
        while open.contains(&key) {
            open = FILE_RELEASED.wait(open).unwrap_or_else(|e| e.into_inner());
        }
        open.push(key.clone());
        FileInUse(key)
    }
}

impl Drop for FileInUse {
    fn drop(&mut self) {
        let mut open = FILES_IN_USE.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|p| p != &self.0);
        FILE_RELEASED.notify_all();
    }
}

/// Writes `ck` to a new HDF5 file at `path` (truncating any old one) and closes it. Calls
/// `after_first_region` once, right after the first region is written (or after the last
/// dataset when there is no region): the failure-injection point. Returns every dataset's
/// regions' checksums in order and the checksum of queries and payload.
pub(crate) fn write(
    path: &Path,
    ck: &Checkpoint,
    values: &ValuesRef,
    mut after_first_region: impl FnMut(&hdf5::File),
) -> Result<(Vec<DatSum>, u32), StoreError> {
    validate(ck)
        .map_err(|message| StoreError::Invalid(format!("{}: {message}", path.display())))?;
    let queries_crc32 = queries_crc(&ck.queries, &ck.payload);
    let _in_use = FileInUse::claim(path);
    let mut body = || -> hdf5::Result<Vec<DatSum>> {
        let file = without_file_locking().create(path)?;
        let writeback = EarlyWriteback::open(path);

        let meta = file.create_group("meta")?;
        let m = &ck.meta;
        set_attr(&meta, "format_version", &FORMAT_VERSION)?;
        set_str_attr(&meta, "app", &m.app)?;
        set_attr(&meta, "sequence", &m.sequence)?;
        set_attr(&meta, "loop_index", &m.loop_index)?;
        set_str_attr(&meta, "location", &m.location)?;
        set_str_attr(&meta, "backend", &m.backend)?;
        set_attr(&meta, "time_unix", &m.time_unix)?;
        if m.ranks > 1 {
            // Single-process files keep the layout they always had.
            set_attr(&meta, "rank", &(m.rank as u64))?;
            set_attr(&meta, "ranks", &(m.ranks as u64))?;
        }
        set_str_attr(&meta, "values_file", &values.file)?;
        set_attr(&meta, "values_count", &values.count)?;
        set_attr(&meta, "values_len", &values.len)?;
        set_attr(&meta, "values_crc32", &values.crc32)?;
        drop(meta);

        file.new_dataset::<u8>()
            .shape(ck.payload.len())
            .create("payload")?
            .write_raw(&ck.payload)?;

        let dats = file.create_group("dats")?;
        let mut sums = Vec::new();
        let mut first = true;
        for dat in &ck.dats {
            let group = dats.create_group(&group_name(&dat.name))?;
            let mut regions = Vec::with_capacity(dat.regions.len());
            set_str_attr(&group, "name", &dat.name)?;
            set_str_attr(&group, "elem", dat.elem.rust_name())?;
            set_attr(&group, "components", &(dat.components as u64))?;
            for (k, region) in dat.regions.iter().enumerate() {
                let shape = region_shape(region, dat.components);
                let crc32 = crc32fast::hash(&region.bytes);
                let ds = write_elems(&group, &format!("r{k}"), dat.elem, &shape, &region.bytes)?;
                set_array_attr(&ds, "lo", &region.lo)?;
                set_array_attr(&ds, "hi", &region.hi)?;
                set_attr(&ds, "components", &(dat.components as u64))?;
                set_attr(&ds, "crc32", &crc32)?;
                regions.push(DatasetSum {
                    path: region_path(&dat.name, k),
                    bytes: region.bytes.len() as u64,
                    crc32,
                });
                if region.bytes.len() >= EARLY_WRITEBACK_BYTES {
                    writeback.start();
                }
                if std::mem::take(&mut first) {
                    after_first_region(&file);
                }
            }
            sums.push(DatSum {
                group: group_path(&dat.name),
                regions,
            });
        }
        if first {
            after_first_region(&file);
        }
        drop(dats);
        file.close()?;
        Ok(sums)
    };
    let sums = body().map_err(|e| StoreError::Hdf5 {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    Ok((sums, queries_crc32))
}

/// Reads the checkpoint in `path` and verifies it against its manifest: format version,
/// sequence, every region's box, type, shape and checksum, the queries' and payload's checksum.
/// The error is the reason to reject the file.
pub(crate) fn read(path: &Path, manifest: &Manifest) -> Result<Checkpoint, String> {
    // Declared first, dropped last: after every object of the file.
    let _in_use = FileInUse::claim(path);
    let file = without_file_locking()
        .open(path)
        .map_err(|e| format!("HDF5 cannot open it: {e}"))?;
    let at = |what: &str| {
        let what = what.to_owned();
        move |e: hdf5::Error| format!("{what}: {e}")
    };

    let meta_group = file.group("meta").map_err(at("/meta"))?;
    let version: u32 = get_attr(&meta_group, "format_version").map_err(at("/meta"))?;
    if version != FORMAT_VERSION {
        return Err(version_mismatch(version.into()));
    }
    let meta = (|| -> hdf5::Result<CheckpointMeta> {
        let names = meta_group.attr_names()?;
        let optional = |name: &str, default: u64| -> hdf5::Result<u64> {
            if names.iter().any(|n| n == name) {
                get_attr::<u64>(&meta_group, name)
            } else {
                Ok(default)
            }
        };
        Ok(CheckpointMeta {
            app: get_str_attr(&meta_group, "app")?,
            sequence: get_attr(&meta_group, "sequence")?,
            loop_index: get_attr(&meta_group, "loop_index")?,
            location: get_str_attr(&meta_group, "location")?,
            backend: get_str_attr(&meta_group, "backend")?,
            time_unix: get_attr(&meta_group, "time_unix")?,
            rank: usize::try_from(optional("rank", 0)?).unwrap_or(usize::MAX),
            ranks: usize::try_from(optional("ranks", 1)?).unwrap_or(usize::MAX),
        })
    })()
    .map_err(at("/meta"))?;
    let (m_rank, m_ranks) = (manifest.rank.unwrap_or(0), manifest.ranks.unwrap_or(1));
    if (
        meta.sequence,
        meta.loop_index,
        &meta.app,
        meta.rank as u64,
        meta.ranks as u64,
    ) != (
        manifest.sequence,
        manifest.loop_index,
        &manifest.app,
        m_rank,
        m_ranks,
    ) {
        return Err(format!(
            "/meta (app {}, sequence {}, loop {}, rank {} of {}) disagrees with the manifest \
             (app {}, sequence {}, loop {}, rank {m_rank} of {m_ranks})",
            meta.app,
            meta.sequence,
            meta.loop_index,
            meta.rank,
            meta.ranks,
            manifest.app,
            manifest.sequence,
            manifest.loop_index
        ));
    }

    let (values, payload) = (|| -> hdf5::Result<_> {
        let values = ValuesRef {
            file: get_str_attr(&meta_group, "values_file")?,
            count: get_attr(&meta_group, "values_count")?,
            len: get_attr(&meta_group, "values_len")?,
            crc32: get_attr(&meta_group, "values_crc32")?,
        };
        Ok((values, file.dataset("payload")?.read_raw::<u8>()?))
    })()
    .map_err(at("/meta values, /payload"))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let queries = super::values::read(dir, &values)?;
    let crc = queries_crc(&queries, &payload);
    if crc != manifest.queries_crc32 {
        return Err(format!(
            "value log history and /payload: crc32 {crc:#010x}, manifest says {:#010x}",
            manifest.queries_crc32
        ));
    }

    let mut dats = Vec::with_capacity(manifest.dats.len());
    for entry in &manifest.dats {
        let gp = entry.group.as_str();
        let group = file.group(gp).map_err(at(gp))?;
        let (name, elem, components) = (|| -> hdf5::Result<_> {
            Ok((
                get_str_attr(&group, "name")?,
                get_str_attr(&group, "elem")?,
                get_attr::<u64>(&group, "components")?,
            ))
        })()
        .map_err(at(gp))?;
        let elem =
            elem_from_name(&elem).ok_or_else(|| format!("{gp}: unknown element type {elem:?}"))?;
        let components = components as usize;
        let mut regions = Vec::with_capacity(entry.regions.len());
        for sum in &entry.regions {
            regions.push(read_region(&file, sum, elem, components)?);
        }
        dats.push(SavedDat {
            name,
            elem,
            components,
            regions,
        });
    }

    Ok(Checkpoint {
        meta,
        queries,
        payload,
        dats,
    })
}

/// Reads one region dataset and verifies its box, shape, type and checksum.
fn read_region(
    file: &hdf5::File,
    sum: &DatasetSum,
    elem: ElemType,
    components: usize,
) -> Result<SavedRegion, String> {
    let at = |e: hdf5::Error| format!("{}: {e}", sum.path);
    let ds = file.dataset(&sum.path).map_err(at)?;
    let (lo, hi, crc_attr) = (|| -> hdf5::Result<_> {
        let lo: Vec<i32> = ds.attr("lo")?.read_raw()?;
        let hi: Vec<i32> = ds.attr("hi")?.read_raw()?;
        Ok((lo, hi, get_attr::<u32>(&ds, "crc32")?))
    })()
    .map_err(at)?;
    let (Ok(lo), Ok(hi)) = (<[i32; 3]>::try_from(lo), <[i32; 3]>::try_from(hi)) else {
        return Err(format!("{}: lo/hi are not 3 indices", sum.path));
    };
    let mut region = SavedRegion {
        lo,
        hi,
        bytes: Vec::new(),
    };
    let shape = region_shape(&region, components);
    if ds.shape() != shape {
        return Err(format!(
            "{}: shape {:?}, box {lo:?}..{hi:?} x {components} needs {shape:?}",
            sum.path,
            ds.shape(),
        ));
    }
    region.bytes = read_elems(&ds, elem)
        .map_err(at)?
        .ok_or_else(|| format!("{}: not stored as {elem}", sum.path))?;
    let crc = crc32fast::hash(&region.bytes);
    if crc != sum.crc32 || crc != crc_attr || region.bytes.len() as u64 != sum.bytes {
        return Err(format!(
            "{}: crc32 {crc:#010x} of {} bytes, manifest says {:#010x} of {} bytes \
             (attribute {crc_attr:#010x})",
            sum.path,
            region.bytes.len(),
            sum.crc32,
            sum.bytes
        ));
    }
    Ok(region)
}
