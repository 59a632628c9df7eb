//! The implicit solve of one time step (the original's `tea_leaf` routine): initialise the
//! operator, run the chosen solver until the residual norm has fallen by `tl_eps` (or
//! `tl_max_iters` iterations), and turn the solution back into energy.
//!
//! Every grid computation is a `par_loop` (see [`crate::kernels`]); what happens on the host are
//! scalar recurrences on values the runtime hands out through reductions: CG's alpha and beta,
//! the Lanczos eigenvalue estimate from the CG coefficients, the Chebyshev coefficients and the
//! convergence tests. Control flow follows the original statement by statement, including its
//! quirks (the Chebyshev error is only recomputed every 10th iteration past the estimate and is
//! square-rooted again in between; the reported iteration count is one less than the number of
//! iterations run when the solve converges).

use crate::deck::{Preconditioner, Solver};
use crate::kernels::*;
use crate::prelude::*;
use crate::tea::{Field, Fields, Tea};

/// Why a solve could not go on.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// The runtime refused something.
    #[error("runtime: {0}")]
    Ops(#[from] OpsError),
    /// The eigenvalue estimate failed (as the original, this ends the run).
    #[error("tea_leaf: error in calculating eigenvalues ({0})")]
    Eigenvalues(String),
    /// A quantity that steers the run became NaN or infinite.
    #[error(
        "step {step}: {what} is {value}: the solution has broken down (check the deck's \
         densities, energies and timestep)"
    )]
    NotFinite {
        /// The step.
        step: u64,
        /// What became non-finite.
        what: String,
        /// Its value.
        value: f64,
    },
    /// PPCG's inner steps need more polynomial coefficients than were computed.
    #[error(
        "tea_leaf: tl_ppcg_inner_steps {steps} needs more Chebyshev coefficients than the {have} computed"
    )]
    InnerSteps {
        /// Inner steps asked for.
        steps: i64,
        /// Coefficients available.
        have: usize,
    },
}

/// What one step's solve reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolveReport {
    /// The original's "Iteration count": iterations run, minus one when the solve converged.
    pub iterations: u64,
    /// Final residual norm relative to the initial one ("Conduction error").
    pub error: f64,
    /// Whether the residual fell below `tl_eps` within `tl_max_iters` iterations.
    pub converged: bool,
    /// With `tl_check_result`: the recomputed true residual norm, relative to the initial one.
    pub exact_error: Option<f64>,
    /// PPCG's inner iterations this step.
    pub ppcg_inner_iterations: Option<i64>,
    /// Lines the original prints during the solve (solver switches, estimates, residuals).
    pub messages: Vec<String>,
}

/// Persistent solver state across steps (the original keeps these in SAVE variables).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Eigen {
    /// Smallest eigenvalue estimate (already scaled by 0.95).
    pub min: f64,
    /// Largest eigenvalue estimate (already scaled by 1.05).
    pub max: f64,
}

/// The eigenvalues of the symmetric tridiagonal matrix with diagonal `d` and off-diagonal `e`
/// (`e[i]` couples `i - 1` and `i`; `e[0]` is unused), by the implicit QL algorithm with
/// Wilkinson shifts, as the original's `tqli`. `d` is overwritten with the eigenvalues.
/// Fails when an eigenvalue needs more than 30 iterations.
pub fn tqli(d: &mut [f64], e: &mut [f64]) -> std::result::Result<(), String> {
    let n = d.len();
    // Shift the off-diagonal down: e[i] now couples i and i + 1.
    for i in 0..n {
        e[i] = if i + 1 < n { e[i + 1] } else { 0.0 };
    }
    let mut l = 0;
    while l < n {
        let mut iter = 0;
        'iterate: loop {
            let mut m = l;
            while m + 1 < n {
                let dd = d[m].abs() + d[m + 1].abs();
                if e[m].abs() + dd == dd {
                    break;
                }
                m += 1;
            }
            if m == l {
                break 'iterate;
            }
            if iter == 30 {
                return Err("tqli needed more than 30 iterations".into());
            }
            iter += 1;
            let mut g = (d[l + 1] - d[l]) / (2.0 * e[l]);
            let mut r = (g * g + 1.0).sqrt();
            g = d[m] - d[l] + e[l] / (g + r.copysign(g));
            let mut s = 1.0;
            let mut c = 1.0;
            let mut p = 0.0;
            let mut i = m;
            while i > l {
                i -= 1;
                let f = s * e[i];
                let b = c * e[i];
                r = (f * f + g * g).sqrt();
                e[i + 1] = r;
                if r == 0.0 {
                    d[i + 1] -= p;
                    e[m] = 0.0;
                    continue 'iterate;
                }
                s = f / r;
                c = g / r;
                g = d[i + 1] - p;
                r = (d[i] - g) * s + 2.0 * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
            }
            d[l] -= p;
            e[l] = g;
            e[m] = 0.0;
        }
        l += 1;
    }
    Ok(())
}

/// The original's tea_calc_eigenvalues: the extreme eigenvalues of the Lanczos matrix built from
/// the first CG steps' alphas and betas.
pub fn calc_eigenvalues(alphas: &[f64], betas: &[f64]) -> std::result::Result<(f64, f64), String> {
    let n = alphas.len();
    let mut diag = vec![0.0; n];
    let mut offdiag = vec![0.0; n];
    for i in 0..n {
        diag[i] = 1.0 / alphas[i];
        if i > 0 {
            diag[i] += betas[i - 1] / alphas[i - 1];
        }
        if i + 1 < n {
            offdiag[i + 1] = betas[i].sqrt() / alphas[i];
        }
    }
    tqli(&mut diag, &mut offdiag)?;
    let mut min = f64::MAX;
    let mut max = -f64::MAX;
    for v in &diag {
        // Fortran MINVAL/MAXVAL.
        if *v < min {
            min = *v;
        }
        if *v > max {
            max = *v;
        }
    }
    if min < 0.0 || max < 0.0 {
        return Err(format!(
            "estimates {min:e}, {max:e} from {n} CG steps are not both positive"
        ));
    }
    Ok((min, max))
}

/// The Chebyshev coefficients on the interval `[eigmin, eigmax]` (tea_calc_ch_coefs), one
/// iteration's `(alpha, beta)` at a time, so a long Chebyshev run needs no table.
#[derive(Clone, Copy, Debug)]
pub struct ChebyCoefs {
    /// The interval's centre.
    pub theta: f64,
    delta: f64,
    sigma: f64,
    rho_old: f64,
}

impl ChebyCoefs {
    /// The coefficients for `[eigmin, eigmax]`, starting at the first iteration's.
    pub fn new(eigmin: f64, eigmax: f64) -> ChebyCoefs {
        let theta = (eigmax + eigmin) / 2.0;
        let delta = (eigmax - eigmin) / 2.0;
        let sigma = theta / delta;
        ChebyCoefs {
            theta,
            delta,
            sigma,
            rho_old: 1.0 / sigma,
        }
    }

    /// The next iteration's `(alpha, beta)`.
    pub fn next_pair(&mut self) -> (f64, f64) {
        let rho_new = 1.0 / (2.0 * self.sigma - self.rho_old);
        let pair = (rho_new * self.rho_old, 2.0 * rho_new / self.delta);
        self.rho_old = rho_new;
        pair
    }
}

/// The first `n` Chebyshev coefficients for `[eigmin, eigmax]` as tables, and `theta`.
pub fn ch_coefs(eigmin: f64, eigmax: f64, n: usize) -> (Vec<f64>, Vec<f64>, f64) {
    let mut c = ChebyCoefs::new(eigmin, eigmax);
    let (alphas, betas) = (0..n).map(|_| c.next_pair()).unzip();
    (alphas, betas, c.theta)
}

/// Fortran `NINT` to a default integer.
fn nint(v: f64) -> i64 {
    v.round() as i64
}

/// Fortran `Ew.d` editing (used for the messages the solve prints).
pub(crate) use crate::output::fortran_e;

impl Tea {
    /// The original's `tea_leaf`: the implicit solve of the current step.
    pub fn solve(&mut self) -> std::result::Result<SolveReport, SolveError> {
        let deck = self.deck.clone();
        let solver = deck.solver;
        let cg_family = matches!(solver, Solver::Cg | Solver::Chebyshev | Solver::Ppcg);
        let max_iters = deck.max_iters as usize;
        let mut report = SolveReport::default();
        let mut ppcg_active = false;

        // INIT
        self.update_halo(Fields::of(&[Field::Energy1, Field::Density]), self.depth)?;
        self.init_common()?;
        self.update_halo(Fields::of(&[Field::U]), 1)?;
        let rr0 = self.calc_residual()?;
        let mut old_error = rr0;
        let initial_residual = rr0.abs().sqrt();
        if deck.verbose {
            report
                .messages
                .push(format!(" Initial residual {}", fmt_g(initial_residual)));
        }
        let mut rro = 0.0;
        let mut fields;
        if cg_family {
            rro = self.cg_init()?;
            self.update_halo(Fields::of(&[Field::U, Field::P]), 1)?;
            fields = Fields::of(&[Field::P]);
        } else {
            fields = Fields::of(&[Field::U]);
        }

        let mut cg_alphas: Vec<f64> = Vec::new();
        let mut cg_betas: Vec<f64> = Vec::new();
        // Chebyshev's coefficients, produced as its iterations use them, and the inner steps'
        // table (PPCG's, or the first ones of Chebyshev's when a deck asks for inner steps).
        let mut cheby = ChebyCoefs::new(1.0, 2.0);
        let mut ch_alphas: Vec<f64> = Vec::new();
        let mut ch_betas: Vec<f64> = Vec::new();
        let mut theta = 0.0;
        let mut cn = 0.0;
        let mut est_itc: i64 = 0;
        let mut cheby_calc_steps: usize = 0;
        let mut ppcg_inner_iters: i64 = 0;
        let mut ch_switch_check = false;
        let mut error = 0.0;
        let inner_steps = deck.ppcg_inner_steps;

        // A residual that is exactly zero means the step is already solved; CG would divide 0
        // by 0 (the original does, and its answer becomes NaN unless rounding noise in its
        // fused multiply-adds happens to leave a residual), so the solve stops here.
        let solved = cg_family && rro == 0.0;
        let mut converged = solved;
        let mut n = 1;
        while n <= max_iters && !solved {
            // Whether Chebyshev / PPCG may take over from CG.
            if !ch_switch_check {
                ch_switch_check = cheby_calc_steps > 0
                    || (self.eigen.is_some() && solver == Solver::Ppcg && n > 1)
                    || (old_error.abs() <= deck.ch_cg_epslim && n as i64 >= deck.ch_cg_presteps);
            }

            if matches!(solver, Solver::Chebyshev | Solver::Ppcg) && ch_switch_check {
                if cheby_calc_steps == 0 {
                    let max_cheby_iters = max_iters - n + 2;
                    let eig = match self.eigen {
                        Some(e) => e,
                        None => {
                            let (mn, mx) = calc_eigenvalues(&cg_alphas, &cg_betas)
                                .map_err(SolveError::Eigenvalues)?;
                            let e = (mn * 0.95, mx * 1.05);
                            self.eigen = Some(e);
                            e
                        }
                    };
                    if solver == Solver::Chebyshev {
                        cheby = ChebyCoefs::new(eig.0, eig.1);
                        theta = cheby.theta;
                        let table = usize::try_from(inner_steps)
                            .unwrap_or(0)
                            .min(max_cheby_iters);
                        (ch_alphas, ch_betas, _) = ch_coefs(eig.0, eig.1, table);
                        if inner_steps > max_cheby_iters as i64 {
                            return Err(SolveError::InnerSteps {
                                steps: inner_steps,
                                have: max_cheby_iters,
                            });
                        }
                    } else {
                        let steps = inner_steps.max(0) as usize;
                        (ch_alphas, ch_betas, theta) = ch_coefs(eig.0, eig.1, steps);
                        ppcg_active = true;
                    }
                    cn = eig.1 / eig.0;
                    report.messages.push(format!(
                        "Switching after {n:>3} CG its, error {}",
                        fortran_e(rro, 15, 7)
                    ));
                    report.messages.push(format!(
                        "Eigen min{} Eigen max{} Condition number{:>14.6} Error{}",
                        fortran_e(eig.0, 14, 6),
                        fortran_e(eig.1, 14, 6),
                        cn,
                        fortran_e(old_error, 14, 6)
                    ));
                    // Re-initialise CG with the polynomial preconditioner applied.
                    self.ppcg_precondition_r()?;
                    self.ppcg_inner_steps(&ch_alphas, &ch_betas, theta, inner_steps)?;
                    ppcg_inner_iters += inner_steps;
                    rro = self.ppcg_reinit_p(ppcg_active)?;
                    fields = Fields::of(&[Field::P]);
                    self.update_halo(fields, 1)?;
                }

                if solver == Solver::Chebyshev {
                    if cheby_calc_steps == 0 {
                        let u0 = self.d.u0;
                        let bb = self.norm2(u0)?;
                        self.cheby_init(theta)?;
                        self.update_halo(fields, 1)?;
                        let (a, b) = cheby.next_pair();
                        self.cheby_iterate(a, b)?;
                        let r = self.d.r;
                        error = self.norm2(r)?;
                        let it_alpha = deck.eps / 2.0 * (bb / error).sqrt();
                        let gamm = (cn.sqrt() - 1.0) / (cn.sqrt() + 1.0);
                        est_itc = nint(it_alpha.ln() / gamm.ln());
                        report.messages.push(format!("{:>11}", "est itc"));
                        report.messages.push(format!("{est_itc:>11}"));
                        cheby_calc_steps = 1;
                    } else {
                        let (a, b) = cheby.next_pair();
                        self.cheby_iterate(a, b)?;
                        if n as i64 >= est_itc && n % 10 == 0 {
                            let r = self.d.r;
                            error = self.norm2(r)?;
                        }
                    }
                } else {
                    // PPCG: flexible CG on the polynomially preconditioned system.
                    let (pw, zr) = self.ppcg_calc_w(ppcg_active)?;
                    rro = zr;
                    let alpha = rro / pw;
                    self.cg_calc_ur_ppcg(alpha)?;
                    self.ppcg_inner_steps(&ch_alphas, &ch_betas, theta, inner_steps)?;
                    ppcg_inner_iters += inner_steps;
                    let rrn = self.ppcg_calc_rrn()?;
                    let beta = rrn / rro;
                    self.cg_calc_p(beta, ppcg_active)?;
                    error = rrn;
                    rro = rrn;
                }
                cheby_calc_steps += 1;
            } else if cg_family {
                fields.insert(Field::P);
                let pw = self.cg_calc_w()?;
                let alpha = rro / pw;
                cg_alphas.push(alpha);
                let rrn = self.cg_calc_r(alpha)?;
                let beta = rrn / rro;
                cg_betas.push(beta);
                self.cg_calc_p_u(alpha, beta)?;
                error = rrn;
                rro = rrn;
            } else {
                error = self.jacobi_iterate()?;
            }

            self.update_halo(fields, 1)?;
            error = error.abs().sqrt();
            if deck.verbose {
                report.messages.push(format!(" Residual {}", fmt_g(error)));
            }
            if error.abs() < deck.eps * initial_residual {
                converged = true;
                break;
            }
            old_error = error;
            n += 1;
        }

        if deck.check_result {
            self.update_halo(Fields::of(&[Field::U]), 1)?;
            let exact = self.calc_residual()?.sqrt();
            report.exact_error = Some(exact / initial_residual);
        }
        report.error = if solved {
            0.0
        } else {
            error / initial_residual
        };
        report.converged = converged;
        report.iterations = (n - 1) as u64;
        if solver == Solver::Ppcg {
            report.ppcg_inner_iterations = Some(ppcg_inner_iters);
        }

        // RESET
        self.finalise()?;
        self.update_halo(Fields::of(&[Field::Energy1]), 1)?;
        Ok(report)
    }

    // ------------------------------------------------------------------------------------------
    // CG
    // ------------------------------------------------------------------------------------------

    /// tea_leaf_cg_init: `p = M⁻¹ r` (or `r`), returns `rro = r·p`.
    fn cg_init(&mut self) -> Result<f64> {
        let d = &self.d;
        let (r, p, z, mi) = (d.r, d.p, d.z, d.mi);
        let p00 = self.s.p00;
        let name = "tea_leaf_cg_init";
        let sum = self.sum_a();
        match self.deck.preconditioner {
            Preconditioner::None => self.run(
                cg_init_none,
                name,
                self.interior(),
                &[r.arg(&p00, Read), p.arg(&p00, Write), sum],
            )?,
            Preconditioner::JacDiag => self.run(
                cg_init_diag,
                name,
                self.interior(),
                &[
                    r.arg(&p00, Read),
                    mi.arg(&p00, Read),
                    z.arg(&p00, Write),
                    p.arg(&p00, Write),
                    sum,
                ],
            )?,
            Preconditioner::JacBlock => {
                self.block_solve(r, z, name)?;
                self.run(
                    p_from_z,
                    name,
                    self.interior(),
                    &[
                        r.arg(&p00, Read),
                        z.arg(&p00, Read),
                        p.arg(&p00, Write),
                        sum,
                    ],
                )?;
            }
        }
        self.take_a()
    }

    /// tea_leaf_cg_calc_w: `w = A p`, returns `p·w`.
    fn cg_calc_w(&mut self) -> Result<f64> {
        let d = &self.d;
        let (p, kx, ky, w) = (d.p, d.kx, d.ky, d.w);
        let s = &self.s;
        let (p00, five, kxs, kys) = (s.p00, s.five, s.kx, s.ky);
        let (rx, ry) = (self.rx, self.ry);
        self.run(
            cg_calc_w,
            "tea_leaf_cg_calc_w",
            self.interior(),
            &[
                p.arg(&five, Read),
                kx.arg(&kxs, Read),
                ky.arg(&kys, Read),
                w.arg(&p00, Write),
                Arg::global(rx),
                Arg::global(ry),
            ],
        )?;
        self.dot(w, p, "tea_leaf_cg_calc_w_dot")
    }

    /// tea_leaf_cg_calc_ur less its update of `u` (done in [`Tea::cg_calc_p_u`]):
    /// `r -= alpha w`, `z = M⁻¹ r`; returns `r·z` (or `r·r`).
    fn cg_calc_r(&mut self, alpha: f64) -> Result<f64> {
        let d = &self.d;
        let (w, r, z, mi) = (d.w, d.r, d.z, d.mi);
        let p00 = self.s.p00;
        let name = "tea_leaf_cg_calc_ur";
        match self.deck.preconditioner {
            Preconditioner::None => {
                let sum = self.sum_a();
                self.run(
                    cg_calc_r,
                    name,
                    self.interior(),
                    &[
                        w.arg(&p00, Read),
                        r.arg(&p00, ReadWrite),
                        Arg::global(alpha),
                        sum,
                    ],
                )?;
                self.take_a()
            }
            Preconditioner::JacDiag => {
                let sum = self.sum_a();
                self.run(
                    cg_calc_r_diag,
                    name,
                    self.interior(),
                    &[
                        w.arg(&p00, Read),
                        mi.arg(&p00, Read),
                        r.arg(&p00, ReadWrite),
                        z.arg(&p00, Write),
                        Arg::global(alpha),
                        sum,
                    ],
                )?;
                self.take_a()
            }
            Preconditioner::JacBlock => {
                self.run(
                    cg_update_r,
                    name,
                    self.interior(),
                    &[
                        w.arg(&p00, Read),
                        r.arg(&p00, ReadWrite),
                        Arg::global(alpha),
                    ],
                )?;
                self.block_solve(r, z, name)?;
                self.dot(r, z, "tea_leaf_cg_calc_ur_dot")
            }
        }
    }

    /// calc_ur's `u += alpha p` and tea_leaf_cg_calc_p's `p = z + beta p` (or `r + beta p`)
    /// in one loop.
    fn cg_calc_p_u(&mut self, alpha: f64, beta: f64) -> Result<()> {
        let d = &self.d;
        let src = if self.deck.preconditioner != Preconditioner::None {
            d.z
        } else {
            d.r
        };
        let (p, u, p00) = (d.p, d.u, self.s.p00);
        self.run(
            cg_calc_p_u,
            "tea_leaf_cg_calc_p",
            self.interior(),
            &[
                src.arg(&p00, Read),
                p.arg(&p00, ReadWrite),
                u.arg(&p00, ReadWrite),
                Arg::global(alpha),
                Arg::global(beta),
            ],
        )
    }

    /// `u += alpha p`, `r -= alpha w`.
    fn cg_update_ur(&mut self, alpha: f64) -> Result<()> {
        let d = &self.d;
        let (p, w, u, r, p00) = (d.p, d.w, d.u, d.r, self.s.p00);
        self.run(
            cg_calc_ur_plain,
            "tea_leaf_cg_calc_ur",
            self.interior(),
            &[
                p.arg(&p00, Read),
                w.arg(&p00, Read),
                u.arg(&p00, ReadWrite),
                r.arg(&p00, ReadWrite),
                Arg::global(alpha),
            ],
        )
    }

    /// PPCG's calc_ur: the updates of tea_leaf_cg_calc_ur (z included) without the dot
    /// product, which PPCG does not use.
    fn cg_calc_ur_ppcg(&mut self, alpha: f64) -> Result<()> {
        let d = &self.d;
        let (p, w, u, r, z, mi, p00) = (d.p, d.w, d.u, d.r, d.z, d.mi, self.s.p00);
        let name = "tea_leaf_cg_calc_ur";
        match self.deck.preconditioner {
            Preconditioner::None => self.cg_update_ur(alpha),
            Preconditioner::JacDiag => self.run(
                cg_calc_ur_diag,
                name,
                self.interior(),
                &[
                    p.arg(&p00, Read),
                    w.arg(&p00, Read),
                    mi.arg(&p00, Read),
                    u.arg(&p00, ReadWrite),
                    r.arg(&p00, ReadWrite),
                    z.arg(&p00, Write),
                    Arg::global(alpha),
                ],
            ),
            Preconditioner::JacBlock => {
                self.cg_update_ur(alpha)?;
                self.block_solve(r, z, name)
            }
        }
    }

    /// tea_leaf_cg_calc_p: `p = z + beta p` with a preconditioner or in PPCG, `r + beta p`
    /// otherwise.
    fn cg_calc_p(&mut self, beta: f64, ppcg_active: bool) -> Result<()> {
        let d = &self.d;
        let src = if self.deck.preconditioner != Preconditioner::None || ppcg_active {
            d.z
        } else {
            d.r
        };
        let (p, p00) = (d.p, self.s.p00);
        self.run(
            cg_calc_p,
            "tea_leaf_cg_calc_p",
            self.interior(),
            &[
                src.arg(&p00, Read),
                p.arg(&p00, ReadWrite),
                Arg::global(beta),
            ],
        )
    }

    // ------------------------------------------------------------------------------------------
    // Chebyshev
    // ------------------------------------------------------------------------------------------

    /// `w = A u`, `r = u0 - w`, `z = M⁻¹ r`: the residual half of cheby_init / cheby_iterate.
    /// Returns the dataset the update reads (z with a preconditioner, r otherwise).
    fn cheby_residual(&mut self, name: &str) -> Result<Dat<f64>> {
        let d = &self.d;
        let (u, u0, kx, ky, di, w, r, z, mi) = (d.u, d.u0, d.kx, d.ky, d.di, d.w, d.r, d.z, d.mi);
        let s = &self.s;
        let (p00, five, kxs, kys) = (s.p00, s.five, s.kx, s.ky);
        let (rx, ry) = (self.rx, self.ry);
        self.run(
            cheby_residual,
            name,
            self.interior(),
            &[
                u.arg(&five, Read),
                u0.arg(&p00, Read),
                kx.arg(&kxs, Read),
                ky.arg(&kys, Read),
                di.arg(&p00, Read),
                w.arg(&p00, Write),
                r.arg(&p00, Write),
                Arg::global(rx),
                Arg::global(ry),
            ],
        )?;
        Ok(match self.deck.preconditioner {
            Preconditioner::None => r,
            Preconditioner::JacDiag => {
                self.run(
                    diag_solve,
                    name,
                    self.interior(),
                    &[r.arg(&p00, Read), mi.arg(&p00, Read), z.arg(&p00, Write)],
                )?;
                z
            }
            Preconditioner::JacBlock => {
                self.block_solve(r, z, name)?;
                z
            }
        })
    }

    /// tea_leaf_cheby_init: the residual, `p = M⁻¹ r / theta`, `u += p`.
    fn cheby_init(&mut self, theta: f64) -> Result<()> {
        let name = "tea_leaf_cheby_init";
        let src = self.cheby_residual(name)?;
        let (p, u, p00) = (self.d.p, self.d.u, self.s.p00);
        self.run(
            cheby_init_p,
            name,
            self.interior(),
            &[
                src.arg(&p00, Read),
                p.arg(&p00, Write),
                u.arg(&p00, ReadWrite),
                Arg::global(theta),
            ],
        )
    }

    /// tea_leaf_cheby_iterate: the residual, `p = alpha p + beta M⁻¹ r`, `u += p`.
    fn cheby_iterate(&mut self, alpha: f64, beta: f64) -> Result<()> {
        let name = "tea_leaf_cheby_iterate";
        let src = self.cheby_residual(name)?;
        let (p, u, p00) = (self.d.p, self.d.u, self.s.p00);
        self.run(
            cheby_iterate_p,
            name,
            self.interior(),
            &[
                src.arg(&p00, Read),
                p.arg(&p00, ReadWrite),
                u.arg(&p00, ReadWrite),
                Arg::global(alpha),
                Arg::global(beta),
            ],
        )
    }

    // ------------------------------------------------------------------------------------------
    // PPCG
    // ------------------------------------------------------------------------------------------

    /// tea_leaf_ppcg_init step 2: `z = M⁻¹ r` when there is a preconditioner.
    fn ppcg_precondition_r(&mut self) -> Result<()> {
        let d = &self.d;
        let (r, z, mi, p00) = (d.r, d.z, d.mi, self.s.p00);
        let name = "tea_leaf_ppcg_init";
        match self.deck.preconditioner {
            Preconditioner::None => Ok(()),
            Preconditioner::JacDiag => self.run(
                diag_solve,
                name,
                self.interior(),
                &[r.arg(&p00, Read), mi.arg(&p00, Read), z.arg(&p00, Write)],
            ),
            Preconditioner::JacBlock => self.block_solve(r, z, name),
        }
    }

    /// tea_leaf_ppcg_init step 3: `p = z` when there is a preconditioner or PPCG is active,
    /// `p = 0` otherwise; returns `r·p`.
    fn ppcg_reinit_p(&mut self, ppcg_active: bool) -> Result<f64> {
        let d = &self.d;
        let (r, z, p, p00) = (d.r, d.z, d.p, self.s.p00);
        let name = "tea_leaf_ppcg_init";
        let sum = self.sum_a();
        if self.deck.preconditioner != Preconditioner::None || ppcg_active {
            self.run(
                p_from_z,
                name,
                self.interior(),
                &[
                    r.arg(&p00, Read),
                    z.arg(&p00, Read),
                    p.arg(&p00, Write),
                    sum,
                ],
            )?;
        } else {
            self.run(
                p_zero,
                name,
                self.interior(),
                &[r.arg(&p00, Read), p.arg(&p00, Write), sum],
            )?;
        }
        self.take_a()
    }

    /// tea_leaf_run_ppcg_inner_steps: `steps` Chebyshev steps on the residual equation, the
    /// polynomially preconditioned residual ending up in `z`. Nothing when `steps` is negative.
    fn ppcg_inner_steps(
        &mut self,
        alphas: &[f64],
        betas: &[f64],
        theta: f64,
        steps: i64,
    ) -> std::result::Result<(), SolveError> {
        if steps < 0 {
            return Ok(());
        }
        if steps as usize > alphas.len() {
            return Err(SolveError::InnerSteps {
                steps,
                have: alphas.len(),
            });
        }
        let precond = self.deck.preconditioner;
        let d = &self.d;
        let (r, z, sd, rtemp, utemp, mi, kx, ky, di) =
            (d.r, d.z, d.sd, d.rtemp, d.utemp, d.mi, d.kx, d.ky, d.di);
        let s = &self.s;
        let (p00, five, kxs, kys) = (s.p00, s.five, s.kx, s.ky);
        let (rx, ry) = (self.rx, self.ry);
        let src = if precond != Preconditioner::None {
            z
        } else {
            r
        };
        self.run(
            ppcg_init_sd,
            "tea_leaf_ppcg_init_sd",
            self.interior(),
            &[
                src.arg(&p00, Read),
                r.arg(&p00, Read),
                sd.arg(&p00, Write),
                rtemp.arg(&p00, Write),
                utemp.arg(&p00, Write),
                Arg::global(1.0 / theta),
            ],
        )?;
        let depth = self.depth as i64;
        let reflective = self.deck.reflective_boundary;
        let mut cur = 1;
        while cur <= steps {
            self.update_halo(Fields::of(&[Field::Sd, Field::R]), self.depth)?;
            for extra in (0..depth).rev() {
                let step = cur + depth - 1 - extra;
                let (a, b) = (alphas[step as usize - 1], betas[step as usize - 1]);
                let name = "tea_leaf_ppcg_inner";
                self.run(
                    ppcg_inner_residual,
                    name,
                    self.interior(),
                    &[
                        sd.arg(&five, Read),
                        kx.arg(&kxs, Read),
                        ky.arg(&kys, Read),
                        di.arg(&p00, Read),
                        rtemp.arg(&p00, ReadWrite),
                        Arg::global(rx),
                        Arg::global(ry),
                    ],
                )?;
                match precond {
                    Preconditioner::None => self.run(
                        ppcg_inner_update,
                        name,
                        self.interior(),
                        &[
                            rtemp.arg(&p00, Read),
                            sd.arg(&p00, ReadWrite),
                            utemp.arg(&p00, ReadWrite),
                            Arg::global(a),
                            Arg::global(b),
                        ],
                    )?,
                    Preconditioner::JacDiag => self.run(
                        ppcg_inner_update_diag,
                        name,
                        self.interior(),
                        &[
                            rtemp.arg(&p00, Read),
                            mi.arg(&p00, Read),
                            sd.arg(&p00, ReadWrite),
                            utemp.arg(&p00, ReadWrite),
                            Arg::global(a),
                            Arg::global(b),
                        ],
                    )?,
                    Preconditioner::JacBlock => {
                        self.block_solve(rtemp, z, name)?;
                        self.run(
                            ppcg_inner_update,
                            name,
                            self.interior(),
                            &[
                                z.arg(&p00, Read),
                                sd.arg(&p00, ReadWrite),
                                utemp.arg(&p00, ReadWrite),
                                Arg::global(a),
                                Arg::global(b),
                            ],
                        )?;
                    }
                }
                if reflective {
                    self.update_halo(Fields::of(&[Field::Sd]), 1)?;
                }
                if step == steps {
                    break;
                }
            }
            cur += depth;
        }
        // z = utemp
        self.run(
            copy,
            "tea_leaf_ppcg_update_z",
            self.interior(),
            &[utemp.arg(&p00, Read), z.arg(&p00, Write)],
        )?;
        Ok(())
    }

    /// PPCG's `w = A p` with `r_store = r`: returns `(p·w, z·r)` (`r·r` when neither a
    /// preconditioner nor the polynomial one is active).
    fn ppcg_calc_w(&mut self, ppcg_active: bool) -> Result<(f64, f64)> {
        let d = &self.d;
        let (p, kx, ky, di, r, z, w, r_store) = (d.p, d.kx, d.ky, d.di, d.r, d.z, d.w, d.r_store);
        let s = &self.s;
        let (p00, five, kxs, kys) = (s.p00, s.five, s.kx, s.ky);
        let (rx, ry) = (self.rx, self.ry);
        let use_z = i32::from(self.deck.preconditioner != Preconditioner::None || ppcg_active);
        let (sa, sb) = (self.sum_a(), self.sum_b());
        self.run(
            ppcg_calc_w,
            "tea_leaf_ppcg_calc_w",
            self.interior(),
            &[
                p.arg(&five, Read),
                kx.arg(&kxs, Read),
                ky.arg(&kys, Read),
                di.arg(&p00, Read),
                r.arg(&p00, Read),
                z.arg(&p00, Read),
                w.arg(&p00, Write),
                r_store.arg(&p00, Write),
                Arg::global(rx),
                Arg::global(ry),
                Arg::global(use_z),
                sa,
                sb,
            ],
        )?;
        Ok((self.take_a()?, self.take_b()?))
    }

    /// `Σ (r - r_store)·z`.
    fn ppcg_calc_rrn(&mut self) -> Result<f64> {
        let d = &self.d;
        let (r, r_store, z, p00) = (d.r, d.r_store, d.z, self.s.p00);
        let sum = self.sum_a();
        self.run(
            ppcg_calc_rrn,
            "tea_leaf_ppcg_calc_rrn",
            self.interior(),
            &[
                r.arg(&p00, Read),
                r_store.arg(&p00, Read),
                z.arg(&p00, Read),
                sum,
            ],
        )?;
        self.take_a()
    }

    // ------------------------------------------------------------------------------------------
    // Jacobi
    // ------------------------------------------------------------------------------------------

    /// One Jacobi iteration (the previous iterate goes to `r`, as in the original); returns
    /// `Σ |u - u_prev|`.
    fn jacobi_iterate(&mut self) -> Result<f64> {
        let d = &self.d;
        let (u, u0, r, kx, ky) = (d.u, d.u0, d.r, d.kx, d.ky);
        let s = &self.s;
        let (p00, five, kxs, kys) = (s.p00, s.five, s.kx, s.ky);
        let (rx, ry) = (self.rx, self.ry);
        let name = "tea_leaf_jacobi_solve";
        self.run(
            copy,
            name,
            self.interior(),
            &[u.arg(&p00, Read), r.arg(&p00, Write)],
        )?;
        let sum = self.sum_a();
        self.run(
            jacobi_solve,
            name,
            self.interior(),
            &[
                u0.arg(&p00, Read),
                r.arg(&five, Read),
                kx.arg(&kxs, Read),
                ky.arg(&kys, Read),
                u.arg(&p00, Write),
                Arg::global(rx),
                Arg::global(ry),
                sum,
            ],
        )?;
        self.take_a()
    }
}

/// A real as Fortran list-directed output shows it (close enough for messages).
fn fmt_g(v: f64) -> String {
    format!("{v:>24.16E}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tqli_finds_eigenvalues() {
        // [[2, 1, 0], [1, 2, 1], [0, 1, 2]]: 2 - sqrt 2, 2, 2 + sqrt 2.
        let mut d = vec![2.0, 2.0, 2.0];
        let mut e = vec![0.0, 1.0, 1.0];
        tqli(&mut d, &mut e).unwrap();
        d.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let s = 2f64.sqrt();
        for (g, w) in d.iter().zip([2.0 - s, 2.0, 2.0 + s]) {
            assert!((g - w).abs() < 1e-12, "{d:?}");
        }
    }

    #[test]
    fn chebyshev_coefficients() {
        let (a, b, theta) = ch_coefs(1.0, 3.0, 3);
        assert_eq!(theta, 2.0);
        // sigma = 2, rho0 = 0.5, rho1 = 1/(4 - 0.5).
        let rho1 = 1.0 / 3.5;
        assert_eq!(a[0], rho1 * 0.5);
        assert_eq!(b[0], 2.0 * rho1 / 1.0);
        assert_eq!(a.len(), 3);
    }

    #[test]
    fn coefficients_on_the_fly_equal_the_table() {
        let (a, b, theta) = ch_coefs(0.3, 7.0, 50);
        let mut c = ChebyCoefs::new(0.3, 7.0);
        assert_eq!(c.theta, theta);
        for i in 0..50 {
            let (x, y) = c.next_pair();
            assert_eq!((x.to_bits(), y.to_bits()), (a[i].to_bits(), b[i].to_bits()));
        }
    }

    #[test]
    fn eigenvalues_of_empty_lanczos_fail() {
        assert!(calc_eigenvalues(&[], &[]).is_err());
    }
}
