//! Code shared by the mini-apps (CloverLeaf 2D and 3D, TeaLeaf).
//!
//! The apps read input decks in the same keyword syntax (a `*clover` or `*tea` block) and print
//! numbers with the same Fortran edit descriptors. This crate holds that common layer so they
//! share one deck reader ([`deck`]), one set of formatters ([`output`]) and one progress display
//! ([`progress`]); the two CloverLeafs also share their field summary ([`summary`]: quantities,
//! table, JSON). Each app keeps its own keywords, deck struct and method.
//!
//! ```
//! use ops_app_common::{deck, output};
//!
//! let (lines, start) = deck::tokenize("t.in", "*tea\nx_cells=10\n*endtea\n", "tea").unwrap();
//! assert_eq!(start, 1);
//! assert_eq!(deck::parse_int("t.in", &lines[0][1], "x_cells").unwrap(), 10);
//! assert_eq!(output::fortran_e(100.0, 12, 4), "  0.1000E+03");
//! ```

#![warn(missing_docs)]

pub mod deck;
pub mod output;
pub mod progress;
pub mod summary;
