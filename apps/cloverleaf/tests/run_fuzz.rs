//! Random valid decks run without panicking: every run ends normally or with the small-timestep
//! error, on small meshes and for a few steps.

use clap::Parser;
use cloverleaf::{run, AppError, Cli};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct StateSpec {
    density: f64,
    energy: f64,
    xvel: f64,
    yvel: f64,
    geometry: u8,
    a: f64,
    b: f64,
    c: f64,
    d: f64,
}

fn state() -> impl Strategy<Value = StateSpec> {
    (
        0.05f64..5.0,
        0.0f64..5.0,
        -1.0f64..1.0,
        -1.0f64..1.0,
        0u8..3,
        -2.0f64..12.0,
        0.05f64..8.0,
        -2.0f64..12.0,
        0.05f64..8.0,
    )
        .prop_map(
            |(density, energy, xvel, yvel, geometry, a, b, c, d)| StateSpec {
                density,
                energy,
                xvel,
                yvel,
                geometry,
                a,
                b,
                c,
                d,
            },
        )
}

fn deck_text(
    nx: u32,
    ny: u32,
    width: f64,
    states: &[StateSpec],
    steps: u32,
    dtinit: f64,
) -> String {
    let mut t = String::from("*clover\n");
    for (i, s) in states.iter().enumerate() {
        t += &format!(
            " state {} density={} energy={} xvel={} yvel={}",
            i + 1,
            s.density,
            s.energy,
            s.xvel,
            s.yvel
        );
        if i > 0 {
            t += &match s.geometry {
                0 => format!(
                    " geometry=rectangle xmin={} xmax={} ymin={} ymax={}",
                    s.a,
                    s.a + s.b,
                    s.c,
                    s.c + s.d
                ),
                1 => format!(" geometry=circle xmin={} ymin={} radius={}", s.a, s.c, s.b),
                _ => format!(" geometry=point xmin={} ymin={}", s.a, s.c),
            };
        }
        t += "\n";
    }
    t += &format!(
        " x_cells={nx} y_cells={ny}\n xmin=0.0 ymin=0.0 xmax={width} ymax={}\n \
         initial_timestep={dtinit} max_timestep=0.1 end_step={steps} summary_frequency=2\n*endclover\n",
        width * 0.75
    );
    t
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_decks_run(
        nx in 1u32..9,
        ny in 1u32..9,
        width in 0.5f64..20.0,
        states in prop::collection::vec(state(), 1..5),
        steps in 1u32..7,
        dtinit in 0.001f64..0.1,
        rayon in any::<bool>(),
    ) {
        let text = deck_text(nx, ny, width, &states, steps, dtinit);
        let dir = std::env::temp_dir().join(format!("cloverleaf-run-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("deck.in");
        std::fs::write(&path, &text).unwrap();
        cloverleaf::deck::load(&path).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let backend = if rayon { "rayon" } else { "seq" };
        let cli = Cli::try_parse_from([
            "cloverleaf",
            path.to_str().unwrap(),
            "--no-progress",
            "--ops-backend",
            backend,
            "--ops-threads",
            "2",
        ])
        .unwrap();
        let mut out = Vec::new();
        match run(&cli, &mut out) {
            Ok(o) => {
                prop_assert!(o.steps >= 1 && o.steps <= steps as u64);
                let last = o.summaries.last().unwrap();
                prop_assert!(last.mass > 0.0);
            }
            Err(AppError::SmallTimestep { .. }) => {}
            Err(e) => panic!("{e}\n{text}"),
        }
    }
}
