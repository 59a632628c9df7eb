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
