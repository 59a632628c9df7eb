//! The deck parser never panics: random text and random edits of valid decks give a deck or an
//! error with a line inside the text.

use cloverleaf::deck::{parse, DEFAULT_DECK};
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "*clover",
    "*endclover",
    "state",
    "1",
    "2",
    "3",
    "density",
    "energy",
    "xvel",
    "yvel",
    "geometry",
    "rectangle",
    "circle",
    "point",
    "xmin",
    "xmax",
    "ymin",
    "ymax",
    "radius",
    "x_cells",
    "y_cells",
    "initial_timestep",
    "timestep_rise",
    "max_timestep",
    "end_time",
    "end_step",
    "summary_frequency",
    "visit_frequency",
    "profiler_on",
    "test_problem",
    "tiles_per_chunk",
    "use_c_kernels",
    "=",
    ",",
    "!",
    ";",
    "\\",
    "\n",
    " ",
    "0.5",
    "-1",
    "1e3",
    "1.0d0",
    "nan",
    "inf",
    "99999999999999999999",
    "*end",
    "*",
    "\t",
];

fn check(text: &str) {
    match parse("fuzz.in", text) {
        Ok(d) => {
            assert!(!d.states.is_empty());
            assert!(d.x_cells >= 1 && d.y_cells >= 1);
            assert!(d.xmax > d.xmin && d.ymax > d.ymin);
        }
        Err(e) => {
            let lines = text.lines().count().max(1);
            assert!(
                e.line >= 1 && e.line <= lines,
                "line {} of {lines}: {e}",
                e.line
            );
            assert!(!e.message.is_empty());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_text(text in "\\PC{0,400}") {
        check(&text);
    }

    #[test]
    fn word_soup(words in prop::collection::vec(prop::sample::select(WORDS), 0..80)) {
        check(&words.join(" "));
    }

    #[test]
    fn edits_of_a_valid_deck(
        cut in 0usize..2000,
        len in 0usize..40,
        insert in prop::collection::vec(prop::sample::select(WORDS), 0..4),
    ) {
        let base = DEFAULT_DECK;
        let mut at = cut.min(base.len());
        while !base.is_char_boundary(at) { at -= 1; }
        let mut end = (at + len).min(base.len());
        while !base.is_char_boundary(end) { end -= 1; }
        let text = format!("{}{}{}", &base[..at], insert.join(" "), &base[end..]);
        check(&text);
    }
}
