//! The common layer of the apps' input-deck readers.
//!
//! The syntax is the original mini-apps': keywords are case-insensitive, `=` and `,` separate
//! words like spaces, `!` and `;` start a comment, a lone `\` at the end of a line continues it,
//! and several keywords may share a line. Only the top level of one named block (`*clover` ...
//! `*endclover`, `*tea` ... `*endtea`) is read; [`tokenize`] splits it into logical lines of
//! [`Word`]s and each app gives the words their meaning, reading numbers with [`parse_real`] and
//! [`parse_int`]. Every problem is a [`DeckError`] naming the file and the line.

use std::fmt;

/// A problem in a deck, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeckError {
    /// The deck's name (its path, or `<built-in ...>`).
    pub file: String,
    /// 1-based line number (0 when the file could not be read).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for DeckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for DeckError {}

/// A word of the deck (lower-cased) and the line it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// The word's text, in lower case.
    pub text: String,
    /// 1-based line number.
    pub line: usize,
}

/// Splits the `*block` ... `*endblock` section of `text` into logical lines of words, as the
/// original readers do; `block` is the section's name in lower case (`"clover"`, `"tea"`) and
/// `file` names the deck in errors.
///
/// Returns the lines (each a list of words; a line continued with `\` is one logical line) and
/// the line of the `*block` marker. Lines outside the block, and inside sections nested in it,
/// are ignored; unbalanced sections, a missing, repeated or unclosed block and a misplaced `\`
/// are errors.
///
/// ```
/// use ops_app_common::deck::tokenize;
///
/// let text = "junk\n*clover\n state 1 density=0.2, energy 1 ! comment\n x_cells 4 \\\n \
///             y_cells=3\n*endclover\n";
/// let (lines, start) = tokenize("t.in", text, "clover").unwrap();
/// assert_eq!(start, 2);
/// let words: Vec<Vec<&str>> = lines
///     .iter()
///     .map(|l| l.iter().map(|w| w.text.as_str()).collect())
///     .collect();
/// assert_eq!(
///     words,
///     [vec!["state", "1", "density", "0.2", "energy", "1"], vec!["x_cells", "4", "y_cells", "3"]]
/// );
///
/// let err = tokenize("t.in", "*clover\n", "clover").unwrap_err();
/// assert_eq!(err.to_string(), "t.in:1: `*clover` on line 1 is never closed by `*endclover`");
/// ```
pub fn tokenize(file: &str, text: &str, block: &str) -> Result<(Vec<Vec<Word>>, usize), DeckError> {
    let err = |line: usize, message: String| DeckError {
        file: file.to_string(),
        line,
        message,
    };
    let mut sections: Vec<(String, usize)> = Vec::new();
    let mut in_block = false;
    let mut seen_block: Option<usize> = None;
    let mut closed = false;
    let mut lines: Vec<Vec<Word>> = Vec::new();
    let mut continuing = false;
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        last_line = lineno;
        // Control characters and anything outside ASCII count as spaces.
        let mut l: String = raw
            .chars()
            .map(|c| {
                if (c as u32) < 32 || (c as u32) > 127 {
                    ' '
                } else {
                    c
                }
            })
            .collect();
        if let Some(p) = l.find(['!', ';']) {
            l.truncate(p);
        }
        let l = l.trim().to_ascii_lowercase();
        if l.is_empty() {
            continue;
        }
        if let Some(rest) = l.strip_prefix('*') {
            let name = rest.split([' ', '\t', '=', ',']).next().unwrap_or("");
            if let Some(ended) = name.strip_prefix("end") {
                match sections.pop() {
                    Some((open, _)) if open == ended => {}
                    Some((open, at)) => {
                        return Err(err(
                            lineno,
                            format!("`*end{ended}` closes `*{open}` opened on line {at}"),
                        ))
                    }
                    None => return Err(err(lineno, format!("`*end{ended}` without `*{ended}`"))),
                }
                if ended == block && in_block {
                    in_block = false;
                    closed = true;
                    if continuing {
                        return Err(err(lineno, format!("`\\` continues into `*end{block}`")));
                    }
                }
            } else if name.is_empty() {
                return Err(err(lineno, "`*` without a section name".into()));
            } else if name == block {
                if seen_block.is_some() {
                    return Err(err(lineno, format!("a second `*{block}` block")));
                }
                if !sections.is_empty() {
                    return Err(err(lineno, format!("`*{block}` inside another section")));
                }
                seen_block = Some(lineno);
                in_block = true;
                sections.push((name.to_string(), lineno));
            } else {
                sections.push((name.to_string(), lineno));
            }
            continue;
        }
        // Only the top level of the block is read.
        if !in_block || sections.len() != 1 {
            continue;
        }
        let mut words: Vec<Word> = l
            .split([' ', '\t', '=', ','])
            .filter(|w| !w.is_empty())
            .map(|w| Word {
                text: w.to_string(),
                line: lineno,
            })
            .collect();
        let cont = words.last().is_some_and(|w| w.text == "\\");
        if cont {
            words.pop();
        }
        if words.iter().any(|w| w.text == "\\") {
            return Err(err(lineno, "`\\` must be the last word of a line".into()));
        }
        match lines.last_mut() {
            Some(last) if continuing => last.extend(words),
            _ => lines.push(words),
        }
        continuing = cont;
    }
    let Some(start) = seen_block else {
        return Err(err(
            last_line.max(1),
            format!("no `*{block}` block (the deck must hold `*{block}` ... `*end{block}`)"),
        ));
    };
    if !closed {
        return Err(err(
            last_line.max(1),
            format!("`*{block}` on line {start} is never closed by `*end{block}`"),
        ));
    }
    Ok((lines, start))
}

/// A real number as the original reads it (Fortran `d` exponents allowed); `key` names the
/// keyword it belongs to in the error.
///
/// ```
/// use ops_app_common::deck::{parse_real, Word};
///
/// let w = Word { text: "1.5d-1".into(), line: 3 };
/// assert_eq!(parse_real("t.in", &w, "xmin").unwrap(), 0.15);
/// let w = Word { text: "nan".into(), line: 3 };
/// assert_eq!(
///     parse_real("t.in", &w, "xmin").unwrap_err().to_string(),
///     "t.in:3: `xmin` needs a real number, got `nan`"
/// );
/// ```
pub fn parse_real(file: &str, w: &Word, key: &str) -> Result<f64, DeckError> {
    let t = w.text.replace(['d', 'D'], "e");
    let ok = !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e'))
        && t.chars().any(|c| c.is_ascii_digit());
    match t.parse::<f64>() {
        Ok(v) if ok && v.is_finite() => Ok(v),
        _ => Err(DeckError {
            file: file.to_string(),
            line: w.line,
            message: format!("`{key}` needs a real number, got `{}`", w.text),
        }),
    }
}

/// An integer (an optional sign and digits); `key` names the keyword it belongs to in the error.
pub fn parse_int(file: &str, w: &Word, key: &str) -> Result<i64, DeckError> {
    let t = w.text.strip_prefix('+').unwrap_or(&w.text);
    t.parse::<i64>().map_err(|_| DeckError {
        file: file.to_string(),
        line: w.line,
        message: format!("`{key}` needs an integer, got `{}`", w.text),
    })
}

/// Reads a deck file: returns its name for errors (the path as displayed) and its text (bytes
/// that are not UTF-8 replaced). An unreadable file is an error on line 0.
pub fn read(path: &std::path::Path) -> Result<(String, String), DeckError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| DeckError {
        file: name.clone(),
        line: 0,
        message: format!("cannot read the deck: {e}"),
    })?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Ok((name, text))
}

/// Largest number of cells per direction accepted.
pub const MAX_CELLS_PER_DIM: usize = 1 << 20;
/// Largest total number of cells accepted.
pub const MAX_CELLS: usize = 1 << 31;

/// The whole-deck checks that come before the states' own, in order: at least one state was
/// defined (`has_states`), the domain `[xmin, xmax, ymin, ymax]` is not empty, and the mesh of
/// `[x_cells, y_cells]` has at most [`MAX_CELLS`] cells. Every problem is reported on
/// `end_line`, the deck's last line of keywords.
///
/// ```
/// use ops_app_common::deck::check_mesh;
///
/// assert!(check_mesh("t.in", 9, true, [0.0, 1.0, 0.0, 1.0], [10, 10]).is_ok());
/// let err = check_mesh("t.in", 9, true, [0.0, 1.0, 2.0, 1.0], [10, 10]).unwrap_err();
/// assert_eq!(err.to_string(), "t.in:9: the domain is empty: ymin 2 is not below ymax 1");
/// ```
pub fn check_mesh(
    file: &str,
    end_line: usize,
    has_states: bool,
    [xmin, xmax, ymin, ymax]: [f64; 4],
    cells: [usize; 2],
) -> Result<(), DeckError> {
    check_mesh_dims(
        file,
        end_line,
        has_states,
        &[(xmin, xmax), (ymin, ymax)],
        &cells,
    )
}

/// [`check_mesh`] for any number of dimensions: `extents` holds `(min, max)` of the domain per
/// dimension (x, y, z, ...) and `cells` the cells per dimension.
///
/// ```
/// use ops_app_common::deck::check_mesh_dims;
///
/// let extents = [(0.0, 1.0), (0.0, 1.0), (0.0, 1.0)];
/// assert!(check_mesh_dims("t.in", 3, true, &extents, &[4, 4, 4]).is_ok());
/// let flat = [(0.0, 1.0), (0.0, 1.0), (1.0, 1.0)];
/// let err = check_mesh_dims("t.in", 3, true, &flat, &[4, 4, 4]).unwrap_err();
/// assert_eq!(err.to_string(), "t.in:3: the domain is empty: zmin 1 is not below zmax 1");
/// let err = check_mesh_dims("t.in", 3, true, &extents, &[2048, 2048, 2048]).unwrap_err();
/// assert_eq!(err.message, "2048 x 2048 x 2048 cells is more than 2147483648");
/// ```
pub fn check_mesh_dims(
    file: &str,
    end_line: usize,
    has_states: bool,
    extents: &[(f64, f64)],
    cells: &[usize],
) -> Result<(), DeckError> {
    let err = |message: String| DeckError {
        file: file.to_string(),
        line: end_line,
        message,
    };
    if !has_states {
        return Err(err(
            "no states defined (at least `state 1` is needed)".into()
        ));
    }
    for (&(min, max), axis) in extents.iter().zip(['x', 'y', 'z']) {
        if max <= min {
            return Err(err(format!(
                "the domain is empty: {axis}min {min} is not below {axis}max {max}"
            )));
        }
    }
    let total = cells
        .iter()
        .try_fold(1usize, |acc, &c| acc.checked_mul(c))
        .unwrap_or(usize::MAX);
    if total > MAX_CELLS {
        let shown: Vec<String> = cells.iter().map(|c| c.to_string()).collect();
        return Err(err(format!(
            "{} cells is more than {MAX_CELLS}",
            shown.join(" x ")
        )));
    }
    Ok(())
}

/// The shape of the region a state fills (bounds as written in the deck).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Geometry {
    /// Cells whose extent overlaps `[xmin, xmax] x [ymin, ymax]`.
    Rectangle {
        /// Left edge.
        xmin: f64,
        /// Right edge.
        xmax: f64,
        /// Bottom edge.
        ymin: f64,
        /// Top edge.
        ymax: f64,
    },
    /// Cells whose centre lies within `radius` of `(x, y)`.
    Circle {
        /// Centre x.
        x: f64,
        /// Centre y.
        y: f64,
        /// Radius.
        radius: f64,
    },
    /// The cell whose lower-left vertex is exactly `(x, y)`.
    Point {
        /// Vertex x.
        x: f64,
        /// Vertex y.
        y: f64,
    },
}

/// The region bounds the generator tests cells against for a state of `geometry` on a mesh of
/// spacing `dx` x `dy`: `[xmin, xmax, ymin, ymax, radius]`, with the original's inward nudge of a
/// hundredth of a cell (a circle's centre and a point move up and right); all zeros for `None`,
/// the background state.
///
/// ```
/// use ops_app_common::deck::{generator_bounds, Geometry};
///
/// let g = Geometry::Point { x: 1.0, y: 2.0 };
/// assert_eq!(generator_bounds(Some(g), 1.0, 0.5), [1.01, 0.0, 2.005, 0.0, 0.0]);
/// assert_eq!(generator_bounds(None, 1.0, 0.5), [0.0; 5]);
/// ```
pub fn generator_bounds(geometry: Option<Geometry>, dx: f64, dy: f64) -> [f64; 5] {
    match geometry {
        None => [0.0; 5],
        Some(Geometry::Rectangle {
            xmin,
            xmax,
            ymin,
            ymax,
        }) => [
            xmin + dx / 100.0,
            xmax - dx / 100.0,
            ymin + dy / 100.0,
            ymax - dy / 100.0,
            0.0,
        ],
        Some(Geometry::Circle { x, y, radius }) => {
            [x + dx / 100.0, 0.0, y + dy / 100.0, 0.0, radius]
        }
        Some(Geometry::Point { x, y }) => [x + dx / 100.0, 0.0, y + dy / 100.0, 0.0, 0.0],
    }
}

/// The keywords of one `state N` line as read by [`parse_state`], before the whole-deck checks
/// of [`check_states`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StateSpec {
    /// The line of the `state` word.
    pub line: usize,
    /// `density`, if given.
    pub density: Option<f64>,
    /// `energy`, if given.
    pub energy: Option<f64>,
    /// `geometry` (`rectangle`, `circle` or `point`) and the line of its value, if given.
    pub geometry: Option<(String, usize)>,
    /// `xmin` (also a circle's centre or a point's x), if given.
    pub xmin: Option<f64>,
    /// `xmax`, if given.
    pub xmax: Option<f64>,
    /// `ymin` (also a circle's centre or a point's y), if given.
    pub ymin: Option<f64>,
    /// `ymax`, if given.
    pub ymax: Option<f64>,
    /// `radius`, if given.
    pub radius: Option<f64>,
    /// The app's own real-valued keywords (see [`parse_state`]'s `extra_keys`) that were given.
    pub extra: Vec<(&'static str, f64)>,
}

impl StateSpec {
    /// The value of the app keyword `key`, if the line gave it.
    pub fn extra(&self, key: &str) -> Option<f64> {
        self.extra.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }
}

/// Reads a `state N` line: `state` is the `state` word and `words` the rest of its logical line,
/// all of which belongs to the state. The spec is stored at `states[N - 1]` (the list grows with
/// `None` as needed). Besides `density`, `energy`, `geometry`, `xmin`, `xmax`, `ymin`, `ymax` and
/// `radius`, the real-valued keywords in `extra_keys` (such as CloverLeaf's `xvel` and `yvel`)
/// are accepted and kept in [`StateSpec::extra`].
///
/// A state number outside 1..=1000, a state defined twice, a keyword given twice or without a
/// value, an unknown keyword or geometry and a malformed number are errors.
///
/// ```
/// use ops_app_common::deck::{parse_state, tokenize};
///
/// let text = "*clover\nstate 2 density 1 xvel 3 geometry point\nstate 1 radius\n*endclover\n";
/// let (lines, _) = tokenize("t.in", text, "clover").unwrap();
/// let mut states = Vec::new();
/// parse_state("t.in", &lines[0][0], lines[0][1..].iter(), &["xvel"], &mut states).unwrap();
/// let s = states[1].as_ref().unwrap();
/// assert!(states[0].is_none());
/// assert_eq!((s.line, s.density, s.extra("xvel")), (2, Some(1.0), Some(3.0)));
/// let err = parse_state("t.in", &lines[1][0], lines[1][1..].iter(), &[], &mut states);
/// assert_eq!(err.unwrap_err().to_string(), "t.in:3: state 1: `radius` needs a value after it");
/// ```
pub fn parse_state<'a>(
    file: &str,
    state: &Word,
    words: impl IntoIterator<Item = &'a Word>,
    extra_keys: &[&'static str],
    states: &mut Vec<Option<StateSpec>>,
) -> Result<(), DeckError> {
    let keywords = StateKeywords {
        geometries: &["rectangle", "circle", "point"],
        extra_keys,
    };
    parse_state_with(file, state, words, &keywords, states)
}

/// What a `state N` line may hold besides `density`, `energy`, `geometry`, `xmin`, `xmax`,
/// `ymin`, `ymax` and `radius`: the names `geometry` accepts and the app's own real-valued
/// keywords.
#[derive(Clone, Copy, Debug)]
pub struct StateKeywords<'k> {
    /// The geometry names (CloverLeaf 2D: rectangle, circle, point; 3D: cuboid, sphere, point).
    pub geometries: &'k [&'static str],
    /// Real-valued keywords kept in [`StateSpec::extra`] (velocities, `zmin`, `zmax`, ...).
    pub extra_keys: &'k [&'static str],
}

/// [`parse_state`] with the app's own geometry names as well as its own keywords.
///
/// ```
/// use ops_app_common::deck::{parse_state_with, tokenize, StateKeywords};
///
/// let keys = StateKeywords { geometries: &["cuboid", "sphere", "point"], extra_keys: &["zmin"] };
/// let text = "*clover\nstate 2 density 1 energy 1 geometry sphere zmin 3\nstate 1 geometry x\n*endclover\n";
/// let (lines, _) = tokenize("t.in", text, "clover").unwrap();
/// let mut states = Vec::new();
/// parse_state_with("t.in", &lines[0][0], lines[0][1..].iter(), &keys, &mut states).unwrap();
/// let s = states[1].as_ref().unwrap();
/// assert_eq!((s.geometry.as_ref().unwrap().0.as_str(), s.extra("zmin")), ("sphere", Some(3.0)));
/// let err = parse_state_with("t.in", &lines[1][0], lines[1][1..].iter(), &keys, &mut states);
/// assert_eq!(
///     err.unwrap_err().to_string(),
///     "t.in:3: state 1: unknown geometry `x` (cuboid, sphere or point)"
/// );
/// ```
pub fn parse_state_with<'a>(
    file: &str,
    state: &Word,
    words: impl IntoIterator<Item = &'a Word>,
    keywords: &StateKeywords<'_>,
    states: &mut Vec<Option<StateSpec>>,
) -> Result<(), DeckError> {
    let extra_keys = keywords.extra_keys;
    let err = |line: usize, message: String| DeckError {
        file: file.to_string(),
        line,
        message,
    };
    let mut it = words.into_iter();
    let nw = it.next().ok_or_else(|| {
        err(
            state.line,
            "`state` needs a state number after it".to_string(),
        )
    })?;
    let n = parse_int(file, nw, "state")?;
    if !(1..=1000).contains(&n) {
        return Err(err(
            state.line,
            format!("state number must be between 1 and 1000, got {n}"),
        ));
    }
    let n = n as usize;
    if states.len() < n {
        states.resize_with(n, || None);
    }
    if let Some(prev) = &states[n - 1] {
        return Err(err(
            state.line,
            format!("state {n} is defined twice (first on line {})", prev.line),
        ));
    }
    let mut s = StateSpec {
        line: state.line,
        ..Default::default()
    };
    let mut seen_keys: Vec<&str> = Vec::new();
    while let Some(sw) = it.next() {
        let skey = sw.text.as_str();
        if seen_keys.contains(&skey) {
            return Err(err(sw.line, format!("state {n}: `{skey}` is given twice")));
        }
        let mut sval = || -> Result<&Word, DeckError> {
            it.next().ok_or_else(|| {
                err(
                    sw.line,
                    format!("state {n}: `{skey}` needs a value after it"),
                )
            })
        };
        match skey {
            "density" => s.density = Some(parse_real(file, sval()?, skey)?),
            "energy" => s.energy = Some(parse_real(file, sval()?, skey)?),
            "xmin" => s.xmin = Some(parse_real(file, sval()?, skey)?),
            "xmax" => s.xmax = Some(parse_real(file, sval()?, skey)?),
            "ymin" => s.ymin = Some(parse_real(file, sval()?, skey)?),
            "ymax" => s.ymax = Some(parse_real(file, sval()?, skey)?),
            "radius" => s.radius = Some(parse_real(file, sval()?, skey)?),
            "geometry" => {
                let g = sval()?;
                if keywords.geometries.contains(&g.text.as_str()) {
                    s.geometry = Some((g.text.clone(), g.line));
                } else {
                    return Err(err(
                        g.line,
                        format!(
                            "state {n}: unknown geometry `{}` ({})",
                            g.text,
                            one_of(keywords.geometries)
                        ),
                    ));
                }
            }
            other => match extra_keys.iter().find(|k| **k == other) {
                Some(k) => {
                    let v = parse_real(file, sval()?, skey)?;
                    s.extra.push((k, v));
                }
                None => {
                    let extra: String = extra_keys.iter().map(|k| format!("{k}, ")).collect();
                    return Err(err(
                        sw.line,
                        format!(
                            "state {n}: unknown keyword `{other}` (density, energy, {extra}\
                             geometry, xmin, xmax, ymin, ymax, radius)"
                        ),
                    ));
                }
            },
        }
        seen_keys.push(skey);
    }
    states[n - 1] = Some(s);
    Ok(())
}

/// `a, b or c`.
fn one_of(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A state that passed [`check_states`].
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedState<'a> {
    /// Its density (positive).
    pub density: f64,
    /// Its specific internal energy.
    pub energy: f64,
    /// Its region; `None` for state 1, the background that fills the whole mesh.
    pub geometry: Option<Geometry>,
    /// The spec it was made from (for the app's own keywords).
    pub spec: &'a StateSpec,
}

/// The whole-deck checks of the states read by [`parse_state`], in order: every state from 1 up
/// must be there, with a density (positive) and an energy (not negative, where
/// `energy_must_not_be_negative`); every state after the first needs a geometry with the bounds
/// it uses (a rectangle's min below its max, a circle's radius positive). State 1's geometry is
/// ignored with a note pushed to `notes`. A missing state is reported on the last `state` line
/// (on `end_line` when there is none); every other problem on its state's line or on the line of
/// its `geometry` value.
///
/// ```
/// use ops_app_common::deck::{check_states, Geometry, StateSpec};
///
/// let bg = StateSpec { line: 1, density: Some(1.0), energy: Some(2.0), ..Default::default() };
/// let disc = StateSpec {
///     line: 2,
///     density: Some(1.0),
///     energy: Some(2.0),
///     geometry: Some(("circle".into(), 2)),
///     xmin: Some(0.5),
///     ymin: Some(0.5),
///     radius: Some(0.25),
///     ..Default::default()
/// };
/// let mut notes = Vec::new();
/// let states = [Some(bg), Some(disc)];
/// let checked = check_states("t.in", &states, 9, true, &mut notes).unwrap();
/// assert_eq!(checked[0].geometry, None);
/// assert_eq!(checked[1].geometry, Some(Geometry::Circle { x: 0.5, y: 0.5, radius: 0.25 }));
/// let err = check_states("t.in", &[None, states[1].clone()], 9, true, &mut notes).unwrap_err();
/// assert_eq!(err.to_string(), "t.in:2: state 1 is missing (states must be numbered 1, 2, 3, ...)");
/// ```
pub fn check_states<'a>(
    file: &str,
    states: &'a [Option<StateSpec>],
    end_line: usize,
    energy_must_not_be_negative: bool,
    notes: &mut Vec<String>,
) -> Result<Vec<CheckedState<'a>>, DeckError> {
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
        if energy_must_not_be_negative && energy < 0.0 {
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
                    format!("state {n} needs a geometry (rectangle, circle or point)"),
                )
            })?;
            let need = |v: Option<f64>, what: &str| {
                v.ok_or_else(|| err(gline, format!("state {n}: {g} geometry needs `{what}`")))
            };
            Some(match g.as_str() {
                "rectangle" => {
                    let (xmin, xmax) = (need(s.xmin, "xmin")?, need(s.xmax, "xmax")?);
                    let (ymin, ymax) = (need(s.ymin, "ymin")?, need(s.ymax, "ymax")?);
                    if xmax <= xmin || ymax <= ymin {
                        return Err(err(
                            gline,
                            format!(
                                "state {n}: impossible rectangle [{xmin}, {xmax}] x \
                                 [{ymin}, {ymax}] (min must be below max)"
                            ),
                        ));
                    }
                    Geometry::Rectangle {
                        xmin,
                        xmax,
                        ymin,
                        ymax,
                    }
                }
                "circle" => {
                    let (x, y) = (need(s.xmin, "xmin")?, need(s.ymin, "ymin")?);
                    let radius = need(s.radius, "radius")?;
                    if radius <= 0.0 {
                        return Err(err(
                            gline,
                            format!("state {n}: impossible circle of radius {radius}"),
                        ));
                    }
                    Geometry::Circle { x, y, radius }
                }
                _ => {
                    let (x, y) = (need(s.xmin, "xmin")?, need(s.ymin, "ymin")?);
                    Geometry::Point { x, y }
                }
            })
        };
        checked.push(CheckedState {
            density,
            energy,
            geometry,
            spec: s,
        });
    }
    Ok(checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(text: &str, block: &str) -> DeckError {
        tokenize("t", text, block).unwrap_err()
    }

    #[test]
    fn block_errors_name_the_block() {
        assert_eq!(
            e("x\n", "tea").message,
            "no `*tea` block (the deck must hold `*tea` ... `*endtea`)"
        );
        assert_eq!(
            e("*clover\n*endclover\n*clover\n*endclover\n", "clover").message,
            "a second `*clover` block"
        );
        assert_eq!(
            e("*a\n*tea\n*endtea\n*enda\n", "tea").message,
            "`*tea` inside another section"
        );
        assert_eq!(
            e("*clover\nx 1 \\\n*endclover\n", "clover").message,
            "`\\` continues into `*endclover`"
        );
        let err = e("*tea\n*a\n*endtea\n", "tea");
        assert_eq!(err.line, 3);
        assert_eq!(err.message, "`*endtea` closes `*a` opened on line 2");
        assert_eq!(e("*endtea\n", "tea").message, "`*endtea` without `*tea`");
        assert_eq!(e("*tea\n*\n", "tea").message, "`*` without a section name");
        assert_eq!(
            e("*tea\na \\ b\n*endtea\n", "tea").message,
            "`\\` must be the last word of a line"
        );
    }

    #[test]
    fn nested_sections_and_tabs() {
        let (lines, start) = tokenize(
            "t",
            "\n*tea\na 1\n*sub\tx\nb 2\n*endsub\nc\t3\n*endtea\n",
            "tea",
        )
        .unwrap();
        assert_eq!(start, 2);
        let words: Vec<(&str, usize)> = lines
            .iter()
            .flatten()
            .map(|w| (w.text.as_str(), w.line))
            .collect();
        assert_eq!(words, [("a", 3), ("1", 3), ("c", 7), ("3", 7)]);
    }

    #[test]
    fn leading_continuation_does_not_panic() {
        let (lines, _) = tokenize("t", "*tea\n\\\na\n*endtea\n", "tea").unwrap();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0][0].text, "a");
    }

    #[test]
    fn numbers() {
        let w = |t: &str| Word {
            text: t.into(),
            line: 1,
        };
        // Words come lower-cased from `tokenize`.
        assert_eq!(parse_real("t", &w("2e-1"), "k").unwrap(), 0.2);
        assert_eq!(parse_real("t", &w("1.5D0"), "k").unwrap(), 1.5);
        assert_eq!(parse_real("t", &w("-3"), "k").unwrap(), -3.0);
        assert!(parse_real("t", &w("inf"), "k").is_err());
        assert!(parse_real("t", &w("1e999"), "k").is_err());
        assert!(parse_real("t", &w("e"), "k").is_err());
        assert_eq!(parse_int("t", &w("+7"), "k").unwrap(), 7);
        assert_eq!(parse_int("t", &w("-7"), "k").unwrap(), -7);
        assert_eq!(
            parse_int("t", &w("1.5"), "x_cells").unwrap_err().message,
            "`x_cells` needs an integer, got `1.5`"
        );
    }

    #[test]
    fn unreadable_file() {
        let err = read(std::path::Path::new("/nonexistent/deck.in")).unwrap_err();
        assert_eq!(err.line, 0);
        assert!(err.message.starts_with("cannot read the deck: "), "{err}");
    }
}
