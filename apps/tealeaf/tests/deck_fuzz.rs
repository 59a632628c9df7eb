//! The deck parser never panics: random text and random edits of valid decks give a deck or an
//! error with a line inside the text.

use ops_testkit::deck_fuzz::{assert_error_in_text, edits, word_soups};
use proptest::prelude::*;
use tealeaf::deck::{parse, DEFAULT_DECK};

const WORDS: &[&str] = &[
    "*tea",
    "*endtea",
    "state",
    "1",
    "2",
    "3",
    "density",
    "energy",
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
    "end_time",
    "end_step",
    "summary_frequency",
    "tl_max_iters",
    "tl_eps",
    "tl_use_cg",
    "tl_use_chebyshev",
    "tl_use_ppcg",
    "tl_use_jacobi",
    "tl_ch_cg_presteps",
    "tl_ch_cg_epslim",
    "tl_ppcg_inner_steps",
    "tl_preconditioner_type",
    "none",
    "jac_diag",
    "jac_block",
    "tl_coefficient_density",
    "tl_coefficient_inverse_density",
    "tl_check_result",
    "reflective_boundary",
    "halo_depth",
    "test_problem",
    "profiler_on",
    "verbose_on",
    "visit_frequency",
    "tiles_per_task",
    "use_fortran_kernels",
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
            assert!(d.x_cells >= 1 && d.y_cells >= 1);
            assert!(d.xmax > d.xmin && d.ymax > d.ymin);
            assert!(d.halo_depth >= 1 && d.max_iters >= 1);
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
    fn edits_of_a_valid_deck(text in edits(DEFAULT_DECK, 900, WORDS)) {
        check(&text);
    }
}
