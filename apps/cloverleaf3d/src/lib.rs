//! CloverLeaf 3D: the UK-MAC Lagrangian-Eulerian hydrodynamics mini-app in three dimensions,
//! written against the `ops` structured-mesh EDSL. Every grid computation is a `par_loop` of a
//! `#[kernel]`, and the app has no checkpoint code: `--ops-checkpoint-*` is the whole interface.
//!
//! The binary reads an input deck (see [`deck`]), runs the original's hydro loop (see
//! [`clover`]), prints field summaries and the test-problem verdict in the original's format
//! (see [`output`]) and optionally writes the summaries as JSON and visualisation dumps.

#![warn(missing_docs)]

pub mod clover;
pub mod deck;
pub mod kernels;
pub mod output;
pub mod visit;

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use ops::prelude::*;
use ops_app_common::progress::{fraction_done, Progress};
use ops_app_common::summary::NotFinite;

use crate::clover::{Clover, Summary};
use crate::deck::{Deck, DeckError, Geometry};

/// Command line of the `cloverleaf3d` binary.
#[derive(clap::Parser, Debug, Clone)]
#[command(
    name = "cloverleaf3d",
    version,
    about = "CloverLeaf 3D hydrodynamics on the ops EDSL"
)]
pub struct Cli {
    /// Input deck (`*clover` ... `*endclover`). Without one, runs the built-in 96^3
    /// clover_bm_short benchmark (test problem 2).
    pub deck: Option<PathBuf>,
    /// Write every field summary, at full precision, to this JSON file.
    #[arg(long)]
    pub summary_json: Option<PathBuf>,
    /// Draw the final density (the middle plane normal to z) as a colour-mapped PNG (with a colour bar) to this file.
    #[arg(long, value_name = "FILE")]
    pub snapshot_png: Option<PathBuf>,
    /// Print the runtime's per-loop profile at the end (as the deck's `profiler_on`).
    #[arg(long)]
    pub profile: bool,
    /// Directory for visualisation dumps (`visit_frequency`).
    #[arg(long, default_value = ".")]
    pub visit_dir: PathBuf,
    /// Plain line output even on a terminal (no progress bar).
    #[arg(long)]
    pub no_progress: bool,
    /// Make every halo refresh the original makes, not only the halo points some loop reads
    /// (the same results, more loops; for checking that).
    #[arg(long, hide = true)]
    pub original_halos: bool,
    /// Runtime options.
    #[command(flatten)]
    pub ops: OpsArgs,
}

/// Why a run stopped early.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The deck is invalid.
    #[error("{0}")]
    Deck(#[from] DeckError),
    /// The runtime refused something.
    #[error("runtime: {0}")]
    Ops(#[from] OpsError),
    /// A picture could not be drawn.
    #[error(transparent)]
    Plot(#[from] ops::plot::PlotError),
    /// A visualisation dump could not be written.
    #[error(transparent)]
    Output(#[from] ops::io::IoError),
    /// Output could not be written.
    #[error("{what}: {source}")]
    Io {
        /// What was being written.
        what: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A quantity that steers or reports the run became NaN or infinite.
    #[error(transparent)]
    NotFinite(#[from] NotFinite),
    /// The step fell below the minimum.
    #[error(
        "timestep: small timestep {dt:e} at step {step} (below {dtmin:e}); set by cell \
         ({}, {}, {}) at x {:e}, y {:e}, z {:e}",
        cell[0], cell[1], cell[2], pos[0], pos[1], pos[2]
    )]
    SmallTimestep {
        /// Step number.
        step: u64,
        /// The step size.
        dt: f64,
        /// The minimum.
        dtmin: f64,
        /// Controlling cell (1-based).
        cell: [i64; 3],
        /// Its centre.
        pos: [f64; 3],
    },
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Every summary, the initial one first and the final state last.
    pub summaries: Vec<Summary>,
    /// Steps taken.
    pub steps: u64,
    /// Simulated time reached.
    pub time: f64,
    /// Wall time of the hydro loop (seconds).
    pub wall: f64,
    /// The verdict, when the deck names a published test problem.
    pub passed: Option<bool>,
    /// The runtime's per-loop profile table (always collected).
    pub profile: String,
}

/// Loads the deck the command line names (or the built-in one).
pub fn load_deck(cli: &Cli) -> Result<Deck, DeckError> {
    match &cli.deck {
        Some(p) => deck::load(p),
        None => deck::parse("<built-in clover_bm_short.in>", deck::DEFAULT_DECK),
    }
}

/// Runs the deck the command line names, printing to `out` (the summaries, the step lines when
/// not drawing a progress bar, the verdict and, if asked, the profile).
pub fn run(cli: &Cli, out: &mut dyn Write) -> Result<Outcome, AppError> {
    let io = |what: &str| {
        let what = what.to_string();
        move |source| AppError::Io { what, source }
    };
    let deck = load_deck(cli)?;
    let deck_name = cli
        .deck
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "built-in clover_bm_short".into());
    let mut ops = ops_from_args(&cli.ops)?;
    // A restart with another deck is refused, not mixed with the checkpoint's computation.
    ops.input_fingerprint("deck", &deck.fingerprint())?;
    // A distributed run reports from rank 0 only; every rank computes the same summaries.
    let (rank, ranks) = (ops.rank(), ops.ranks());
    let mut sink = std::io::sink();
    let out: &mut dyn Write = if rank == 0 { out } else { &mut sink };
    let banner =
        ops_app_common::output::banner("Clover 3D", ops.backend_name(), ops.threads(), ranks);
    writeln!(out, "{banner}").map_err(io("stdout"))?;
    let [nx, ny, nz] = deck.cells;
    writeln!(
        out,
        " Deck: {deck_name}: {nx} x {ny} x {nz} cells, {} state(s)",
        deck.states.len()
    )
    .map_err(io("stdout"))?;
    for note in &deck.notes {
        writeln!(out, " Note: {note}").map_err(io("stdout"))?;
    }
    let profile_on = cli.profile || deck.profiler_on;
    let mut visit = if deck.visit_frequency > 0 {
        Some(
            visit::VisitWriter::new(&cli.visit_dir)
                .map_err(io(&cli.visit_dir.display().to_string()))?,
        )
    } else {
        None
    };

    let mut clover = Clover::new(ops, deck)?;
    if cli.original_halos {
        clover.halos = clover::HaloPlan::Original;
    }
    let empty = clover.initialise()?;
    for n in empty {
        let why = match clover.deck.states[n - 1].geometry {
            Some(Geometry::Point { .. }) => {
                " (as in the original, a point state's xmin/ymin/zmin are shifted by a hundredth \
                 of a cell before being matched against vertices, so it usually matches none)"
            }
            _ => "",
        };
        writeln!(out, " Warning: state {n} covers no interior cell{why}").map_err(io("stdout"))?;
    }
    let mut summaries = Vec::new();
    let s0 = clover.field_summary()?;
    writeln!(out, "{}", output::summary_table(&s0)).map_err(io("stdout"))?;
    NotFinite::check_summary(&s0)?;
    summaries.push(s0);
    if let Some(v) = visit.as_mut() {
        v.dump(&mut clover)?;
    }

    let progress = Progress::new(rank == 0 && !cli.no_progress);
    let end_step = clover.deck.end_step;
    let end_time = clover.deck.end_time;
    let summary_frequency = clover.deck.summary_frequency;
    let visit_frequency = clover.deck.visit_frequency;
    let t0 = Instant::now();
    loop {
        let info = clover.hydro_step()?;
        let line = output::step_line(clover.step, info.time, &info);
        let fraction = fraction_done(clover.step, end_step, clover.time, end_time);
        let message = || {
            format!(
                "step {} t={:.4} dt={:.2e} ({})",
                clover.step,
                clover.time,
                info.dt,
                info.control.label()
            )
        };
        progress
            .step(out, fraction, message, &line)
            .map_err(io("stdout"))?;
        if let Err(e) = NotFinite::check_timestep(clover.step, info.dt) {
            progress.abandon();
            return Err(e.into());
        }
        if info.dt < clover.deck.dtmin {
            progress.abandon();
            return Err(AppError::SmallTimestep {
                step: clover.step,
                dt: info.dt,
                dtmin: clover.deck.dtmin,
                cell: info.cell,
                pos: info.pos,
            });
        }
        let done = clover.finished();
        if !done && summary_frequency != 0 && clover.step % summary_frequency == 0 {
            let s = clover.field_summary()?;
            progress
                .println(out, &output::summary_table(&s))
                .map_err(io("stdout"))?;
            if let Err(e) = NotFinite::check_summary(&s) {
                progress.abandon();
                return Err(e.into());
            }
            summaries.push(s);
        }
        if let Some(v) = visit.as_mut() {
            if done || clover.step % visit_frequency == 0 {
                v.dump(&mut clover)?;
            }
        }
        if done {
            break;
        }
    }
    // The final summary is part of the original's timed loop.
    let s = clover.field_summary()?;
    let wall = t0.elapsed().as_secs_f64();
    progress.finish();
    writeln!(out, "{}", output::summary_table(&s)).map_err(io("stdout"))?;
    NotFinite::check_summary(&s)?;
    summaries.push(s);
    writeln!(
        out,
        "\n Calculation complete\n Clover is finishing\n Wall clock {wall:.6} s ({} steps, {:.6} s/step)",
        clover.step,
        wall / clover.step.max(1) as f64
    )
    .map_err(io("stdout"))?;
    let passed = match output::verdict(clover.deck.test_problem, s.kinetic_energy) {
        Some((text, pass)) => {
            writeln!(out, "{text}").map_err(io("stdout"))?;
            Some(pass)
        }
        None => {
            if clover.deck.test_problem != 0 {
                writeln!(
                    out,
                    " Test problem {} has no published expected value (1 and 2 do)",
                    clover.deck.test_problem
                )
                .map_err(io("stdout"))?;
            }
            None
        }
    };
    if let Some(sent) = clover.ops.halo_bytes_sent() {
        writeln!(
            out,
            " Halo exchange: rank 0 sent {:.3} MB ({:.1} kB per step)",
            sent as f64 / 1e6,
            sent as f64 / 1e3 / clover.step.max(1) as f64
        )
        .map_err(io("stdout"))?;
    }
    let profile = clover.ops.profile_table();
    if profile_on {
        writeln!(out, "\n Profile (per loop):\n{profile}").map_err(io("stdout"))?;
    }
    if let Some(path) = cli.summary_json.as_ref().filter(|_| rank == 0) {
        std::fs::write(path, output::summaries_json(&summaries))
            .map_err(io(&path.display().to_string()))?;
    }
    // Flushes pending checkpoints and writes the resilience diagnostics, if any were asked for.
    if let Some(path) = &cli.snapshot_png {
        let title = format!("step {}, time {:.6e}", clover.step, clover.time);
        let how = ops::plot::Snapshot::new().title(title);
        ops::plot::snapshot_png(&mut clover.ops, &clover.f.density0, path, &how)?;
    }
    clover.ops.finish()?;
    Ok(Outcome {
        summaries,
        steps: clover.step,
        time: clover.time,
        wall,
        passed,
        profile,
    })
}
