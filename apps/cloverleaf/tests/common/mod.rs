//! What several CloverLeaf test files share.

/// clover_bm's two states on a `cells` x `cells` mesh for `steps` steps, field summaries
/// every `summary_frequency` steps.
pub fn bm_deck(cells: usize, steps: usize, summary_frequency: usize) -> String {
    format!(
        "*clover
 state 1 density=0.2 energy=1.0
 state 2 density=1.0 energy=2.5 geometry=rectangle xmin=0.0 xmax=5.0 ymin=0.0 ymax=2.0
 x_cells={cells}
 y_cells={cells}
 xmin=0.0
 ymin=0.0
 xmax=10.0
 ymax=10.0
 initial_timestep=0.04
 timestep_rise=1.5
 max_timestep=0.04
 end_step={steps}
 summary_frequency={summary_frequency}
*endclover
"
    )
}
