//! CloverLeaf 3D input decks: the `*clover` ... `*endclover` block of keywords.
//!
//! The syntax is the original mini-app's (read by `ops_app_common::deck::tokenize`): keywords are
//! case-insensitive, `=` and `,` separate words like spaces, `!` and `;` start a comment, a lone
//! `\` continues the line, and several `key value` pairs may share a line. A `state N` line owns
//! the rest of its line. Lines outside the `*clover` block are ignored.
//!
//! Unlike the original, which skips words it does not know, every problem is an error naming the
//! file and line: unknown keywords, malformed numbers, states that are missing or defined twice,
//! geometry that cannot describe a region. Keywords the original (or its siblings) read but that
//! mean nothing here (tiling, kernel-language switches, `checkpoint_frequency`) are accepted and
//! reported as notes.

use ops_app_common::deck::{
    check_mesh_dims, parse_int, parse_real, parse_state_with, tokenize, StateKeywords, StateSpec,
    Word,
};
pub use ops_app_common::deck::{DeckError, MAX_CELLS, MAX_CELLS_PER_DIM};

/// Expected kinetic energy at the end of the published 3-D test problems: 1 (10x2x2, 75 steps)
/// and 2 (clover_bm_short, 96^3, 87 steps).
pub const EXPECTED_KE: [(u32, f64); 2] = [(1, 3.64560737191257), (2, 20.0546870878964)];

/// The expected final kinetic energy of published test problem `n`, if it is one.
pub fn expected_kinetic_energy(n: u32) -> Option<f64> {
    EXPECTED_KE.iter().find(|(k, _)| *k == n).map(|(_, v)| *v)
}

/// The region a state fills (bounds as written in the deck).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Geometry {
    /// Cells whose extent overlaps `[xmin, xmax] x [ymin, ymax] x [zmin, zmax]`.
    Cuboid {
        /// `[xmin, ymin, zmin]`.
        min: [f64; 3],
        /// `[xmax, ymax, zmax]`.
        max: [f64; 3],
    },
    /// Cells whose centre lies within `radius` of `centre`.
    Sphere {
        /// `(xmin, ymin, zmin)` of the deck.
        centre: [f64; 3],
        /// Radius.
        radius: f64,
    },
    /// The cell whose lower-left-back vertex is exactly `at`.
    Point {
        /// `(xmin, ymin, zmin)` of the deck.
        at: [f64; 3],
    },
}

impl Geometry {
    /// The generator's code for the geometry: 1 cuboid, 2 sphere, 3 point.
    pub fn code(&self) -> i32 {
        match self {
            Geometry::Cuboid { .. } => 1,
            Geometry::Sphere { .. } => 2,
            Geometry::Point { .. } => 3,
        }
    }
}

/// One material state: its values and (for states after the first) where it applies.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// Density.
    pub density: f64,
    /// Specific internal energy.
    pub energy: f64,
    /// Initial velocity `[xvel, yvel, zvel]`.
    pub velocity: [f64; 3],
    /// Region; `None` for state 1, the background that fills the whole mesh.
    pub geometry: Option<Geometry>,
}

/// The bounds the generator tests cells against for one state: the deck's bounds moved inwards
/// by a hundredth of a cell (as the original does, so that a bound on a cell face does not
/// depend on rounding), the radius unchanged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeneratorBounds {
    /// Nudged `[xmin, ymin, zmin]` (also a sphere's centre or a point).
    pub min: [f64; 3],
    /// Nudged `[xmax, ymax, zmax]` (zeros unless a cuboid).
    pub max: [f64; 3],
    /// Sphere radius (zero otherwise).
    pub radius: f64,
}

/// Everything a deck sets, with the original's defaults for what it leaves out.
#[derive(Clone, Debug, PartialEq)]
pub struct Deck {
    /// States in order; state 1 first. Later states overwrite earlier ones.
    pub states: Vec<State>,
    /// Cells per direction `[x_cells, y_cells, z_cells]`.
    pub cells: [usize; 3],
    /// Domain `[xmin, ymin, zmin]`.
    pub min: [f64; 3],
    /// Domain `[xmax, ymax, zmax]`.
    pub max: [f64; 3],
    /// `initial_timestep` (the original's dtinit).
    pub dtinit: f64,
    /// `max_timestep` (dtmax).
    pub dtmax: f64,
    /// `timestep_rise` (dtrise): the most a step may grow by.
    pub dtrise: f64,
    /// Smallest acceptable step (not settable from a deck in the original).
    pub dtmin: f64,
    /// Safety factor on the sound-speed limit.
    pub dtc_safe: f64,
    /// Safety factor on the x-velocity limit.
    pub dtu_safe: f64,
    /// Safety factor on the y-velocity limit.
    pub dtv_safe: f64,
    /// Safety factor on the z-velocity limit.
    pub dtw_safe: f64,
    /// Safety factor on the divergence limit.
    pub dtdiv_safe: f64,
    /// Simulated time at which to stop.
    pub end_time: f64,
    /// Step at which to stop.
    pub end_step: u64,
    /// Steps between field summaries (0: only at the start and the end).
    pub summary_frequency: u64,
    /// Steps between visualisation dumps (0: none).
    pub visit_frequency: u64,
    /// Whether `profiler_on` was given.
    pub profiler_on: bool,
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
        d.visit_frequency = 0;
        d.profiler_on = false;
        d.test_problem = 0;
        d.notes.clear();
        format!("{d:?}").into_bytes()
    }
}

impl Default for Deck {
    /// The original 3-D reader's defaults (with no states).
    fn default() -> Self {
        Deck {
            states: Vec::new(),
            cells: [10, 10, 10],
            min: [0.0; 3],
            max: [100.0; 3],
            dtinit: 0.1,
            dtmax: 1.0,
            dtrise: 1.05,
            dtmin: 0.0000001,
            dtc_safe: 0.75,
            dtu_safe: 0.5,
            dtv_safe: 0.5,
            dtw_safe: 0.5,
            dtdiv_safe: 0.5,
            end_time: 10.0,
            end_step: 640_000,
            summary_frequency: 10,
            visit_frequency: 0,
            profiler_on: false,
            test_problem: 0,
            notes: Vec::new(),
        }
    }
}

/// Characters of a line the original reads (its format `(a150)`).
const ORIGINAL_LINE_LENGTH: usize = 150;

/// Deck text of the built-in default problem (clover_bm_short: 96^3, 87 steps, test problem 2).
pub const DEFAULT_DECK: &str = include_str!("../decks/clover_bm_short.in");

/// The names a state's `geometry` takes, and the state keywords beyond the common ones.
const STATE_KEYWORDS: StateKeywords<'static> = StateKeywords {
    geometries: &["cuboid", "sphere", "point"],
    extra_keys: &["xvel", "yvel", "zvel", "zmin", "zmax"],
};

/// Parses deck text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Deck, DeckError> {
    let err = |line: usize, message: String| DeckError {
        file: file.to_string(),
        line,
        message,
    };
    let (lines, start) = tokenize(file, text, "clover")?;
    let mut deck = Deck::default();
    let mut states: Vec<Option<StateSpec>> = Vec::new();
    let mut seen: Vec<(&'static str, usize)> = Vec::new();
    let mut end_line = start;

    for words in &lines {
        let mut it = words.iter().peekable();
        while let Some(w) = it.next() {
            end_line = w.line;
            let key = w.text.as_str();
            let mut value = || -> Result<&Word, DeckError> {
                it.next()
                    .ok_or_else(|| err(w.line, format!("`{key}` needs a value after it")))
            };
            // A keyword given twice is an error naming where it was first set.
            let mut once = |k: &'static str| -> Result<(), DeckError> {
                if let Some((_, at)) = seen.iter().find(|(s, _)| *s == k) {
                    return Err(err(
                        w.line,
                        format!("`{k}` is set twice (first on line {at})"),
                    ));
                }
                seen.push((k, w.line));
                Ok(())
            };
            match key {
                "initial_timestep" | "max_timestep" | "timestep_rise" => {
                    let k = match key {
                        "initial_timestep" => "initial_timestep",
                        "max_timestep" => "max_timestep",
                        _ => "timestep_rise",
                    };
                    once(k)?;
                    let v = parse_real(file, value()?, key)?;
                    if v <= 0.0 {
                        return Err(err(w.line, format!("`{key}` must be positive, got {v}")));
                    }
                    match k {
                        "initial_timestep" => deck.dtinit = v,
                        "max_timestep" => deck.dtmax = v,
                        _ => deck.dtrise = v,
                    }
                }
                "end_time" => {
                    once("end_time")?;
                    deck.end_time = parse_real(file, value()?, key)?;
                }
                "end_step" => {
                    once("end_step")?;
                    let v = parse_int(file, value()?, key)?;
                    if v < 0 {
                        return Err(err(w.line, "`end_step` must not be negative".into()));
                    }
                    deck.end_step = v as u64;
                }
                "xmin" | "ymin" | "zmin" | "xmax" | "ymax" | "zmax" => {
                    let (k, axis, is_min): (&'static str, usize, bool) = match key {
                        "xmin" => ("xmin", 0, true),
                        "ymin" => ("ymin", 1, true),
                        "zmin" => ("zmin", 2, true),
                        "xmax" => ("xmax", 0, false),
                        "ymax" => ("ymax", 1, false),
                        _ => ("zmax", 2, false),
                    };
                    once(k)?;
                    let v = parse_real(file, value()?, key)?;
                    if is_min {
                        deck.min[axis] = v;
                    } else {
                        deck.max[axis] = v;
                    }
                }
                "x_cells" | "y_cells" | "z_cells" => {
                    let (k, axis): (&'static str, usize) = match key {
                        "x_cells" => ("x_cells", 0),
                        "y_cells" => ("y_cells", 1),
                        _ => ("z_cells", 2),
                    };
                    once(k)?;
                    let v = parse_int(file, value()?, key)?;
                    if v < 1 || v as u64 > MAX_CELLS_PER_DIM as u64 {
                        return Err(err(
                            w.line,
                            format!("`{key}` must be between 1 and {MAX_CELLS_PER_DIM}, got {v}"),
                        ));
                    }
                    deck.cells[axis] = v as usize;
                }
                "visit_frequency" | "summary_frequency" => {
                    let v = parse_int(file, value()?, key)?;
                    if v < 0 {
                        return Err(err(w.line, format!("`{key}` must not be negative")));
                    }
                    if key == "visit_frequency" {
                        once("visit_frequency")?;
                        deck.visit_frequency = v as u64;
                    } else {
                        once("summary_frequency")?;
                        deck.summary_frequency = v as u64;
                    }
                }
                "test_problem" => {
                    once("test_problem")?;
                    let v = parse_int(file, value()?, key)?;
                    if !(0..=i64::from(u32::MAX)).contains(&v) {
                        return Err(err(w.line, "`test_problem` must not be negative".into()));
                    }
                    deck.test_problem = v as u32;
                }
                "profiler_on" => {
                    deck.profiler_on = true;
                    // Some decks give it a value; accept the common spellings.
                    if let Some(next) = it.peek() {
                        match next.text.as_str() {
                            "1" | "on" | "true" | ".true." => {
                                it.next();
                            }
                            "0" | "off" | "false" | ".false." => {
                                it.next();
                                deck.profiler_on = false;
                            }
                            _ => {}
                        }
                    }
                }
                "tiles_per_chunk" | "tiles_per_problem" | "checkpoint_frequency" => {
                    let v = parse_int(file, value()?, key)?;
                    let why = if key == "checkpoint_frequency" {
                        "checkpoints are automatic here (`--ops-checkpoint-*` flags)"
                    } else {
                        "tiling is the runtime's business here"
                    };
                    deck.notes
                        .push(format!("line {}: `{key} {v}` ignored: {why}", w.line));
                }
                "1d_tile_decomposition" | "2d_tile_decomposition" | "3d_tile_decomposition" => {
                    deck.notes.push(format!(
                        "line {}: `{key}` ignored: tiling is the runtime's business here",
                        w.line
                    ));
                }
                "use_fortran_kernels" | "use_c_kernels" | "use_oa_kernels" => {
                    deck.notes.push(format!(
                        "line {}: `{key}` ignored: kernels come from one #[kernel] source",
                        w.line
                    ));
                }
                "dtinit" | "dtmax" | "dtmin" | "dtrise" | "dtc_safe" | "dtu_safe" | "dtv_safe"
                | "dtw_safe" | "dtdiv_safe" | "use_vector_loops" => {
                    // Names of the original's internal settings; its reader does not set them
                    // from a deck (nor does this one), so they are skipped with their value.
                    let mut shown = key.to_string();
                    if let Some(next) = it.peek() {
                        if parse_real(file, next, key).is_ok() {
                            shown = format!("{key} {}", next.text);
                            it.next();
                        }
                    }
                    let hint = match key {
                        "dtinit" => " (use `initial_timestep`)",
                        "dtmax" => " (use `max_timestep`)",
                        "dtrise" => " (use `timestep_rise`)",
                        _ => "",
                    };
                    deck.notes.push(format!(
                        "line {}: `{shown}` ignored: the original's reader does not set it{hint}",
                        w.line
                    ));
                }
                "state" => parse_state_with(file, w, it.by_ref(), &STATE_KEYWORDS, &mut states)?,
                other => {
                    return Err(err(w.line, format!("unknown keyword `{other}`")));
                }
            }
        }
    }

    // The original reads 150 characters of each line and drops the rest without a word.
    for (i, line) in text.lines().enumerate().take(end_line).skip(start) {
        if line.chars().count() > ORIGINAL_LINE_LENGTH {
            deck.notes.push(format!(
                "line {}: longer than the {ORIGINAL_LINE_LENGTH} characters the original reads                  of a line (it would ignore the rest; this reader reads all of it)",
                i + 1
            ));
        }
    }
    let extents: Vec<(f64, f64)> = (0..3).map(|a| (deck.min[a], deck.max[a])).collect();
    check_mesh_dims(file, end_line, !states.is_empty(), &extents, &deck.cells)?;
    deck.states = check_states(file, &states, end_line, &mut deck.notes)?;
    Ok(deck)
}

/// The whole-deck checks of the states: every state from 1 up is there, with a positive density
/// and an energy that is not negative; every state after the first has a geometry with the bounds
/// it uses (a cuboid's mins below its maxes, a sphere's radius positive). State 1's geometry is
/// ignored with a note.
fn check_states(
    file: &str,
    states: &[Option<StateSpec>],
    end_line: usize,
    notes: &mut Vec<String>,
) -> Result<Vec<State>, DeckError> {
    let err = |line: usize, message: String| DeckError {
        file: file.to_string(),
        line,
        message,
    };
    let last_state_line = states
        .iter()
        .flatten()
        .map(|s| s.line)
        .max()
        .unwrap_or(end_line);
    let mut checked = Vec::with_capacity(states.len());
    for (i, s) in states.iter().enumerate() {
        let n = i + 1;
        let Some(s) = s else {
            return Err(err(
                last_state_line,
                format!("state {n} is missing (states must be numbered 1, 2, 3, ...)"),
            ));
        };
        let line = s.line;
        let density = s
            .density
            .ok_or_else(|| err(line, format!("state {n} has no density")))?;
        if density <= 0.0 {
            return Err(err(
                line,
                format!("state {n}: density must be positive, got {density}"),
            ));
        }
        let energy = s
            .energy
            .ok_or_else(|| err(line, format!("state {n} has no energy")))?;
        if energy < 0.0 {
            return Err(err(
                line,
                format!("state {n}: energy must not be negative, got {energy}"),
            ));
        }
        let geometry = if n == 1 {
            if s.geometry.is_some() || s.radius.is_some() {
                notes.push(format!(
                    "line {line}: state 1 is the background and fills the whole mesh; its \
                     geometry is ignored"
                ));
            }
            None
        } else {
            let (g, gline) = s.geometry.clone().ok_or_else(|| {
                err(
                    line,
                    format!("state {n} needs a geometry (cuboid, sphere or point)"),
                )
            })?;
            let need = |v: Option<f64>, what: &str| {
                v.ok_or_else(|| err(gline, format!("state {n}: {g} geometry needs `{what}`")))
            };
            let low = [
                need(s.xmin, "xmin")?,
                need(s.ymin, "ymin")?,
                need(s.extra("zmin"), "zmin")?,
            ];
            Some(match g.as_str() {
                "cuboid" => {
                    let high = [
                        need(s.xmax, "xmax")?,
                        need(s.ymax, "ymax")?,
                        need(s.extra("zmax"), "zmax")?,
                    ];
                    if (0..3).any(|a| high[a] <= low[a]) {
                        return Err(err(
                            gline,
                            format!(
                                "state {n}: impossible cuboid [{}, {}] x [{}, {}] x [{}, {}] \
                                 (min must be below max)",
                                low[0], high[0], low[1], high[1], low[2], high[2]
                            ),
                        ));
                    }
                    Geometry::Cuboid {
                        min: low,
                        max: high,
                    }
                }
                "sphere" => {
                    let radius = need(s.radius, "radius")?;
                    if radius <= 0.0 {
                        return Err(err(
                            gline,
                            format!("state {n}: impossible sphere of radius {radius}"),
                        ));
                    }
                    Geometry::Sphere {
                        centre: low,
                        radius,
                    }
                }
                _ => Geometry::Point { at: low },
            })
        };
        checked.push(State {
            density,
            energy,
            velocity: [
                s.extra("xvel").unwrap_or(0.0),
                s.extra("yvel").unwrap_or(0.0),
                s.extra("zvel").unwrap_or(0.0),
            ],
            geometry,
        });
    }
    Ok(checked)
}

/// Reads and parses a deck file.
pub fn load(path: &std::path::Path) -> Result<Deck, DeckError> {
    let (name, text) = ops_app_common::deck::read(path)?;
    parse(&name, &text)
}

impl Deck {
    /// Mesh spacing per direction, as the original computes it.
    pub fn spacing(&self) -> [f64; 3] {
        // The original divides by the cell count converted to single precision (`float`);
        // counts up to 2^24 convert exactly, so the double division is the same.
        [0, 1, 2].map(|a| (self.max[a] - self.min[a]) / self.cells[a] as f64)
    }

    /// The bounds the generator tests cells against for state `n` (0-based; a state after the
    /// first), with the original's inward nudge of a hundredth of a cell.
    pub fn generator_bounds(&self, n: usize) -> GeneratorBounds {
        let d = self.spacing();
        let nudge = [d[0] / 100.0, d[1] / 100.0, d[2] / 100.0];
        match self.states[n].geometry {
            None => GeneratorBounds {
                min: [0.0; 3],
                max: [0.0; 3],
                radius: 0.0,
            },
            Some(Geometry::Cuboid { min, max }) => GeneratorBounds {
                min: [0, 1, 2].map(|a| min[a] + nudge[a]),
                max: [0, 1, 2].map(|a| max[a] - nudge[a]),
                radius: 0.0,
            },
            Some(Geometry::Sphere { centre, radius }) => GeneratorBounds {
                min: [0, 1, 2].map(|a| centre[a] + nudge[a]),
                max: [0.0; 3],
                radius,
            },
            Some(Geometry::Point { at }) => GeneratorBounds {
                min: [0, 1, 2].map(|a| at[a] + nudge[a]),
                max: [0.0; 3],
                radius: 0.0,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST1: &str = include_str!("../decks/clover_test1.in");

    fn e(text: &str) -> DeckError {
        parse("t.in", text).unwrap_err()
    }

    #[test]
    fn parses_test_problem_1() {
        let d = parse("t.in", TEST1).unwrap();
        assert_eq!(d.cells, [10, 2, 2]);
        assert_eq!(d.max, [10.0, 2.0, 2.0]);
        assert_eq!((d.dtinit, d.dtmax, d.dtrise), (0.04, 0.04, 1.05));
        assert_eq!((d.end_step, d.end_time), (75, 10.0));
        assert_eq!(d.test_problem, 1);
        assert_eq!(d.states.len(), 2);
        assert_eq!(
            d.states[1].geometry,
            Some(Geometry::Cuboid {
                min: [0.0; 3],
                max: [5.0, 2.0, 2.0]
            })
        );
        // `checkpoint_frequency` is the original's to ignore; here it leaves a note.
        assert_eq!(d.notes.len(), 1, "{:?}", d.notes);
        assert!(
            d.notes[0].contains("checkpoint_frequency 100"),
            "{:?}",
            d.notes
        );
    }

    #[test]
    fn default_deck_is_the_benchmark() {
        let d = parse("<built-in>", DEFAULT_DECK).unwrap();
        assert_eq!(d.cells, [96, 96, 96]);
        assert_eq!((d.end_step, d.end_time, d.test_problem), (87, 1000.1, 2));
        assert_eq!(d.spacing(), [10.0 / 96.0; 3]);
    }

    #[test]
    fn defaults_are_the_original_3d_readers() {
        let d = parse("t", "*clover\nstate 1 density 1 energy 1\n*endclover\n").unwrap();
        assert_eq!(d.cells, [10, 10, 10]);
        assert_eq!((d.dtrise, d.dtc_safe, d.dtdiv_safe), (1.05, 0.75, 0.5));
        assert_eq!((d.end_step, d.summary_frequency), (640_000, 10));
    }

    #[test]
    fn states_with_velocities_and_every_geometry() {
        let d = parse(
            "t",
            "*clover\nstate 1 density 1 energy 1 zvel=-0.5\n\
             state 2 density 2 energy 3 geometry sphere xmin 1 ymin 2 zmin 3 radius 0.5 xvel 1\n\
             state 3 density 2 energy 3 geometry point xmin 1 ymin 2 zmin 3 yvel 2\n*endclover\n",
        )
        .unwrap();
        assert_eq!(d.states[0].velocity, [0.0, 0.0, -0.5]);
        assert_eq!(
            d.states[1].geometry,
            Some(Geometry::Sphere {
                centre: [1.0, 2.0, 3.0],
                radius: 0.5
            })
        );
        assert_eq!(d.states[1].velocity, [1.0, 0.0, 0.0]);
        assert_eq!(d.states[2].velocity, [0.0, 2.0, 0.0]);
        let b = d.generator_bounds(2);
        assert_eq!(b.min, [1.0 + 0.1, 2.0 + 0.1, 3.0 + 0.1]);
    }

    #[test]
    fn ignored_keywords_leave_notes() {
        let d = parse(
            "t",
            "*clover\nstate 1 density 1 energy 1\ntiles_per_chunk 4 use_c_kernels\n\
             2d_tile_decomposition dtinit 0.5 dtw_safe=0.9\nprofiler_on\n*endclover",
        )
        .unwrap();
        assert_eq!(d.notes.len(), 5, "{:?}", d.notes);
        assert!(d.profiler_on);
        assert_eq!((d.dtinit, d.dtw_safe), (0.1, 0.5));
    }

    #[test]
    fn lines_longer_than_the_original_reads_leave_a_note() {
        let long = format!(
            "*clover\nstate 1 density 1 energy 1 {}\n*endclover\n",
            " ".repeat(150)
        );
        let d = parse("t", &long).unwrap();
        assert_eq!(d.notes.len(), 1, "{:?}", d.notes);
        assert!(
            d.notes[0].starts_with("line 2: longer than the 150"),
            "{:?}",
            d.notes
        );
    }

    #[test]
    fn errors_have_lines() {
        let err = e("*clover\nstate 1 density 1 energy 1\n\n bogus=3\n*endclover");
        assert_eq!(err.to_string(), "t.in:4: unknown keyword `bogus`");
        let err = e("*clover\nstate 1 density 1 energy 1\nz_cells=1.5\n*endclover");
        assert_eq!(err.line, 3);
        let err = e("*clover\nstate 1 density 1 energy 1\nzmin 1 zmax 0\n*endclover");
        assert_eq!(
            err.message,
            "the domain is empty: zmin 1 is not below zmax 0"
        );
        let err = e(
            "*clover\nstate 1 density 1 energy 1\nstate 2 density 1 energy 1 geometry \
                     cuboid xmin 0 xmax 1 ymin 0 ymax 1\n*endclover",
        );
        assert_eq!(err.message, "state 2: cuboid geometry needs `zmin`");
        let err = e(
            "*clover\nstate 1 density 1 energy 1\nstate 2 density 1 energy 1 geometry \
                     cuboid xmin 0 xmax 1 ymin 0 ymax 1 zmin 2 zmax 1\n*endclover",
        );
        assert!(err.message.contains("impossible cuboid"), "{err}");
        let err = e(
            "*clover\nstate 1 density 1 energy 1\nstate 2 density 1 energy 1 geometry \
                     rectangle\n*endclover",
        );
        assert_eq!(
            err.message,
            "state 2: unknown geometry `rectangle` (cuboid, sphere or point)"
        );
        let err = e("*clover\nstate 1 density 1 energy 1\nx_cells 3\nx_cells 4\n*endclover");
        assert_eq!(err.message, "`x_cells` is set twice (first on line 3)");
        let err = e("*clover\nstate 1 density 1 energy 1\nmax_timestep -1\n*endclover");
        assert_eq!(err.line, 3);
        let err = e(
            "*clover\nstate 2 density 1 energy 1 geometry point xmin 0 ymin 0 zmin 0\n\
                     *endclover",
        );
        assert!(err.message.contains("state 1 is missing"), "{err}");
    }

    #[test]
    fn expected_values() {
        assert_eq!(expected_kinetic_energy(2), Some(20.0546870878964));
        assert_eq!(expected_kinetic_energy(3), None);
    }
}
