//! TeaLeaf 2D: the UK-MAC implicit heat-conduction mini-app, written against the `ops`
//! structured-mesh EDSL. Every grid computation is a `par_loop` of a `#[kernel]`; what the
//! host computes are scalars handed out by the runtime's reductions.
//!
//! The binary reads an input deck (see [`deck`]), sets up the mesh and states (see [`tea`]),
//! runs the original's time loop with its implicit solve per step (see [`solve`]), prints the
//! field summaries and the test-problem verdict in the original's format (see [`output`]) and
//! optionally writes the summaries as JSON.

#![warn(missing_docs)]

pub mod deck;
pub mod kernels;
pub mod output;
pub mod solve;
pub mod tea;

/// The runtime's API as the app uses it: the `ops` facade, whose flags alone give the app
/// automatic checkpointing and restart by replay.
pub mod prelude {
    pub use ops::prelude::*;
}

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use crate::deck::{Deck, DeckError};
use crate::prelude::*;
use crate::solve::SolveError;
use crate::tea::{Summary, Tea};

/// The original's `g_small`: the slack in the end-time test (a single-precision constant there).
pub const G_SMALL: f64 = 1.0e-16_f32 as f64;

/// Command line of the `tealeaf` binary.
#[derive(clap::Parser, Debug, Clone)]
#[command(
    name = "tealeaf",
    version,
    about = "TeaLeaf 2D implicit heat conduction on the ops EDSL"
)]
pub struct Cli {
    /// Input deck (`*tea` ... `*endtea`). Without one, runs the built-in 250x250 tea_bm_2
    /// benchmark (CG, test problem 2).
    pub deck: Option<PathBuf>,
    /// Write every field summary, at full precision, to this JSON file.
    #[arg(long)]
    pub summary_json: Option<PathBuf>,
    /// Draw the final energy as a colour-mapped PNG (with a colour bar) to this file.
    #[arg(long, value_name = "FILE")]
    pub snapshot_png: Option<PathBuf>,
    /// Directory for visualisation dumps (`visit_frequency`: `tea.NNNNNN.h5` with density and
    /// energy per cell, and the XDMF series `tea.xmf`).
    #[arg(long, default_value = ".")]
    pub visit_dir: PathBuf,
    /// Print the runtime's per-loop profile at the end (as the deck's `profiler_on`).
    #[arg(long)]
    pub profile: bool,
    /// Runtime options.
    #[command(flatten)]
    pub ops: OpsArgs,
}

/// Stops the run when a field summary holds NaN or an infinity: what follows would be noise.
fn finite(s: &tea::Summary) -> std::result::Result<(), SolveError> {
    let quantities = [
        ("the total volume", s.volume),
        ("the total mass", s.mass),
        ("the mean density", s.density),
        ("the total energy", s.energy),
        ("the mean temperature", s.temperature),
    ];
    match quantities.iter().find(|(_, v)| !v.is_finite()) {
        Some((what, value)) => Err(SolveError::NotFinite {
            step: s.step,
            what: format!("{what} in the field summary"),
            value: *value,
        }),
        None => Ok(()),
    }
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
    /// The solver could not go on.
    #[error("{0}")]
    Solve(#[from] SolveError),
    /// Output could not be written.
    #[error("{what}: {source}")]
    Io {
        /// What was being written.
        what: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Every summary, the initial one first and the final state last.
    pub summaries: Vec<Summary>,
    /// The solver's iteration count of every step (the original's "Iteration count").
    pub iterations: Vec<u64>,
    /// Steps taken.
    pub steps: u64,
    /// Simulated time reached.
    pub time: f64,
    /// Wall time of the time loop (seconds).
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
        None => deck::parse("<built-in tea_bm_2.in>", deck::DEFAULT_DECK),
    }
}

/// One visualisation dump: density and energy per cell on the deck's mesh (every process
/// calls it under mpirun; process 0 writes).
fn dump(tea: &mut Tea, series: &mut ops::io::Series) -> Result<(), AppError> {
    let d = &tea.deck;
    let mesh = ops::io::Mesh::uniform(
        &[tea.nx as usize, tea.ny as usize],
        &[d.xmin, d.ymin],
        &[d.dx(), d.dy()],
    );
    let fields = [("density", tea.d.density), ("energy", tea.d.energy1)];
    series.dump_step(&mut tea.ops, (tea.step, tea.time), mesh, &fields)?;
    Ok(())
}

/// Runs the deck the command line names, printing to `out` in the original's format (step
/// lines, solver reports, field summaries, the verdict and, if asked, the profile).
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
        .unwrap_or_else(|| "built-in tea_bm_2".into());
    let mut ops = ops_from_args(&cli.ops)?;
    // A restart with another deck is refused, not mixed with the checkpoint's computation.
    ops.input_fingerprint("deck", &deck.fingerprint())?;
    // A distributed run reports from rank 0 only; every rank computes the same summaries.
    let (rank, ranks) = (ops.rank(), ops.ranks());
    let mut sink = std::io::sink();
    let out: &mut dyn Write = if rank == 0 { out } else { &mut sink };
    let banner = ops_app_common::output::banner("Tea", ops.backend_name(), ops.threads(), ranks);
    writeln!(out, "{banner}").map_err(io("stdout"))?;
    writeln!(
        out,
        " Deck: {deck_name}: {} x {} cells, {} state(s), solver {}, preconditioner {}",
        deck.x_cells,
        deck.y_cells,
        deck.states.len(),
        deck.solver.keyword(),
        deck.preconditioner.word()
    )
    .map_err(io("stdout"))?;
    for note in &deck.notes {
        writeln!(out, " Note: {note}").map_err(io("stdout"))?;
    }
    let profile_on = cli.profile || deck.profiler_on;

    let mut tea = Tea::new(ops, deck)?;
    let empty = tea.initialise()?;
    for n in empty {
        let why = match tea.deck.states[n - 1].geometry {
            Some(deck::Geometry::Point { .. }) => {
                " (as in the original, a point state's xmin/ymin are shifted by a hundredth of a \
                 cell before being matched against vertices, so it usually matches none)"
            }
            _ => "",
        };
        writeln!(out, " Warning: state {n} covers no interior cell{why}").map_err(io("stdout"))?;
    }
    let mut summaries = Vec::new();
    let s0 = tea.field_summary(0)?;
    writeln!(out, "{}", output::summary_table(&s0)).map_err(io("stdout"))?;
    summaries.push(s0);

    let visit_frequency = tea.deck.visit_frequency;
    let mut visit = if visit_frequency > 0 {
        std::fs::create_dir_all(&cli.visit_dir)
            .map_err(io(&cli.visit_dir.display().to_string()))?;
        let mut series = ops::io::Series::new(cli.visit_dir.join("tea.xmf"));
        dump(&mut tea, &mut series)?;
        Some(series)
    } else {
        None
    };
    let end_step = tea.deck.end_step;
    let end_time = tea.deck.end_time;
    let summary_frequency = tea.deck.summary_frequency;
    let mut iterations = Vec::new();
    let mut unconverged = 0u64;
    let t0 = Instant::now();
    loop {
        tea.step += 1;
        // timestep: the step size is always initial_timestep.
        tea.dt = tea.dt.min(tea.deck.dtinit);
        writeln!(out, "{}", output::step_line(tea.step, tea.time, tea.dt)).map_err(io("stdout"))?;
        let report = tea.solve()?;
        writeln!(out, "{}", output::solve_lines(&report)).map_err(io("stdout"))?;
        if !report.error.is_finite() {
            return Err(SolveError::NotFinite {
                step: tea.step,
                what: "the solve's residual".into(),
                value: report.error,
            }
            .into());
        }
        if !report.converged {
            unconverged += 1;
            let line = format!(
                " Warning: step {}: the solve did not converge in tl_max_iters = {} iterations \
                 (residual {:.3e} of the initial, tl_eps {:.3e})",
                tea.step, tea.deck.max_iters, report.error, tea.deck.eps
            );
            writeln!(out, "{line}").map_err(io("stdout"))?;
        }
        iterations.push(report.iterations);
        tea.time += tea.dt;
        let done = tea.time + G_SMALL > end_time || tea.step >= end_step;
        if !done && summary_frequency != 0 && tea.step % summary_frequency == 0 {
            let s = tea.field_summary(report.iterations)?;
            writeln!(out, "{}", output::summary_table(&s)).map_err(io("stdout"))?;
            finite(&s)?;
            summaries.push(s);
        }
        if let Some(series) = visit.as_mut() {
            if done || tea.step % visit_frequency == 0 {
                dump(&mut tea, series)?;
            }
        }
        if done {
            break;
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    let last_iterations = iterations.last().copied().unwrap_or(0);
    let s = tea.field_summary(last_iterations)?;
    writeln!(out, "{}", output::summary_table(&s)).map_err(io("stdout"))?;
    finite(&s)?;
    summaries.push(s);
    if unconverged > 0 {
        writeln!(
            out,
            " Warning: {unconverged} of {} steps did not converge (raise tl_max_iters or tl_eps)",
            tea.step
        )
        .map_err(io("stdout"))?;
    }
    writeln!(
        out,
        " Calculation complete\n Tea is finishing\n Wall clock {wall:.6} s ({} steps, {} solver \
         iterations)",
        tea.step,
        iterations.iter().sum::<u64>()
    )
    .map_err(io("stdout"))?;
    let passed = match output::verdict(tea.deck.test_problem, s.temperature) {
        Some((text, pass)) => {
            writeln!(out, "{text}").map_err(io("stdout"))?;
            Some(pass)
        }
        None => {
            if tea.deck.test_problem != 0 {
                writeln!(
                    out,
                    " Test problem {} has no published expected value (1..6 do)",
                    tea.deck.test_problem
                )
                .map_err(io("stdout"))?;
            }
            None
        }
    };
    let profile = tea.ops.profile_table();
    if profile_on {
        writeln!(out, "\n Profile (per loop):\n{profile}").map_err(io("stdout"))?;
    }
    if let Some(path) = cli.summary_json.as_ref().filter(|_| rank == 0) {
        std::fs::write(path, output::summaries_json(&summaries))
            .map_err(io(&path.display().to_string()))?;
    }
    if let Some(path) = &cli.snapshot_png {
        let title = format!("step {}, time {:.6e}", tea.step, tea.time);
        let how = ops::plot::Snapshot::new().title(title);
        ops::plot::snapshot_png(&mut tea.ops, &tea.d.energy1, path, &how)?;
    }
    tea.ops.finish()?;
    Ok(Outcome {
        summaries,
        iterations,
        steps: tea.step,
        time: tea.time,
        wall,
        passed,
        profile,
    })
}
