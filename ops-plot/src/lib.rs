//! # ops-plot: pictures of datasets
//!
//! [`snapshot_png`] writes a colour-mapped PNG of a 2-D dataset, or of a plane through a 3-D
//! one, with a colour bar and a title; [`candidates_png`] draws what a checkpoint opened at each
//! candidate location of the time step would save (the resilience diagnostics' candidate
//! table). Drawing is done with [plotters](https://docs.rs/plotters) on its bitmap backend;
//! the labels use DejaVu Sans Mono, shipped with the crate (its licence is in `fonts/`).
//!
//! The data is read through the runtime ([`Ops::fetch_range`]), so a snapshot taken while the
//! program runs is a fetch like any other: a restarted run that replays past it draws the same
//! picture.
//!
//! ```
//! use ops_backends::prelude::*;
//! use ops_plot::{snapshot_png, Snapshot};
//!
//! let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq))?;
//! let grid = ops.block("grid", 2)?;
//! let init: Vec<f64> = (0..12).map(f64::from).collect();
//! let u = ops.dat_with(&grid, "u", DatSpec::new([4, 3]).init(&init))?;
//! let dir = tempfile::tempdir().unwrap();
//! let picture = snapshot_png(&mut ops, &u, dir.path().join("u.png"), &Snapshot::new())
//!     .unwrap();
//! assert_eq!((picture.min, picture.max), (0.0, 11.0));
//! # Ok::<(), OpsError>(())
//! ```

#![warn(missing_docs)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ops_core::{Dat, Element, IterRange, Ops, OpsError, Scalar};
use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;
use plotters::style::text_anchor::{HPos, Pos, VPos};

mod candidates;

pub use candidates::{candidates_png, Candidate};

/// The font the labels use, registered with plotters once.
const FONT_FAMILY: &str = "ops-plot-mono";
static FONT: &[u8] = include_bytes!("../fonts/DejaVuSansMono.ttf");

/// Registers the shipped font (once per process).
pub(crate) fn font(size: f64) -> FontDesc<'static> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    REGISTERED.get_or_init(|| {
        plotters::style::register_font(FONT_FAMILY, FontStyle::Normal, FONT).is_ok()
    });
    FontDesc::new(FontFamily::Name(FONT_FAMILY), size, FontStyle::Normal)
}

/// What went wrong making a picture.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The runtime refused a request (an unknown dataset, a fetch that failed).
    #[error("snapshot of dataset `{dat}`: {source}")]
    Runtime {
        /// The dataset.
        dat: String,
        /// The runtime's error (boxed: it is large, and rare).
        #[source]
        source: Box<OpsError>,
    },
    /// The dataset or the requested plane cannot be drawn.
    #[error("snapshot of dataset `{dat}`: {reason}")]
    Shape {
        /// The dataset.
        dat: String,
        /// What is wrong, and what to ask for instead.
        reason: String,
    },
    /// Drawing or writing the file failed.
    #[error("picture `{path}`: {reason}")]
    Draw {
        /// The file.
        path: PathBuf,
        /// What failed.
        reason: String,
    },
}

/// How to draw a dataset: which plane of a 3-D one, which component, how large, what title.
///
/// ```
/// let how = ops_plot::Snapshot::new().slice(2, 48).title("density at step 87").size(400);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    title: Option<String>,
    slice: Option<(usize, i32)>,
    component: usize,
    size: u32,
}

impl Default for Snapshot {
    fn default() -> Self {
        Snapshot::new()
    }
}

impl Snapshot {
    /// The defaults: the dataset's name as the title, the middle plane normal to z for 3-D
    /// data, component 0, the field's longer side drawn 640 pixels long.
    pub fn new() -> Snapshot {
        Snapshot {
            title: None,
            slice: None,
            component: 0,
            size: 640,
        }
    }

    /// For a 3-D dataset: the plane at interior index `index` normal to `axis` (0 x, 1 y, 2 z).
    pub fn slice(mut self, axis: usize, index: i32) -> Snapshot {
        self.slice = Some((axis, index));
        self
    }

    /// The title drawn above the field (after the dataset's name).
    pub fn title(mut self, title: impl Into<String>) -> Snapshot {
        self.title = Some(title.into());
        self
    }

    /// The component drawn, for datasets with several per point.
    pub fn component(mut self, component: usize) -> Snapshot {
        self.component = component;
        self
    }

    /// The length in pixels of the field's longer side (16 to 4096).
    pub fn size(mut self, pixels: u32) -> Snapshot {
        self.size = pixels.clamp(16, 4096);
        self
    }
}

/// What a snapshot drew.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    /// Image width and height in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// The points drawn along the picture's horizontal and vertical axes.
    pub points: [usize; 2],
    /// The smallest and largest finite value drawn (the colour bar's ends; both 0 when no
    /// value is finite).
    pub min: f64,
    /// See `min`.
    pub max: f64,
    /// Where the field lies in the image: left, top, width and height in pixels.
    pub field_area: [u32; 4],
}

impl Picture {
    /// The image pixel at the centre of point `(i, j)` of the plane drawn (`j` counted upwards
    /// from the bottom row), for checking a picture.
    pub fn pixel_of(&self, i: usize, j: usize) -> (u32, u32) {
        let [left, top, w, h] = self.field_area;
        let x = left + ((2 * i + 1) as u64 * w as u64 / (2 * self.points[0] as u64)) as u32;
        let y = top + h - 1 - ((2 * j + 1) as u64 * h as u64 / (2 * self.points[1] as u64)) as u32;
        (x, y)
    }
}

/// The colour a value is drawn in, on a colour bar from `min` to `max` (viridis; grey for a
/// value that is not finite).
pub fn colour_of(value: f64, min: f64, max: f64) -> RGBColor {
    if !value.is_finite() {
        return RGBColor(128, 128, 128);
    }
    if max <= min {
        return ViridisRGB.get_color_normalized(0.5, 0.0, 1.0);
    }
    ViridisRGB.get_color_normalized(value.clamp(min, max), min, max)
}

fn as_f64(s: Scalar) -> f64 {
    match s {
        Scalar::F64(v) => v,
        Scalar::F32(v) => v as f64,
        Scalar::I32(v) => v as f64,
    }
}

/// Writes a PNG of `dat` to `path`: a 2-D dataset's interior, or a plane through a 3-D one's
/// (by default the middle plane normal to z), colour-mapped with viridis between its smallest
/// and largest finite values (non-finite values grey), with a colour bar and a title. The
/// first interior row is drawn at the bottom.
///
/// Errors name the dataset (a 1-D dataset, a plane outside the interior, a component it does
/// not have) or the file (it cannot be written).
///
/// Under `mpirun` every process must call it (the plane is gathered from its owners); process 0
/// writes the file.
pub fn snapshot_png<T: Element>(
    ops: &mut Ops,
    dat: &Dat<T>,
    path: impl AsRef<Path>,
    how: &Snapshot,
) -> Result<Picture, PlotError> {
    let path = path.as_ref();
    let name = ops
        .dat_name(dat)
        .map_err(|source| PlotError::Runtime {
            dat: format!("{dat:?}"),
            source: Box::new(source),
        })?
        .to_string();
    let runtime = |source| PlotError::Runtime {
        dat: name.clone(),
        source: Box::new(source),
    };
    let shape = |reason: String| PlotError::Shape {
        dat: name.clone(),
        reason,
    };
    let layout = ops.dat_layout(dat).map_err(runtime)?;
    if how.component >= layout.components {
        return Err(shape(format!(
            "component {} asked for, the dataset has {}",
            how.component, layout.components
        )));
    }
    let interior = layout.interior();
    let axis_name = ["x", "y", "z"];
    // The plane drawn: a box one point thick along the normal axis, and its two other axes.
    let (plane, axes, plane_note) = match (layout.dims, how.slice) {
        (2, None) => (interior, [0, 1], String::new()),
        (2, Some((axis, _))) => {
            return Err(shape(format!(
                "a plane normal to {} asked for, but the dataset is 2-D: draw it without a slice",
                axis_name.get(axis).unwrap_or(&"?")
            )))
        }
        (3, slice) => {
            let (axis, index) = slice.unwrap_or((2, (interior.lo()[2] + interior.hi()[2]) / 2));
            if axis > 2 {
                return Err(shape(format!(
                    "axis {axis}: a plane is normal to axis 0 (x), 1 (y) or 2 (z)"
                )));
            }
            let (lo, hi) = (interior.lo()[axis], interior.hi()[axis]);
            if index < lo || index >= hi {
                return Err(shape(format!(
                    "plane {} = {index} is outside the interior ({lo} to {})",
                    axis_name[axis],
                    hi - 1
                )));
            }
            let mut lo3 = interior.lo();
            let mut hi3 = interior.hi();
            lo3[axis] = index;
            hi3[axis] = index + 1;
            let plane = IterRange::new(3, lo3, hi3).expect("inside the interior");
            let others: Vec<usize> = (0..3).filter(|&a| a != axis).collect();
            (
                plane,
                [others[0], others[1]],
                format!(", {} = {index}", axis_name[axis]),
            )
        }
        (d, _) => {
            return Err(shape(format!(
                "a {d}-D dataset: snapshots draw 2-D datasets and planes of 3-D ones"
            )))
        }
    };
    // Under MPI the fetch gathers the plane on every process; process 0 draws it.
    let raw = ops.fetch_range(dat, plane).map_err(runtime)?;
    let drawing = ops.rank() == 0;
    let comps = layout.components;
    let values: Vec<f64> = raw
        .iter()
        .skip(how.component)
        .step_by(comps)
        .map(|v| as_f64(v.to_scalar()))
        .collect();
    let nu = (plane.hi()[axes[0]] - plane.lo()[axes[0]]) as usize;
    let nv = (plane.hi()[axes[1]] - plane.lo()[axes[1]]) as usize;
    // The fetched box is x fastest; along the plane, `axes[0]` varies faster than `axes[1]`.
    let value_at = |i: usize, j: usize| values[j * nu + i];
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let (min, max) = finite
        .fold(None, |acc: Option<(f64, f64)>, v| match acc {
            None => Some((v, v)),
            Some((a, b)) => Some((a.min(v), b.max(v))),
        })
        .unwrap_or((0.0, 0.0));

    // Field pixels: the longer side `size` long, each point at least one pixel.
    let longer = nu.max(nv) as f64;
    let fw = ((nu as f64 / longer) * how.size as f64).round().max(1.0) as u32;
    let fh = ((nv as f64 / longer) * how.size as f64).round().max(1.0) as u32;
    let (left, top, bar_w, right) = (16u32, 44u32, 18u32, 150u32);
    let (width, height) = (left + fw + right, top + fh + 28);
    let title = match &how.title {
        Some(t) => format!("{name}{plane_note}: {t}"),
        None => format!("{name}{plane_note}"),
    };

    let draw = |what: &str, e: &dyn std::fmt::Display| PlotError::Draw {
        path: path.to_path_buf(),
        reason: format!("{what}: {e}"),
    };
    if drawing {
        let root = BitMapBackend::new(path, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| draw("background", &e))?;
        root.draw(&Text::new(
            title,
            (left as i32, 12),
            font(18.0).color(&BLACK),
        ))
        .map_err(|e| draw("title", &e))?;
        for py in 0..fh {
            let j = (nv - 1) - ((py as u64 * nv as u64) / fh as u64) as usize;
            for px in 0..fw {
                let i = ((px as u64 * nu as u64) / fw as u64) as usize;
                let c = colour_of(value_at(i, j), min, max);
                root.draw_pixel(((left + px) as i32, (top + py) as i32), &c)
                    .map_err(|e| draw("field", &e))?;
            }
        }
        // The colour bar, top = max, and three labels.
        let bar_x = left + fw + 16;
        for py in 0..fh {
            let t = if fh > 1 {
                1.0 - py as f64 / (fh - 1) as f64
            } else {
                0.5
            };
            let c = colour_of(min + t * (max - min), min, max);
            for bx in 0..bar_w {
                root.draw_pixel(((bar_x + bx) as i32, (top + py) as i32), &c)
                    .map_err(|e| draw("colour bar", &e))?;
            }
        }
        let label_style = font(13.0)
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (t, y) in [(1.0, top), (0.5, top + fh / 2), (0.0, top + fh - 1)] {
            root.draw(&Text::new(
                format!("{:.4e}", min + t * (max - min)),
                ((bar_x + bar_w + 6) as i32, y as i32),
                label_style.clone(),
            ))
            .map_err(|e| draw("labels", &e))?;
        }
        root.draw(&Text::new(
            format!(
                "{} x {} points ({} across, {} up)",
                nu, nv, axis_name[axes[0]], axis_name[axes[1]]
            ),
            (left as i32, (top + fh + 8) as i32),
            font(12.0).color(&BLACK),
        ))
        .map_err(|e| draw("axes note", &e))?;
        root.present().map_err(|e| draw("writing the PNG", &e))?;
    }
    Ok(Picture {
        width,
        height,
        points: [nu, nv],
        min,
        max,
        field_area: [left, top, fw, fh],
    })
}
