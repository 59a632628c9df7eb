//! Fuzzing of the apps' input-deck parsers: strategies that make deck-like text (a soup of deck
//! words, random edits of a valid deck) and the check every parse error must pass. Each app keeps
//! its own word list, its parse call and its assertions on the decks that parse.
//!
//! ```
//! use ops_testkit::deck_fuzz::{assert_error_in_text, splice, word_soup};
//!
//! assert_eq!(splice("ab\ncd\n", 1, 3, &["x", "y"]), "ax yd\n");
//! assert_eq!(word_soup(&["state", "1", "\n"]), "state 1 \n");
//! assert_error_in_text("a\nb\n", 2, "`b` is not a keyword", "t.in:2: `b` is not a keyword");
//! ```

use proptest::prelude::*;
use std::fmt::Display;

/// Replaces up to `len` bytes of `base` from byte `cut` (both clamped to `base` and moved back
/// to a character boundary) with the `insert` words joined by spaces.
pub fn splice(base: &str, cut: usize, len: usize, insert: &[&str]) -> String {
    let mut at = cut.min(base.len());
    while !base.is_char_boundary(at) {
        at -= 1;
    }
    let mut end = (at + len).min(base.len());
    while !base.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{}{}", &base[..at], insert.join(" "), &base[end..])
}

/// The `words` joined by spaces.
pub fn word_soup(words: &[&str]) -> String {
    words.join(" ")
}

/// Text of up to 80 words drawn from `words`, joined by spaces ([`word_soup`]).
pub fn word_soups(words: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(words), 0..80).prop_map(|w| word_soup(&w))
}

/// Random edits of the valid deck `base`: a cut at a byte below `max_cut` of up to 40 bytes,
/// replaced by up to 3 words from `words` ([`splice`]).
pub fn edits(
    base: &'static str,
    max_cut: usize,
    words: &'static [&'static str],
) -> impl Strategy<Value = String> {
    (
        0usize..max_cut,
        0usize..40,
        prop::collection::vec(prop::sample::select(words), 0..4),
    )
        .prop_map(move |(cut, len, insert)| splice(base, cut, len, &insert))
}

/// Asserts what every parse error of `text` must be: its 1-based `line` lies inside the text (a
/// text without lines counts as one line) and its `message` is not empty; `error` (the whole
/// error as shown) is quoted when it fails.
pub fn assert_error_in_text(text: &str, line: usize, message: &str, error: impl Display) {
    let lines = text.lines().count().max(1);
    assert!(
        line >= 1 && line <= lines,
        "line {line} of {lines}: {error}"
    );
    assert!(!message.is_empty());
}
