//! Code shared by the CloverLeaf and TeaLeaf mini-apps.
//!
//! Both apps read input decks in the same keyword syntax (a `*clover` or `*tea` block) and print
//! numbers with the same Fortran edit descriptors. This crate holds that common layer so the two
//! apps share one deck reader ([`deck`]) and one set of formatters ([`output`]); each app keeps
//! its own keywords, deck struct and output layout.
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
