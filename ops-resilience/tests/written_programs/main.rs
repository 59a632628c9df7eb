//! Automatic checkpointing on programs written the way scientists write them, not generated:
//! an implicit heat solver with a Jacobi solve to a tolerance, an advection-diffusion code with
//! sub-cycles, a smoothing pass decided from a fetched window, a monitor and final statistics,
//! an explicit Runge-Kutta code whose stages are an inner loop of fixed trip count, a wave
//! code rotating three buffers with a source switched off after a while, a CG solver whose
//! iteration count varies from step to step, a nonlinear solver three loops deep (Picard
//! iterations of Jacobi solves), a split scheme alternating its sweep order, adaptive time
//! steps retried when their error is too large, operator splitting with a fixed sub-cycle of
//! identical calls, two solves one after the other in each step, a time loop run to an end time
//! with output by simulated time, a tracer released mid-run with a front that grows, a step of
//! one loop, a code coupled to the host through `set`, two coupled fields put through one
//! boundary helper, a scratch field declared and freed every step, the game of life on integer
//! cells, a domain in two blocks advanced block by block, a spin-up time loop followed by the
//! production run, an ensemble of members run one after the other, a CG solve preconditioned by
//! a fixed number of Jacobi sweeps, Jacobi sweeps checked for convergence every fourth sweep, a
//! CG solve recomputing its residual every fifth iteration, a split-explicit step (fixed fast
//! sub-steps, then an implicit solve), a refined patch on a second block sub-cycled twice per
//! coarse step, a solve that converges at once until a source switches on, two solves through
//! one helper the second converging at once, IMEX stages each with a solve, CG solves of as
//! many iterations every step, advection sub-cycled by its CFL number, a solve at start-up
//! before a short explicit time loop, a steady state solved at start-up by the step's own solve,
//! restarted GMRES with a growing basis, diffusion ping-ponging between two buffers by its
//! arguments, an advection code that changes its scheme after a spin-up, leapfrog started by a
//! half step through the step's update, an ensemble advanced in lockstep and nudged to its
//! mean, and six known limits: a level set redistanced every
//! eighth step from the first, three species through one helper with nothing else in a step,
//! dual time stepping whose pseudo iterations converge in as many iterations every step, a
//! step that starts with its solve, a CG solve whose helpers the step's prefix shares, and a
//! short step regridded into new datasets every eighth step. Each is judged by the
//! brute-force oracle (`oracle::judge`): the learnt location saves at most 1.05 x the best
//! boundary's checkpoint, checkpoints come once per N time steps, and restarts from every
//! checkpoint are bitwise and keep the schedule. The programs are in `solvers` (a solve in each step), `multilevel` (a
//! step with more than one inner level, or an inner level with one of its own), `coupled` (two
//! blocks coupled through the host), `krylov` (GMRES and dual time stepping) and `explicit`,
//! their kernels in `kernels`; `cg` and `jacobi` hold the solver pieces several of them share,
//! `boundary` the mirror boundary through one call site.

#[path = "../oracle/mod.rs"]
mod oracle;

mod boundary;
mod cg;
mod coupled;
mod explicit;
mod jacobi;
mod kernels;
mod krylov;
mod multilevel;
mod scratch;
mod solvers;

use coupled::*;
use explicit::*;
use krylov::*;
use multilevel::*;
use oracle::judge;
use solvers::*;

fn check(name: &str, program: oracle::Program<'_>) {
    let mut failures = Vec::new();
    for every in [1, 2, 3] {
        match judge(program, every) {
            Ok(v) => eprintln!("{name}, every {every}: {v:?}"),
            Err(e) => failures.push(format!("{name}, every {every}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A program the learner is known to miss (docs/resilience.md, "Known limits"): for every N
/// in `misses` the judge fails in the recorded way (`how` starts its verdict), and it passes
/// for the other N of 1, 2, 3, so that the test fails as soon as the miss changes or is
/// mended (then it moves to [`check`]).
fn check_known_limit(name: &str, program: oracle::Program<'_>, how: &str, misses: &[u64]) {
    for every in [1, 2, 3] {
        match (judge(program, every), misses.contains(&every)) {
            (Ok(v), true) => {
                panic!("{name}, every {every}: a known limit now passes ({v:?}): use check")
            }
            (Err(e), true) => assert!(
                e.starts_with(how),
                "{name}, every {every}: a known limit (\"{how} ...\") now fails otherwise: {e}"
            ),
            (Ok(_), false) => {}
            (Err(e), false) => panic!("{name}, every {every}: {e}"),
        }
    }
}

#[test]
fn an_implicit_heat_solver_with_a_jacobi_solve_to_a_tolerance() {
    check("implicit heat", &implicit_heat);
}

#[test]
fn an_advection_code_with_sub_cycles_fetched_branches_a_monitor_and_final_statistics() {
    check("advection-diffusion", &advection_diffusion);
}

#[test]
fn a_runge_kutta_code_whose_stages_are_an_inner_loop() {
    check("Runge-Kutta", &runge_kutta);
}

#[test]
fn a_wave_code_rotating_three_buffers_with_a_source_switched_off() {
    check("wave", &wave);
}

#[test]
fn a_conjugate_gradient_solve_per_step() {
    check("conjugate gradient", &conjugate_gradient);
}

#[test]
fn a_nonlinear_solver_three_loops_deep() {
    check("nonlinear diffusion", &nonlinear_diffusion);
}

#[test]
fn a_split_scheme_alternating_its_sweep_order() {
    check("split diffusion", &split_diffusion);
}

#[test]
fn adaptive_time_steps_retried_when_the_error_is_too_large() {
    check("adaptive reaction", &adaptive_reaction);
}

/// The periodic halo's two kernels, run at one call site under one name, are two locations
/// (as one, it ran twice per step: when the spin-up's scheme ended, the review moved to the new
/// scheme's predictor, 1.14 x the hand minimum).
#[test]
fn advection_changing_its_scheme_after_a_spin_up_with_remaps_and_a_limiter() {
    check("two-phase advection", &two_phase_advection);
}

/// Known limit: with nothing before the solve in a step, the solve is taken for the time loop
/// until the loops after it recur, at the end of the second step: checkpoints by count come
/// every N sweeps in the first two steps (once per step from the fourth).
#[test]
fn a_step_that_starts_with_its_solve() {
    check_known_limit(
        "solve first",
        &solve_first,
        "checkpoints counted in steps",
        &[1, 2, 3],
    );
}

#[test]
fn operator_splitting_with_a_fixed_sub_cycle() {
    check("fixed sub-steps", &fixed_sub_steps);
}

#[test]
fn two_solves_per_step_one_after_the_other() {
    check("two solves", &two_solves);
}

#[test]
fn a_time_loop_run_to_an_end_time_with_output_by_simulated_time() {
    check("end time", &to_an_end_time);
}

/// The tracer's loops, new from step 8 on, make the step's passes longer: they count against
/// the step's level only once a pass holding them completes (before, no pass could hold them).
#[test]
fn a_tracer_released_mid_run_and_a_front_that_grows() {
    check("late tracer", &late_tracer);
}

#[test]
fn one_loop_per_step_with_buffers_swapped_by_handle() {
    check("one loop per step", &one_loop_per_step);
}

#[test]
fn a_code_coupled_to_the_host_setting_its_inflow_every_step() {
    check("host coupled", &host_coupled);
}

#[test]
fn two_coupled_fields_through_one_boundary_helper() {
    check("Gray-Scott", &gray_scott);
}

#[test]
fn a_scratch_field_declared_and_freed_in_every_step() {
    check("scratch per step", &scratch_per_step);
}

#[test]
fn the_game_of_life_on_integer_cells() {
    check("life", &life);
}

#[test]
fn a_domain_in_two_blocks_advanced_block_by_block() {
    check("two blocks", &two_blocks);
}

#[test]
fn a_spin_up_time_loop_then_the_production_run() {
    check("spin-up then production", &spin_up_then_production);
}

/// Known limit: the operator and boundary helpers run on the field in the step's prefix and on
/// the search direction in every iteration, so the solve's iterations, anchored at the
/// helper's first loop, begin in the prefix. The step is found (`rhs`, the oracle's minimum)
/// once it has three passes, in the fourth step; until then nothing paces the checkpoints
/// counted in the solve's iterations (its iterations end with no value the program tests
/// after a loop of theirs, and the prefix does not lengthen the passes holding it by half):
/// every N iterations in steps 1 and 2.
#[test]
fn a_conjugate_gradient_solve_written_with_helpers() {
    check_known_limit(
        "CG with helpers",
        &conjugate_gradient_with_helpers,
        "checkpoints counted in steps",
        &[1, 2, 3],
    );
}

/// Each member's start-up loops ran before the first step and recur every 20 steps, as a time
/// step's prefix around an inner loop would; they reset the state where a prefix carries it on,
/// so they are no rest of a step around the members' steps.
#[test]
fn a_conjugate_gradient_solve_preconditioned_by_a_fixed_number_of_sweeps() {
    check("preconditioned CG", &preconditioned_cg);
}

#[test]
fn jacobi_sweeps_checked_every_fourth_sweep_with_a_source_switched_on() {
    check(
        "Jacobi checked every 4 sweeps",
        &jacobi_checked_every_few_sweeps,
    );
}

#[test]
fn a_conjugate_gradient_solve_recomputing_its_residual_every_fifth_iteration() {
    check(
        "CG with residual replacement",
        &cg_with_residual_replacement,
    );
}

#[test]
fn a_split_explicit_step_with_fixed_fast_sub_steps_then_an_implicit_solve() {
    check(
        "split-explicit then implicit",
        &split_explicit_then_implicit,
    );
}

#[test]
fn a_refined_patch_sub_cycled_twice_per_coarse_step() {
    check("refined patch", &refined_patch_sub_cycled);
}

#[test]
fn a_solve_that_converges_at_once_until_a_source_switches_on() {
    check("idle solve", &a_solve_idle_until_a_source_switches_on);
}

#[test]
fn two_solves_through_one_helper_the_second_converging_at_once() {
    check(
        "second solve at once",
        &a_second_solve_that_always_converges_at_once,
    );
}

#[test]
fn imex_runge_kutta_stages_each_with_an_implicit_solve() {
    check("IMEX stages", &imex_stages_each_with_a_solve);
}

#[test]
fn conjugate_gradient_solves_taking_as_many_iterations_every_step() {
    check("long CG", &long_conjugate_gradient_solves);
}

/// Known limit: a loop every few steps that runs before the first step's loops and is as long
/// as the step (the redistancing, two loops, of a two-loop step) reads, by the locations and
/// the data, as the prefix of an iteration around a fixed inner loop of eight: the
/// redistancing is taken for the time step's boundary (a solve of eight fixed iterations
/// restarted by a prefix that reads the state first looks the same).
#[test]
fn a_level_set_redistanced_every_eighth_step_from_the_first() {
    check_known_limit(
        "redistanced level set",
        &level_set_redistanced_every_eighth_step,
        "the chosen location `redistance` does not run once per step",
        &[1, 2, 3],
    );
}

#[test]
fn advection_sub_cycled_by_its_cfl_number_fetched_each_step() {
    check("CFL sub-cycles", &advection_sub_cycled_by_its_cfl_number);
}

/// The start-up's solve (a hundred and more sweeps) is a finished phase once the steps begin:
/// its loops, last seen before them, do not count against the time loop's coverage (before,
/// they did until 64 of its passes later, and a run of 30 three-loop steps decided nothing).
#[test]
fn a_solve_at_start_up_then_an_explicit_time_loop() {
    check(
        "start-up solve",
        &a_start_up_solve_then_an_explicit_time_loop,
    );
}

/// The start-up's solve runs through the step's own solve (the same call sites): its sweeps
/// are the step's inner loop's first burst.
#[test]
fn a_steady_state_solved_at_start_up_by_the_step_s_own_solve() {
    check(
        "steady start by the step's solve",
        &a_steady_state_solved_by_the_step_s_own_solve,
    );
}

#[test]
fn restarted_gmres_with_a_growing_basis_every_step() {
    check("GMRES(4)", &restarted_gmres);
}

/// Known limit: the pseudo iterations converge in 31 every step until the seventh (then 30):
/// a trip count that never varies, above a sub-cycle's few, whose step's prefix only sets up
/// what they read (the old field) without restarting what they carry, reads the same as a
/// time step with a loop every 31 steps that recomputes what the steps read (both end each
/// iteration with a value the program tests). Decided on the pseudo iterations in the first
/// step, the learner keeps them from the third step until the count changes: checkpoints every
/// N pseudo iterations in steps 3 to 7, then once per N steps at `keep_old`.
#[test]
fn dual_time_stepping_with_three_stage_pseudo_iterations() {
    check_known_limit(
        "dual time stepping",
        &dual_time_stepping,
        "checkpoints counted in steps came at steps",
        &[1, 2, 3],
    );
}

#[test]
fn diffusion_ping_ponging_between_two_buffers_by_its_arguments() {
    check("ping-pong by arguments", &ping_pong_by_arguments);
}

/// Known limit: a two-loop step with a total every fifth step and a regrid of three loops
/// into new datasets every eighth: once the extras have run, the step's two loops are no more
/// than a third of the locations run lately, so the step's level no longer covers the program
/// (as an inner solve's iterations would not); the decision on `diffuse` (third step) is lost
/// and the level of the total, every fifth step, is taken for the time step. Tried and
/// reverted, each measured on the 3,000 generated programs: counting against the core only
/// the largest set of loops that run in the same passes (three written programs with an inner
/// solve then decide on its sweeps); keeping the decided level while it fails only the core's
/// share (90 generated programs then count checkpoints in an inner loop's iterations in their
/// first steps); taking a level the coarser one repeats a fixed number of times as eligible
/// (the location stays `diffuse`, but the regrid, recurring between its passes, is then a
/// suspect of an enclosing iteration of eight steps and paces checkpoints).
#[test]
fn diffusion_regridded_into_new_datasets_every_eighth_step() {
    check_known_limit(
        "regridded diffusion",
        &regridded_every_eighth_step,
        "the chosen location `total` does not run once per step",
        &[1, 2, 3],
    );
}

/// The start-up's half step runs the step's own update (the same call site) just before the
/// first step's. Passes the judge, but late: decided in the fourteenth step (no checkpoint
/// before): the start-up's zero fill, run back to back for two fields, is taken for the start
/// of the iterations, so the start-up's loops count against the two-loop step's coverage.
/// Starting the iterations at the first location to recur after other loops instead failed
/// five written programs with solves (measured, reverted).
#[test]
fn leapfrog_started_by_a_half_step_through_the_step_s_update() {
    check("leapfrog half start", &leapfrog_started_by_a_half_step);
}

#[test]
fn an_ensemble_of_three_members_advanced_in_lockstep_and_nudged_to_their_mean() {
    check("ensemble in lockstep", &ensemble_in_lockstep);
}

/// Known limit: a step made only of a helper run for each of three species (every loop runs
/// three times per step, none once) has no boundary that occurs once per step: a location is a
/// call site, a loop name, a block and a kernel, and the three runs share all four, so nothing
/// is decided and checkpoints come only by time or when the program asks. The run says so: a
/// warning (not a diagnostics line a user would not see) that no checkpoint counted in steps
/// was written, and how to get them.
#[test]
fn three_species_through_one_helper_and_nothing_else() {
    check_known_limit(
        "three species",
        &three_species_through_one_helper,
        "no location was decided",
        &[1, 2, 3],
    );
    let run = oracle::run(
        &three_species_through_one_helper,
        Some(oracle::config(1)),
        |_| {},
    );
    assert!(run.checkpoints.is_empty());
    let warned = run.report.warnings.iter().filter(|w| {
        w.starts_with("no checkpoint location was decided") && w.contains("checkpoint_location")
    });
    assert_eq!(warned.count(), 1, "{:?}", run.report.warnings);
}

#[test]
fn an_ensemble_of_three_members_run_one_after_the_other() {
    check("ensemble", &ensemble);
}

#[test]
#[ignore = "debugging aid: OPS_PROGRAM=<name> ... -- --ignored --nocapture"]
fn debug_program() {
    let name = std::env::var("OPS_PROGRAM").unwrap();
    let program: oracle::Program<'_> = match name.as_str() {
        "heat" => &implicit_heat,
        "advection" => &advection_diffusion,
        "rk" => &runge_kutta,
        "wave" => &wave,
        "cg" => &conjugate_gradient,
        "nonlinear" => &nonlinear_diffusion,
        "split" => &split_diffusion,
        "adaptive" => &adaptive_reaction,
        "two-phase" => &two_phase_advection,
        "solve-first" => &solve_first,
        "sub-steps" => &fixed_sub_steps,
        "two-solves" => &two_solves,
        "end-time" => &to_an_end_time,
        "tracer" => &late_tracer,
        "one-loop" => &one_loop_per_step,
        "host" => &host_coupled,
        "gray-scott" => &gray_scott,
        "scratch" => &scratch_per_step,
        "life" => &life,
        "two-blocks" => &two_blocks,
        "spin-up" => &spin_up_then_production,
        "cg-helpers" => &conjugate_gradient_with_helpers,
        "ensemble" => &ensemble,
        "pcg" => &preconditioned_cg,
        "checked-jacobi" => &jacobi_checked_every_few_sweeps,
        "cg-replace" => &cg_with_residual_replacement,
        "split-explicit" => &split_explicit_then_implicit,
        "patch" => &refined_patch_sub_cycled,
        "idle-solve" => &a_solve_idle_until_a_source_switches_on,
        "second-solve" => &a_second_solve_that_always_converges_at_once,
        "imex" => &imex_stages_each_with_a_solve,
        "long-cg" => &long_conjugate_gradient_solves,
        "redistance" => &level_set_redistanced_every_eighth_step,
        "cfl-sub-cycles" => &advection_sub_cycled_by_its_cfl_number,
        "start-up-solve" => &a_start_up_solve_then_an_explicit_time_loop,
        "steady-start" => &a_steady_state_solved_by_the_step_s_own_solve,
        "gmres" => &restarted_gmres,
        "ping-pong" => &ping_pong_by_arguments,
        "regrid" => &regridded_every_eighth_step,
        "leapfrog-half" => &leapfrog_started_by_a_half_step,
        "lockstep" => &ensemble_in_lockstep,
        "dual-time" => &dual_time_stepping,
        "species" => &three_species_through_one_helper,
        _ => panic!("no program {name}"),
    };
    let reference = oracle::run(program, None, |_| {});
    for (i, s) in reference.ran.iter().enumerate() {
        let mut c: Vec<(String, usize)> = Vec::new();
        for n in s.iter().map(|k| oracle::short(k)) {
            match c.iter_mut().find(|(m, _)| *m == n) {
                Some((_, k)) => *k += 1,
                None => c.push((n, 1)),
            }
        }
        let c: Vec<String> = c
            .iter()
            .map(|(n, k)| {
                if *k == 1 {
                    n.clone()
                } else {
                    format!("{n}x{k}")
                }
            })
            .collect();
        eprintln!("step {i}: {} loops: {}", s.len(), c.join(" "));
    }
    let every = std::env::var("OPS_EVERY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let learnt = oracle::run(program, Some(oracle::config(every)), |_| {});
    oracle::print_learnt(&learnt);
}
