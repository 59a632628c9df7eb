//! One kernel, two runtimes, the same random inputs: how far apart are the results?
//!
//! [`compare_on_random_inputs`] builds, on each runtime, a block and one dataset per dataset
//! parameter of the kernel (with the components and a halo as deep as the kernel's offsets,
//! every point, halo included, filled with the same pseudo-random values), a global value per
//! global parameter and a reduction per reduction parameter, runs the kernel over the interior
//! in two shapes (long rows, and short rows with many of them: the wgpu backend's row and
//! linear modes), and compares every dataset the kernel writes and every reduction result.
//! Floats are drawn from [0.5, 1.5] (positive, away from zero: kernels divide and take square
//! roots), integers from 0..4. The CloverLeaf and TeaLeaf tests use it to check the generated
//! WGSL against the CPU lowering of the same kernel.
//!
//! ```
//! use ops::prelude::*;
//!
//! #[kernel]
//! fn scale(a: Read<f64>, b: Write<f64>, s: Sum<f64>) {
//!     b[(0, 0)] = 2.0 * a[(0, 0)];
//!     s += a[(0, 0)];
//! }
//!
//! let mut seq = ops_from_config(OpsConfig::new(BackendKind::Seq))?;
//! let mut rayon = ops_from_config(OpsConfig::new(BackendKind::Rayon))?;
//! let r = ops_testkit::kernel_check::compare_on_random_inputs(&scale, &mut seq, &mut rayon, 7)?;
//! assert_eq!(r.differing, 0);
//! assert!(r.values > 100);
//! # Ok::<(), OpsError>(())
//! ```

use ops::ops_core::kernel::{Access, ElemType, Kernel, ParamKind};
use ops::prelude::*;

/// How far one kernel application on a device may be from the CPU lowering on inputs of order
/// one, relative (`|device - cpu| <= bound * max(|device|, |cpu|, 1)`), by the kind of adapter
/// (docs/gpu.md, *Agreement*). A CPU adapter (Mesa's llvmpipe) rounds every operation as the
/// host does: a few units in the last place (measured 6.6e-16). A real GPU's compiler fuses
/// `a * b + c` into one rounding and need not round f64 division correctly, which a kernel's
/// cancellations and divisions amplify: measured 4.9e-14 on an NVIDIA H100 (TeaLeaf's
/// `block_init`, CloverLeaf's `pdv_correct` 4.2e-14), under the project's 1e-13.
pub fn agreement_bound(real_gpu: bool) -> f64 {
    if real_gpu {
        1e-13
    } else {
        2e-15
    }
}

/// How the results of one kernel on two runtimes compare.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Agreement {
    /// The kernel's name.
    pub kernel: &'static str,
    /// Values compared (written dataset elements and reduction results, both shapes).
    pub values: usize,
    /// Float values that differ in any bit (NaN equals NaN).
    pub differing: usize,
    /// The largest `|a - b| / max(|a|, |b|, 1)` over float values (0 when all agree).
    pub worst: f64,
    /// Integer values that differ, described (integers must agree exactly).
    pub integer_mismatches: Vec<String>,
}

/// A value a kernel left behind.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Out {
    Float(f64),
    Int(i32),
}

/// A small deterministic generator (SplitMix64): both runtimes see the same inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn float(&mut self) -> f64 {
        0.5 + (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn int(&mut self) -> i32 {
        (self.next() % 4) as i32
    }
}

/// Runs `kernel` on `a` and on `b` with the same random inputs (from `seed`) and compares what
/// it wrote and reduced. Errors are the runtimes' (a kernel the backend cannot run, say).
pub fn compare_on_random_inputs(
    kernel: &dyn Kernel,
    a: &mut Ops,
    b: &mut Ops,
    seed: u64,
) -> Result<Agreement> {
    let dims = kernel
        .params()
        .iter()
        .map(|p| p.offset_dims as usize)
        .max()
        .unwrap_or(0)
        .max(1);
    let shapes: [[usize; 3]; 2] = match dims {
        1 => [[203, 1, 1], [7, 1, 1]],
        2 => [[70, 9, 1], [5, 40, 1]],
        _ => [[40, 5, 3], [4, 9, 6]],
    };
    let mut agreement = Agreement {
        kernel: kernel.name(),
        ..Agreement::default()
    };
    for (shape_no, shape) in shapes.iter().enumerate() {
        let seed = seed.wrapping_mul(31).wrapping_add(shape_no as u64);
        let xs = run(kernel, a, dims, *shape, seed, shape_no)?;
        let ys = run(kernel, b, dims, *shape, seed, shape_no)?;
        for (i, (x, y)) in xs.iter().zip(&ys).enumerate() {
            agreement.values += 1;
            match (x, y) {
                (Out::Float(x), Out::Float(y)) => {
                    if x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) {
                        continue;
                    }
                    agreement.differing += 1;
                    let rel = (x - y).abs() / x.abs().max(y.abs()).max(1.0);
                    agreement.worst =
                        agreement
                            .worst
                            .max(if rel.is_nan() { f64::INFINITY } else { rel });
                }
                (Out::Int(x), Out::Int(y)) if x == y => {}
                _ => agreement
                    .integer_mismatches
                    .push(format!("shape {shape:?}, value {i}: {x:?} vs {y:?}")),
            }
        }
    }
    Ok(agreement)
}

/// A dataset of any element type.
enum AnyDat {
    F64(Dat<f64>),
    F32(Dat<f32>),
    I32(Dat<i32>),
}

/// A reduction of any element type.
enum AnyRed {
    F64(Reduction<f64>),
    F32(Reduction<f32>),
    I32(Reduction<i32>),
}

fn run(
    kernel: &dyn Kernel,
    ops: &mut Ops,
    dims: usize,
    shape: [usize; 3],
    seed: u64,
    shape_no: usize,
) -> Result<Vec<Out>> {
    let mut rng = Rng(seed);
    let tag = format!("{}-{shape_no}", kernel.name());
    let block = ops.block(&format!("check-{tag}"), dims)?;
    let mut args = Vec::new();
    let mut outputs: Vec<(usize, AnyDat)> = Vec::new();
    let mut reductions = Vec::new();
    for (p, param) in kernel.params().iter().enumerate() {
        let name = format!("{tag}-{}", param.name);
        match param.kind {
            ParamKind::Dat(access) => {
                let mut depth = [0i32; 3];
                for o in param.offsets {
                    for d in 0..3 {
                        depth[d] = depth[d].max(o[d].abs());
                    }
                }
                let comps = param.components.max(1) as usize;
                let points: Vec<[i32; 3]> = if param.offsets.is_empty() {
                    vec![[0; 3]]
                } else {
                    param.offsets.to_vec()
                };
                let (dat, stencil) = match dims {
                    1 => make::<1>(
                        ops, &block, &name, param.ty, shape, depth, comps, &points, &mut rng,
                    )?,
                    2 => make::<2>(
                        ops, &block, &name, param.ty, shape, depth, comps, &points, &mut rng,
                    )?,
                    _ => make::<3>(
                        ops, &block, &name, param.ty, shape, depth, comps, &points, &mut rng,
                    )?,
                };
                args.push(match &dat {
                    AnyDat::F64(d) => d.arg(&stencil, access),
                    AnyDat::F32(d) => d.arg(&stencil, access),
                    AnyDat::I32(d) => d.arg(&stencil, access),
                });
                if access != Access::Read {
                    outputs.push((p, dat));
                }
            }
            ParamKind::Global => args.push(match param.ty {
                ElemType::F64 => Arg::global(rng.float()),
                ElemType::F32 => Arg::global(rng.float() as f32),
                ElemType::I32 => Arg::global(rng.int()),
            }),
            ParamKind::Reduce(op) => {
                let r = match param.ty {
                    ElemType::F64 => AnyRed::F64(ops.reduction(&name, op)),
                    ElemType::F32 => AnyRed::F32(ops.reduction(&name, op)),
                    ElemType::I32 => AnyRed::I32(ops.reduction(&name, op)),
                };
                args.push(match &r {
                    AnyRed::F64(r) => r.arg(),
                    AnyRed::F32(r) => r.arg(),
                    AnyRed::I32(r) => r.arg(),
                });
                reductions.push(r);
            }
            ParamKind::Idx => args.push(Arg::idx()),
        }
    }
    let hi: [i32; 3] = std::array::from_fn(|d| if d < dims { shape[d] as i32 } else { 1 });
    let range = IterRange::new(dims, [0; 3], hi).expect("a valid range");
    ops.par_loop_dyn(kernel, &format!("check_{tag}"), &block, range, &args)?;
    let mut out = Vec::new();
    for (_, dat) in &outputs {
        match dat {
            AnyDat::F64(d) => out.extend(ops.fetch_data(d)?.into_iter().map(Out::Float)),
            AnyDat::F32(d) => {
                out.extend(ops.fetch_data(d)?.into_iter().map(|v| Out::Float(v as f64)))
            }
            AnyDat::I32(d) => out.extend(ops.fetch_data(d)?.into_iter().map(Out::Int)),
        }
    }
    for r in &reductions {
        out.push(match r {
            AnyRed::F64(r) => Out::Float(ops.reduction_result(r)?),
            AnyRed::F32(r) => Out::Float(ops.reduction_result(r)? as f64),
            AnyRed::I32(r) => Out::Int(ops.reduction_result(r)?),
        });
    }
    Ok(out)
}

/// A dataset of `shape` (first `N` dimensions), `comps` components and halo `depth`, every
/// stored value random; and the stencil of `points`.
#[allow(clippy::too_many_arguments)]
fn make<const N: usize>(
    ops: &mut Ops,
    block: &Block,
    name: &str,
    ty: ElemType,
    shape: [usize; 3],
    depth: [i32; 3],
    comps: usize,
    points: &[[i32; 3]],
    rng: &mut Rng,
) -> Result<(AnyDat, Stencil)> {
    let size: [usize; N] = std::array::from_fn(|d| shape[d]);
    let neg: [i32; N] = std::array::from_fn(|d| -depth[d]);
    let pos: [i32; N] = std::array::from_fn(|d| depth[d]);
    let halo = Halo::new(neg, pos);
    let stored: usize = (0..N)
        .map(|d| shape[d] + 2 * depth[d] as usize)
        .product::<usize>()
        * comps;
    let lo: [i32; 3] = std::array::from_fn(|d| if d < N { -depth[d] } else { 0 });
    let hi: [i32; 3] = std::array::from_fn(|d| if d < N { shape[d] as i32 + depth[d] } else { 1 });
    let ranges = IterRange::new(N, lo, hi).expect("a valid range");
    let stencil_points: Vec<[i32; N]> = points
        .iter()
        .map(|p| std::array::from_fn(|d| p[d]))
        .collect();
    let stencil = ops.stencil(&format!("{name}-stencil"), &stencil_points)?;
    let spec_f64 = || DatSpec::<f64, N>::new(size).halo(halo).components(comps);
    let dat = match ty {
        ElemType::F64 => {
            let d = ops.dat_with(block, name, spec_f64())?;
            let v: Vec<f64> = (0..stored).map(|_| rng.float()).collect();
            ops.set_range(&d, ranges, &v)?;
            AnyDat::F64(d)
        }
        ElemType::F32 => {
            let d = ops.dat_with(
                block,
                name,
                DatSpec::<f32, N>::new(size).halo(halo).components(comps),
            )?;
            let v: Vec<f32> = (0..stored).map(|_| rng.float() as f32).collect();
            ops.set_range(&d, ranges, &v)?;
            AnyDat::F32(d)
        }
        ElemType::I32 => {
            let d = ops.dat_with(
                block,
                name,
                DatSpec::<i32, N>::new(size).halo(halo).components(comps),
            )?;
            let v: Vec<i32> = (0..stored).map(|_| rng.int()).collect();
            ops.set_range(&d, ranges, &v)?;
            AnyDat::I32(d)
        }
    };
    Ok((dat, stencil))
}

/// Every kernel of `kernels` on the wgpu device against its CPU lowering (`seq`), each on its
/// own random inputs (seeds `first_seed`, `first_seed + 1`, ...), and on a second device
/// runtime: integers must agree exactly, floats within [`agreement_bound`] of the adapter's
/// kind, and the two device runs bit for bit. Prints each kernel whose floats differ and a
/// summary (stderr); returns what failed, one line per problem (none: all agree), or `None`
/// after reporting the test as skipped when no adapter offers f64 (a failure under
/// `OPS_REQUIRE_ALL=1`). A kernel the backends cannot run panics, naming it.
pub fn every_kernel_on_the_device(kernels: &[&dyn Kernel], first_seed: u64) -> Option<Vec<String>> {
    use ops::ops_backends::WgpuBackend;
    let device = |b: WgpuBackend| Ops::new(OpsConfig::new(BackendKind::Wgpu), Box::new(b));
    let first = crate::wgpu_or_skip()?;
    let bound = agreement_bound(first.adapter().is_gpu());
    let mut gpu = device(first);
    let mut gpu_again = device(WgpuBackend::new().expect("a second device"));
    let mut cpu = ops_from_config(OpsConfig::new(BackendKind::Seq)).expect("a seq runtime");
    let (mut worst, mut values, mut differing) = (0.0f64, 0, 0);
    let mut problems = Vec::new();
    for (i, k) in kernels.iter().enumerate() {
        let seed = first_seed + i as u64;
        let a = compare_on_random_inputs(*k, &mut gpu, &mut cpu, seed)
            .unwrap_or_else(|e| panic!("kernel `{}`: {e}", k.name()));
        let again = compare_on_random_inputs(*k, &mut gpu, &mut gpu_again, seed)
            .unwrap_or_else(|e| panic!("kernel `{}`: {e}", k.name()));
        if again.differing > 0 || !again.integer_mismatches.is_empty() {
            problems.push(format!("`{}`: two device runs differ", k.name()));
        }
        if !a.integer_mismatches.is_empty() {
            problems.push(format!(
                "`{}`: integers differ: {:?}",
                k.name(),
                a.integer_mismatches
            ));
        }
        if a.worst > bound {
            problems.push(format!("`{}`: {:e} relative", k.name(), a.worst));
        }
        if a.differing > 0 {
            eprintln!(
                "{:28} {:5} of {:5} values differ, worst {:.1e}",
                k.name(),
                a.differing,
                a.values,
                a.worst
            );
        }
        worst = worst.max(a.worst);
        values += a.values;
        differing += a.differing;
    }
    eprintln!(
        "{} kernels, {values} values: {differing} differ from seq, worst {worst:.2e} relative \
         (bound {bound:e})",
        kernels.len()
    );
    Some(problems)
}
