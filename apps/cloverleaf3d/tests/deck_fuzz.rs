//! The deck parser never panics: random text and random edits of valid decks give a deck or an
//! error with a line inside the text.

use cloverleaf3d::deck::{parse, DEFAULT_DECK};
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
    "zvel",
    "geometry",
    "cuboid",
    "sphere",
    "point",
    "rectangle",
    "xmin",
    "xmax",
    "ymin",
    "ymax",
    "zmin",
    "zmax",
    "radius",
    "x_cells",
    "y_cells",
    "z_cells",
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
    "checkpoint_frequency",
    "3d_tile_decomposition",
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
    "0",
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
            for a in 0..3 {
                assert!(d.cells[a] >= 1);
                assert!(d.max[a] > d.min[a]);
            }
            assert!(d.states.iter().all(|s| s.density > 0.0));
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
    fn edits_of_a_valid_deck(text in edits(DEFAULT_DECK, 600, WORDS)) {
        check(&text);
    }
}
