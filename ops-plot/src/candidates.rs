//! A bar chart of the checkpoint candidates: what a checkpoint opened at each loop boundary of
//! the time step would save.

use std::path::Path;

use plotters::prelude::*;

use crate::{font, PlotError};

/// One candidate location: its name, the smallest and largest bytes measured there over the
/// passes observed, and whether the checkpoints use it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate<'a> {
    /// The location (`loop@file:line:col`).
    pub location: &'a str,
    /// Fewest bytes measured.
    pub bytes_min: u64,
    /// Most bytes measured (what the choice minimises).
    pub bytes_max: u64,
    /// The location the checkpoints use.
    pub chosen: bool,
}

/// Draws `candidates` (in the order of the time step) as a PNG bar chart at `path`: one bar
/// per loop boundary up to its largest measurement, a dark tick at its smallest, the chosen
/// location in orange and named under the chart.
pub fn candidates_png(
    candidates: &[Candidate<'_>],
    title: &str,
    path: impl AsRef<Path>,
) -> Result<(), PlotError> {
    let path = path.as_ref();
    let draw = |what: &str, e: &dyn std::fmt::Display| PlotError::Draw {
        path: path.to_path_buf(),
        reason: format!("{what}: {e}"),
    };
    let n = candidates.len().max(1);
    let top = candidates
        .iter()
        .map(|c| c.bytes_max)
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    // Bytes in the unit that keeps the axis readable.
    let (unit, scale) = [("GB", 1e9), ("MB", 1e6), ("kB", 1e3), ("B", 1.0)]
        .into_iter()
        .find(|(_, s)| top >= *s)
        .unwrap_or(("B", 1.0));
    let chosen = candidates.iter().position(|c| c.chosen);
    let root = BitMapBackend::new(path, (960, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| draw("background", &e))?;
    let (chart_area, note_area) = root.split_vertically(440);
    let mut chart = ChartBuilder::on(&chart_area)
        .caption(title, font(16.0))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..n as f64, 0f64..top * 1.08 / scale)
        .map_err(|e| draw("axes", &e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc("loop boundary in the time step")
        .x_label_formatter(&|x| format!("{}", *x as i64 + 1))
        .y_desc(format!("bytes saved ({unit})"))
        .label_style(font(12.0))
        .axis_desc_style(font(13.0))
        .draw()
        .map_err(|e| draw("mesh", &e))?;
    let orange = RGBColor(230, 120, 20);
    let blue = RGBColor(70, 110, 180);
    chart
        .draw_series(candidates.iter().enumerate().map(|(k, c)| {
            let colour = if c.chosen { orange } else { blue };
            Rectangle::new(
                [
                    (k as f64 + 0.1, 0.0),
                    (k as f64 + 0.9, c.bytes_max as f64 / scale),
                ],
                colour.filled(),
            )
        }))
        .map_err(|e| draw("bars", &e))?;
    chart
        .draw_series(candidates.iter().enumerate().map(|(k, c)| {
            PathElement::new(
                vec![
                    (k as f64 + 0.1, c.bytes_min as f64 / scale),
                    (k as f64 + 0.9, c.bytes_min as f64 / scale),
                ],
                BLACK.stroke_width(2),
            )
        }))
        .map_err(|e| draw("minima", &e))?;
    let note = match chosen {
        Some(k) => format!(
            "chosen: boundary {} of {}, {} ({:.3} {unit}); bar: most measured, tick: fewest",
            k + 1,
            candidates.len(),
            candidates[k].location,
            candidates[k].bytes_max as f64 / scale
        ),
        None => "no location chosen; bar: most measured, tick: fewest".to_string(),
    };
    note_area
        .draw(&Text::new(note, (12, 10), font(12.0).color(&BLACK)))
        .map_err(|e| draw("note", &e))?;
    root.present().map_err(|e| draw("writing the PNG", &e))?;
    Ok(())
}
