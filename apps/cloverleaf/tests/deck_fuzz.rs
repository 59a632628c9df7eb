//! The deck parser never panics: random text and random edits of valid decks give a deck or an
//! error with a line inside the text.

use cloverleaf::deck::{parse, DEFAULT_DECK};
use ops_testkit::deck_fuzz::{assert_error_in_text, edits, word_soups};
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
        Err(e) => assert_error_in_text(text, e.line, &e.message, &e),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_text(text in "\\PC{0,400}") {
        check(&text);
    }

    #[test]
    fn word_soup(text in word_soups(WORDS)) {
        check(&text);
    }

    #[test]
    fn edits_of_a_valid_deck(text in edits(DEFAULT_DECK, 2000, WORDS)) {
        check(&text);
    }
}
