//! TeaLeaf input decks: the `*tea` ... `*endtea` block of keywords.
//!
//! The syntax is the original mini-app's: keywords are case-insensitive, `=` and `,` separate
//! words like spaces, `!` and `;` start a comment, a lone `\` at the end of a line continues it,
//! and several keywords may share a line. A `state N` line owns the rest of its line, and so does
//! `tl_preconditioner_type` (every word after it must name a preconditioner; the last one wins).
//! Lines outside the `*tea` block are ignored.
//!
//! Where the original silently ignores a word it does not know, this reader reports an error
//! naming the file and the line; malformed numbers, missing or duplicated states and geometry
//! that cannot describe a region are errors too. Keywords the original knows but that mean
//! nothing here (tiling, kernel-language switches, visualisation) are accepted with a note, and a
//! value keyword given twice keeps the last value (as in the original) with a note.

use ops_app_common::deck::{
    check_mesh, check_states, generator_bounds, parse_int, parse_real, parse_state, tokenize,
    StateSpec, Word,
};
pub use ops_app_common::deck::{DeckError, Geometry, MAX_CELLS, MAX_CELLS_PER_DIM};

/// Expected volume-weighted temperature at the end of the published test problems (the values
/// the original checks against, as it writes them; 1..4 are the benchmark decks tea_bm_1..4).
#[allow(clippy::excessive_precision)]
pub const EXPECTED_TEMPERATURE: [(u32, f64); 6] = [
    (1, 157.55084183279294),
    (2, 106.27221178646569),
    (3, 99.955877498324000),
    (4, 97.277332050749976),
    (5, 95.462351583362249),
    (6, 95.174738768320850),
];

/// The expected final temperature of published test problem `n`, if it is one.
pub fn expected_temperature(n: u32) -> Option<f64> {
    EXPECTED_TEMPERATURE
        .iter()
        .find(|(k, _)| *k == n)
        .map(|(_, v)| *v)
}

/// One material state: its values and (for states after the first) where it applies.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// Density.
    pub density: f64,
    /// Specific internal energy (temperature = energy here).
    pub energy: f64,
    /// Region; `None` for state 1, the background that fills the whole mesh.
    pub geometry: Option<Geometry>,
}

/// The linear solver of each implicit step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    /// Jacobi iteration (`tl_use_jacobi`, the original's default).
    Jacobi,
    /// Conjugate gradients (`tl_use_cg`).
    Cg,
    /// Chebyshev iteration after CG pre-steps that estimate the eigenvalues (`tl_use_chebyshev`).
    Chebyshev,
    /// Polynomially preconditioned CG with Chebyshev inner steps (`tl_use_ppcg`).
    Ppcg,
}

impl Solver {
    /// The deck keyword that selects it.
    pub fn keyword(self) -> &'static str {
        match self {
            Solver::Jacobi => "tl_use_jacobi",
            Solver::Cg => "tl_use_cg",
            Solver::Chebyshev => "tl_use_chebyshev",
            Solver::Ppcg => "tl_use_ppcg",
        }
    }
}

/// The preconditioner of the CG-family solvers (`tl_preconditioner_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preconditioner {
    /// `none`.
    None,
    /// `jac_diag`: the inverse of the diagonal.
    JacDiag,
    /// `jac_block`: exact solves of the tridiagonal y-couplings in blocks of 4 rows.
    JacBlock,
}

impl Preconditioner {
    /// The deck word that selects it.
    pub fn word(self) -> &'static str {
        match self {
            Preconditioner::None => "none",
            Preconditioner::JacDiag => "jac_diag",
            Preconditioner::JacBlock => "jac_block",
        }
    }
}

/// What the conduction coefficient is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coefficient {
    /// The density (`tl_coefficient_density`, the default).
    Density,
    /// The inverse of the density (`tl_coefficient_inverse_density`).
    InverseDensity,
}

/// Everything a deck sets, with the original's defaults for what it leaves out.
#[derive(Clone, Debug, PartialEq)]
pub struct Deck {
    /// States in order; state 1 first. Later states overwrite earlier ones.
    pub states: Vec<State>,
    /// Cells in x.
    pub x_cells: usize,
    /// Cells in y.
    pub y_cells: usize,
    /// Domain left edge.
    pub xmin: f64,
    /// Domain bottom edge.
    pub ymin: f64,
    /// Domain right edge.
    pub xmax: f64,
    /// Domain top edge.
    pub ymax: f64,
    /// `initial_timestep`: every step's size.
    pub dtinit: f64,
    /// Simulated time at which to stop.
    pub end_time: f64,
    /// Step at which to stop.
    pub end_step: u64,
    /// Steps between field summaries (0: only at the start and the end).
    pub summary_frequency: u64,
    /// Steps between visualisation dumps (0: none).
    pub visit_frequency: u64,
    /// `tl_max_iters`: most solver iterations per step.
    pub max_iters: u32,
    /// `tl_eps`: convergence when the residual norm falls below `eps` times the initial one.
    pub eps: f64,
    /// The solver.
    pub solver: Solver,
    /// The preconditioner.
    pub preconditioner: Preconditioner,
    /// The conduction coefficient.
    pub coefficient: Coefficient,
    /// `tl_ch_cg_presteps`: CG steps before Chebyshev/PPCG may switch.
    pub ch_cg_presteps: i64,
    /// `tl_ch_cg_epslim`: the CG error below which Chebyshev/PPCG may switch.
    pub ch_cg_epslim: f64,
    /// `tl_ppcg_inner_steps` as resolved by the original (for PPCG without a value:
    /// `4 * int(sqrt(sqrt(x_cells * y_cells)))`; otherwise -1 when not given).
    pub ppcg_inner_steps: i64,
    /// `tl_check_result`: recompute the true residual after each solve.
    pub check_result: bool,
    /// `reflective_boundary`: couple the boundary cells to their reflected halo cells instead
    /// of zeroing the conduction coefficients on the domain faces.
    pub reflective_boundary: bool,
    /// `halo_depth`: depth of the halo updates of the density and energy and of the PPCG inner
    /// steps' matrix-powers exchanges.
    pub halo_depth: usize,
    /// `profiler_on`.
    pub profiler_on: bool,
    /// `verbose_on`: print the residual of every iteration.
    pub verbose: bool,
    /// Published test problem number (0: none).
    pub test_problem: u32,
    /// Notes about accepted keywords that have no effect here.
    pub notes: Vec<String>,
}

impl Deck {
    /// What the deck asks to compute, as bytes for the checkpoint's input fingerprint
    /// (`ResilienceExt::input_fingerprint`): everything but the settings a restart may change
    /// (when to stop, how often to report or draw, the profiler, the test-problem check) and the
    /// parser's notes.
    pub fn fingerprint(&self) -> Vec<u8> {
        let mut d = self.clone();
        d.end_time = 0.0;
        d.end_step = 0;
        d.summary_frequency = 0;
        d.profiler_on = false;
        d.verbose = false;
        d.test_problem = 0;
        d.notes.clear();
        format!("{d:?}").into_bytes()
    }
}

/// A real written as a single-precision literal in the original (its defaults are default-kind
/// `REAL` constants widened to double).
fn single(v: f32) -> f64 {
    v as f64
}

impl Default for Deck {
    /// The original reader's defaults (with no states).
    fn default() -> Self {
        Deck {
            states: Vec::new(),
            x_cells: 10,
            y_cells: 10,
            xmin: 0.0,
            ymin: 0.0,
            xmax: 100.0,
            ymax: 100.0,
            dtinit: single(0.1),
            end_time: 10.0,
            end_step: 640_000,
            summary_frequency: 10,
            visit_frequency: 0,
            max_iters: 1000,
            eps: single(1.0e-10),
            solver: Solver::Jacobi,
            preconditioner: Preconditioner::None,
            coefficient: Coefficient::Density,
            ch_cg_presteps: 25,
            ch_cg_epslim: 1.0,
            ppcg_inner_steps: -1,
            check_result: false,
            reflective_boundary: false,
            halo_depth: 1,
            profiler_on: false,
            verbose: false,
            test_problem: 0,
            notes: Vec::new(),
        }
    }
}

/// Largest `halo_depth` accepted.
pub const MAX_HALO_DEPTH: usize = 8;
/// Largest `tl_max_iters` accepted.
pub const MAX_ITERS: i64 = 1_000_000_000;
/// Largest `tl_ppcg_inner_steps` accepted (PPCG keeps a table of their coefficients).
pub const MAX_INNER_STEPS: i64 = 1_000_000;

/// Deck text of the built-in default problem (tea_bm_2: 250x250, CG, 10 steps, test problem 2).
pub const DEFAULT_DECK: &str = include_str!("../decks/tea_bm_2.in");

/// Parses deck text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Deck, DeckError> {
    let err = |line: usize, message: String| DeckError {
        file: file.to_string(),
        line,
        message,
    };
    let (lines, start) = tokenize(file, text, "tea")?;
    let mut deck = Deck::default();
    let mut states: Vec<Option<StateSpec>> = Vec::new();
    let mut seen: Vec<(&'static str, usize)> = Vec::new();
    let mut end_line = start;
    let mut inner_steps_given = false;
    let mut precond_line = 0;
    let mut halo_line = 0;

    for words in &lines {
        let mut it = words.iter().peekable();
        while let Some(w) = it.next() {
            end_line = w.line;
            let key = w.text.as_str();
            let mut value = |what: &str| -> Result<&Word, DeckError> {
                it.next()
                    .ok_or_else(|| err(w.line, format!("`{key}` needs {what} after it")))
            };
            // A value keyword given again keeps the last value, as in the original.
            let mut again = |k: &'static str, notes: &mut Vec<String>| {
                if let Some((_, at)) = seen.iter().find(|(s, _)| *s == k) {
                    notes.push(format!(
                        "line {}: `{k}` was already set on line {at}; the last value is used",
                        w.line
                    ));
                }
                seen.push((k, w.line));
            };
            match key {
                "initial_timestep" => {
                    again("initial_timestep", &mut deck.notes);
                    let v = parse_real(file, value("a value")?, key)?;
                    if v <= 0.0 {
                        return Err(err(w.line, "`initial_timestep` must be positive".into()));
                    }
                    deck.dtinit = v;
                }
                "end_time" => {
                    again("end_time", &mut deck.notes);
                    deck.end_time = parse_real(file, value("a value")?, key)?;
                }
                "end_step" => {
                    again("end_step", &mut deck.notes);
                    let v = parse_int(file, value("a value")?, key)?;
                    if v < 0 {
                        return Err(err(w.line, "`end_step` must not be negative".into()));
                    }
                    deck.end_step = v as u64;
                }
                "xmin" | "xmax" | "ymin" | "ymax" => {
                    let v = parse_real(file, value("a value")?, key)?;
                    match key {
                        "xmin" => {
                            again("xmin", &mut deck.notes);
                            deck.xmin = v
                        }
                        "xmax" => {
                            again("xmax", &mut deck.notes);
                            deck.xmax = v
                        }
                        "ymin" => {
                            again("ymin", &mut deck.notes);
                            deck.ymin = v
                        }
                        _ => {
                            again("ymax", &mut deck.notes);
                            deck.ymax = v
                        }
                    }
                }
                "x_cells" | "y_cells" => {
                    let v = parse_int(file, value("a value")?, key)?;
                    if v < 1 || v as u64 > MAX_CELLS_PER_DIM as u64 {
                        return Err(err(
                            w.line,
                            format!("`{key}` must be between 1 and {MAX_CELLS_PER_DIM}, got {v}"),
                        ));
                    }
                    if key == "x_cells" {
                        again("x_cells", &mut deck.notes);
                        deck.x_cells = v as usize;
                    } else {
                        again("y_cells", &mut deck.notes);
                        deck.y_cells = v as usize;
                    }
                }
                "summary_frequency" => {
                    again("summary_frequency", &mut deck.notes);
                    let v = parse_int(file, value("a value")?, key)?;
                    if v < 0 {
                        return Err(err(w.line, format!("`{key}` must not be negative")));
                    }
                    deck.summary_frequency = v as u64;
                }
                "tl_max_iters" => {
                    again("tl_max_iters", &mut deck.notes);
                    let v = parse_int(file, value("a value")?, key)?;
                    if !(1..=MAX_ITERS).contains(&v) {
                        return Err(err(
                            w.line,
                            format!("`tl_max_iters` must be between 1 and {MAX_ITERS}, got {v}"),
                        ));
                    }
                    deck.max_iters = v as u32;
                }
                "tl_eps" => {
                    again("tl_eps", &mut deck.notes);
                    let v = parse_real(file, value("a value")?, key)?;
                    // The solve stops when the residual falls below eps times the initial one:
                    // zero or less never converges (the original runs tl_max_iters iterations).
                    if !(v > 0.0 && v.is_finite()) {
                        return Err(err(
                            w.line,
                            format!("`tl_eps` must be a positive number, got {v}"),
                        ));
                    }
                    deck.eps = v;
                }
                "tl_ch_cg_presteps" => {
                    again("tl_ch_cg_presteps", &mut deck.notes);
                    let v = parse_int(file, value("a value")?, key)?;
                    if v.unsigned_abs() > MAX_ITERS as u64 {
                        return Err(err(w.line, format!("`{key}` {v} is out of range")));
                    }
                    deck.ch_cg_presteps = v;
                }
                "tl_ch_cg_epslim" => {
                    again("tl_ch_cg_epslim", &mut deck.notes);
                    deck.ch_cg_epslim = parse_real(file, value("a value")?, key)?;
                }
                "tl_ppcg_inner_steps" => {
                    again("tl_ppcg_inner_steps", &mut deck.notes);
                    let v = parse_int(file, value("a value")?, key)?;
                    if !(-1..=MAX_INNER_STEPS).contains(&v) {
                        return Err(err(
                            w.line,
                            format!("`{key}` must be between -1 and {MAX_INNER_STEPS}, got {v}"),
                        ));
                    }
                    deck.ppcg_inner_steps = v;
                    inner_steps_given = true;
                }
                "tl_use_jacobi" | "tl_use_cg" | "tl_use_chebyshev" | "tl_use_ppcg" => {
                    let s = match key {
                        "tl_use_jacobi" => Solver::Jacobi,
                        "tl_use_cg" => Solver::Cg,
                        "tl_use_chebyshev" => Solver::Chebyshev,
                        _ => Solver::Ppcg,
                    };
                    if let Some((_, at)) = seen.iter().find(|(k, _)| *k == "solver") {
                        deck.notes.push(format!(
                            "line {}: `{key}` overrides the solver chosen on line {at}",
                            w.line
                        ));
                    }
                    seen.push(("solver", w.line));
                    deck.solver = s;
                }
                "tl_preconditioner_type" => {
                    // Every further word of the line names a preconditioner; the last one wins.
                    let mut any = false;
                    for pw in it.by_ref() {
                        deck.preconditioner = match pw.text.as_str() {
                            "none" => Preconditioner::None,
                            "jac_diag" => Preconditioner::JacDiag,
                            "jac_block" => Preconditioner::JacBlock,
                            other => {
                                return Err(err(
                                    pw.line,
                                    format!(
                                        "invalid preconditioner type `{other}` (none, jac_diag \
                                         or jac_block)"
                                    ),
                                ))
                            }
                        };
                        any = true;
                    }
                    if !any {
                        return Err(err(
                            w.line,
                            "`tl_preconditioner_type` needs none, jac_diag or jac_block after it"
                                .into(),
                        ));
                    }
                    precond_line = w.line;
                }
                "tl_coefficient_density" => deck.coefficient = Coefficient::Density,
                "tl_coefficient_inverse_density" => deck.coefficient = Coefficient::InverseDensity,
                "tl_check_result" => deck.check_result = true,
                "reflective_boundary" => deck.reflective_boundary = true,
                "verbose_on" => deck.verbose = true,
                "profiler_on" => deck.profiler_on = true,
                "halo_depth" => {
                    again("halo_depth", &mut deck.notes);
                    let v = parse_int(file, value("a value")?, key)?;
                    if v < 1 {
                        return Err(err(
                            w.line,
                            format!("invalid halo exchange depth {v} (must be at least 1)"),
                        ));
                    }
                    if v as u64 > MAX_HALO_DEPTH as u64 {
                        return Err(err(
                            w.line,
                            format!("`halo_depth` {v} is above the supported {MAX_HALO_DEPTH}"),
                        ));
                    }
                    deck.halo_depth = v as usize;
                    halo_line = w.line;
                }
                "test_problem" => {
                    again("test_problem", &mut deck.notes);
                    let v = parse_int(file, value("a value")?, key)?;
                    if !(0..=i64::from(u32::MAX)).contains(&v) {
                        return Err(err(w.line, "`test_problem` must not be negative".into()));
                    }
                    deck.test_problem = v as u32;
                }
                "visit_frequency" => {
                    let v = parse_int(file, value("a value")?, key)?;
                    if v < 0 {
                        return Err(err(w.line, format!("`{key}` must not be negative")));
                    }
                    deck.visit_frequency = v as u64;
                }
                "tiles_per_task" | "sub_tiles_per_tile" | "tiles_per_problem"
                | "tiling_frequency" => {
                    let v = parse_int(file, value("a value")?, key)?;
                    deck.notes.push(format!(
                        "line {}: `{key} {v}` ignored: how a loop is split over threads is the \
                         runtime's business here",
                        w.line
                    ));
                }
                "use_fortran_kernels" | "use_c_kernels" => {
                    deck.notes.push(format!(
                        "line {}: `{key}` ignored: kernels come from one #[kernel] source",
                        w.line
                    ));
                }
                "state" => parse_state(file, w, it.by_ref(), &[], &mut states)?,
                other => {
                    return Err(err(w.line, format!("unknown keyword `{other}`")));
                }
            }
        }
    }

    // Whole-deck checks.
    let domain = [deck.xmin, deck.xmax, deck.ymin, deck.ymax];
    let cells = [deck.x_cells, deck.y_cells];
    check_mesh(file, end_line, !states.is_empty(), domain, cells)?;
    if deck.halo_depth > 1 && deck.preconditioner == Preconditioner::JacBlock {
        return Err(err(
            precond_line.max(halo_line),
            format!(
                "the jac_block preconditioner needs halo_depth 1 (got {}), as in the original",
                deck.halo_depth
            ),
        ));
    }
    // The original's guess for PPCG's inner steps when the deck gives none (in single
    // precision, as it computes it).
    if !inner_steps_given && deck.solver == Solver::Ppcg {
        let cells = (deck.x_cells * deck.y_cells) as f32;
        deck.ppcg_inner_steps = 4 * (cells.sqrt().sqrt() as i64);
    }
    for s in check_states(file, &states, end_line, false, &mut deck.notes)? {
        deck.states.push(State {
            density: s.density,
            energy: s.energy,
            geometry: s.geometry,
        });
    }
    Ok(deck)
}

/// Reads and parses a deck file.
pub fn load(path: &std::path::Path) -> Result<Deck, DeckError> {
    let (name, text) = ops_app_common::deck::read(path)?;
    parse(&name, &text)
}

impl Deck {
    /// Mesh spacing in x (the original divides by the cell count as a default-kind real).
    pub fn dx(&self) -> f64 {
        (self.xmax - self.xmin) / (self.x_cells as f32 as f64)
    }

    /// Mesh spacing in y.
    pub fn dy(&self) -> f64 {
        (self.ymax - self.ymin) / (self.y_cells as f32 as f64)
    }

    /// The region bounds the generator tests cells against for state `n` (0-based):
    /// `[xmin, xmax, ymin, ymax, radius]`, with the original's inward nudge of a hundredth of a
    /// cell on every state after the first (a circle's centre and a point move up and right).
    pub fn generator_bounds(&self, n: usize) -> [f64; 5] {
        generator_bounds(self.states[n].geometry, self.dx(), self.dy())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BM1: &str = "*tea\nstate 1 density=100.0 energy=0.0001\nstate 2 density=0.1 \
        energy=25.0 geometry=rectangle xmin=0.0 xmax=1.0 ymin=1.0 ymax=2.0\nx_cells=10\n\
        y_cells=10\nxmin=0.0\nymin=0.0\nxmax=10.0\nymax=10.0\ninitial_timestep=0.004\n\
        end_step=10\ntl_max_iters=10000\ntl_use_cg\ntl_eps 1.0e-15\ntest_problem 1\n*endtea\n";

    fn e(text: &str) -> DeckError {
        parse("t.in", text).unwrap_err()
    }

    #[test]
    fn parses_a_benchmark_deck() {
        let d = parse("t.in", BM1).unwrap();
        assert_eq!((d.x_cells, d.y_cells), (10, 10));
        assert_eq!(d.xmax, 10.0);
        assert_eq!(d.dtinit, 0.004);
        assert_eq!(d.end_step, 10);
        assert_eq!(d.max_iters, 10000);
        assert_eq!(d.solver, Solver::Cg);
        assert_eq!(d.eps, 1.0e-15);
        assert_eq!(d.test_problem, 1);
        assert_eq!(d.states.len(), 2);
        assert_eq!(d.states[0].geometry, None);
        assert_eq!(
            d.states[1].geometry,
            Some(Geometry::Rectangle {
                xmin: 0.0,
                xmax: 1.0,
                ymin: 1.0,
                ymax: 2.0
            })
        );
        assert!(d.notes.is_empty(), "{:?}", d.notes);
    }

    #[test]
    fn defaults_are_the_originals() {
        let d = parse("t", "*tea\nstate 1 density 1 energy 1\n*endtea").unwrap();
        assert_eq!(d.solver, Solver::Jacobi);
        assert_eq!(d.preconditioner, Preconditioner::None);
        assert_eq!(d.coefficient, Coefficient::Density);
        assert_eq!(d.max_iters, 1000);
        // Single-precision literals in the original.
        assert_eq!(d.eps, 1.0e-10f32 as f64);
        assert_eq!(d.dtinit, 0.1f32 as f64);
        assert_eq!(d.end_step, 640_000);
        assert_eq!(d.end_time, 10.0);
        assert_eq!(d.halo_depth, 1);
        assert_eq!(d.ch_cg_presteps, 25);
        assert_eq!(d.ppcg_inner_steps, -1);
        assert_eq!((d.xmax, d.ymax, d.x_cells), (100.0, 100.0, 10));
    }

    #[test]
    fn default_deck_is_the_benchmark() {
        let d = parse("<built-in>", DEFAULT_DECK).unwrap();
        assert_eq!((d.x_cells, d.y_cells), (250, 250));
        assert_eq!(d.end_step, 10);
        assert_eq!(d.test_problem, 2);
        assert_eq!(d.solver, Solver::Cg);
    }

    #[test]
    fn ppcg_inner_steps_guess() {
        let d = parse(
            "t",
            "*tea\nstate 1 density 1 energy 1\nx_cells 250 y_cells 250 tl_use_ppcg\n*endtea",
        )
        .unwrap();
        assert_eq!(d.ppcg_inner_steps, 60);
        let d = parse(
            "t",
            "*tea\nstate 1 density 1 energy 1\ntl_use_ppcg tl_ppcg_inner_steps 7\n*endtea",
        )
        .unwrap();
        assert_eq!(d.ppcg_inner_steps, 7);
        let d = parse("t", "*tea\nstate 1 density 1 energy 1\ntl_use_cg\n*endtea").unwrap();
        assert_eq!(d.ppcg_inner_steps, -1);
    }

    #[test]
    fn solver_and_preconditioner_words() {
        let d = parse(
            "t",
            "*TEA\nstate 1 density 1 energy 1\nTL_USE_CHEBYSHEV\ntl_preconditioner_type \
             jac_diag\ntl_coefficient_inverse_density tl_check_result reflective_boundary\n\
             halo_depth=2 verbose_on\n*ENDTEA",
        )
        .unwrap();
        assert_eq!(d.solver, Solver::Chebyshev);
        assert_eq!(d.preconditioner, Preconditioner::JacDiag);
        assert_eq!(d.coefficient, Coefficient::InverseDensity);
        assert!(d.check_result && d.reflective_boundary && d.verbose);
        assert_eq!(d.halo_depth, 2);
        let err = e("*tea\nstate 1 density 1 energy 1\ntl_preconditioner_type foo\n*endtea");
        assert_eq!(err.line, 3);
        assert!(err.message.contains("foo"), "{err}");
        let err = e(
            "*tea\nstate 1 density 1 energy 1\ntl_preconditioner_type jac_block\n\
             halo_depth 2\n*endtea",
        );
        assert!(err.message.contains("jac_block"), "{err}");
        // The last solver keyword wins, with a note.
        let d = parse(
            "t",
            "*tea\nstate 1 density 1 energy 1\ntl_use_cg\ntl_use_ppcg\n*endtea",
        )
        .unwrap();
        assert_eq!(d.solver, Solver::Ppcg);
        assert_eq!(d.notes.len(), 1);
    }

    #[test]
    fn syntax_variants() {
        let d = parse(
            "t",
            "junk before\n*TEA\n STATE 1 Density 0.5, energy=2 ! comment\n\
             x_cells 4 y_cells=3 ; more comment\n end_step=5 \\\n summary_frequency 0\n\
             *endtea\ntrailing junk\n",
        )
        .unwrap();
        assert_eq!(d.states[0].density, 0.5);
        assert_eq!(d.states[0].energy, 2.0);
        assert_eq!(
            (d.x_cells, d.y_cells, d.end_step, d.summary_frequency),
            (4, 3, 5, 0)
        );
        let d = parse("t", "*tea\nstate 1 density 1.5d0 energy 2E-1\n*endtea").unwrap();
        assert_eq!(d.states[0].density, 1.5);
        assert_eq!(d.states[0].energy, 0.2);
    }

    #[test]
    fn known_keywords_leave_notes() {
        let d = parse(
            "t",
            "*tea\nstate 1 density 1 energy 1\ntiles_per_task 4 use_fortran_kernels\n\
             visit_frequency 10 profiler_on\n*endtea",
        )
        .unwrap();
        assert_eq!(d.notes.len(), 2, "{:?}", d.notes);
        assert!(d.profiler_on);
        assert_eq!(d.visit_frequency, 10, "visualisation dumps are written");
        let d = parse(
            "t",
            "*tea\nstate 1 density 1 energy 1\nx_cells 3\nx_cells 5\n*endtea",
        )
        .unwrap();
        assert_eq!(d.x_cells, 5);
        assert_eq!(d.notes.len(), 1);
    }

    #[test]
    fn a_tolerance_that_can_never_be_met_is_refused() {
        for eps in ["0", "-1", "0.0e0"] {
            let err = e(&format!(
                "*tea\nstate 1 density 1 energy 1\ntl_eps {eps}\n*endtea"
            ));
            assert_eq!(err.line, 3);
            assert!(
                err.to_string()
                    .contains("`tl_eps` must be a positive number"),
                "{err}"
            );
        }
    }

    #[test]
    fn errors_have_lines() {
        let err = e("*tea\nstate 1 density 1 energy 1\n\n bogus=3\n*endtea");
        assert_eq!(err.line, 4);
        assert_eq!(err.to_string(), "t.in:4: unknown keyword `bogus`");
        let err = e("*tea\nstate 1 density 1 energy 1\nx_cells=1.5\n*endtea");
        assert_eq!(err.line, 3);
        let err = e("*tea\nstate 1 density 1 energy 1\nxmin abc\n*endtea");
        assert_eq!(err.line, 3);
        let err = e("*tea\nstate 1 density 1 energy 1\ntl_eps\n*endtea");
        assert_eq!(err.line, 3);
        let err = e(
            "*tea\nstate 1 density 1 energy 1\nstate 3 density 1 energy 1 \
                     geometry circle xmin 1 ymin 1 radius 1\n*endtea",
        );
        assert!(err.message.contains("state 2 is missing"), "{err}");
        let err = e("*tea\nx_cells 3\n*endtea");
        assert!(err.message.contains("no states"), "{err}");
        let err = e("*tea\nstate 1 density 1 energy 1\nstate 1 density 1 energy 1\n*endtea");
        assert_eq!(err.line, 3);
        let err = e(
            "*tea\nstate 1 density 1 energy 1\nstate 2 density 1 energy 1 geometry \
                     rectangle xmin 5 xmax 1 ymin 0 ymax 1\n*endtea",
        );
        assert!(err.message.contains("impossible"), "{err}");
        let err = e(
            "*tea\nstate 1 density 1 energy 1\nstate 2 density 1 energy 1 geometry \
                     triangle\n*endtea",
        );
        assert!(err.message.contains("triangle"), "{err}");
        let err = e("*tea\nstate 1 density 1 energy 1\nstate 2 density 1 energy 1\n*endtea");
        assert!(err.message.contains("geometry"), "{err}");
        let err = e("*tea\nstate 1 density 1 energy 1 xvel 3\n*endtea");
        assert!(err.message.contains("xvel"), "{err}");
        let err = e("*tea\nstate 1 density 1 energy 1\nxmin 5 xmax 1\n*endtea");
        assert!(err.message.contains("domain"), "{err}");
        let err = e("state 1 density 1 energy 1\n");
        assert!(err.message.contains("*tea"), "{err}");
        let err = e("*tea\nstate 1 density 1 energy 1\n");
        assert!(err.message.contains("never closed"), "{err}");
        let err = e("*tea\nstate 1 density 1 energy 1\nend_time nan\n*endtea");
        assert_eq!(err.line, 3);
        let err = e("*tea\nstate 1 density 0 energy 1\n*endtea");
        assert!(err.message.contains("density"), "{err}");
        let err = e("*tea\nstate 1 density 1 energy 1\nhalo_depth 0\n*endtea");
        assert!(err.message.contains("halo"), "{err}");
        let err = e("*tea\nstate 1 density 1 energy 1\ntl_max_iters 0\n*endtea");
        assert!(err.message.contains("tl_max_iters"), "{err}");
    }

    /// The expected values are the ones the original checks against: on every stored log of
    /// the original Fortran running a test problem (`reference/`), this port's verdict on the
    /// original's final temperature gives the original's verdict: the same `within` line (the
    /// difference it prints to 7 digits pins the expected value to about an ulp) and the same
    /// pass or fail.
    #[test]
    fn expected_values() {
        use ops_testkit::fortran;
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut checked = Vec::new();
        for (name, log) in fortran::logs_in(&root.join("reference"), ".tea.out") {
            let deck = load(&root.join("decks").join(&name)).unwrap_or_else(|e| panic!("{e}"));
            if deck.test_problem == 0 {
                continue;
            }
            let text = fortran::read_log(&log);
            let temperature = fortran::final_summary(&text).values[4];
            let (ours, pass) = crate::output::verdict(deck.test_problem, temperature).unwrap();
            // The original's verdict: the `within` line, then whether it passed (its log
            // file spells the failure "This is test is considered NOT PASSED").
            let mut theirs = text.lines().skip_while(|l| !l.starts_with("Test problem"));
            let (within, passed) = (theirs.next().unwrap(), theirs.next().unwrap());
            assert_eq!(
                ours.lines().next().unwrap().trim(),
                within.trim(),
                "{name}: verdict on the original's value {temperature}"
            );
            assert_eq!(pass, !passed.contains("NOT PASSED"), "{name}: {passed}");
            checked.push(deck.test_problem);
        }
        checked.sort();
        assert_eq!(checked, [1, 2, 3, 4], "test problems with a stored log");
        assert_eq!(expected_temperature(7), None);
    }

    /// Every deck shipped in `decks/` parses; the benchmark decks select CG.
    #[test]
    fn shipped_decks_parse() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/decks");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let d = load(&p).unwrap_or_else(|e| panic!("{e}"));
            if p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("tea_bm_")
            {
                assert_eq!(d.solver, Solver::Cg, "{}", p.display());
            }
            n += 1;
        }
        assert!(n >= 9, "{n} decks in {dir}");
    }
}
