//! Snapshots decoded back from their PNG files: every point of the plane drawn has the colour
//! its value maps to (so orientation, plane choice, component and colour scale are right),
//! non-finite values are grey, and bad requests are errors naming the dataset or the file.

use std::path::Path;

use ops_backends::prelude::*;
use ops_plot::{candidates_png, colour_of, snapshot_png, Candidate, Picture, Snapshot};

/// The decoded image: width, height and RGB bytes.
fn decode(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb, "an RGB image");
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// Checks every point `(i, j)` of the picture against `value(i, j)`.
fn check(path: &Path, pic: &Picture, value: impl Fn(usize, usize) -> f64) {
    let (w, h, rgb) = decode(path);
    assert_eq!((w, h), (pic.width, pic.height));
    for j in 0..pic.points[1] {
        for i in 0..pic.points[0] {
            let (x, y) = pic.pixel_of(i, j);
            let at = 3 * (y as usize * w as usize + x as usize);
            let c = colour_of(value(i, j), pic.min, pic.max);
            assert_eq!(
                &rgb[at..at + 3],
                &[c.0, c.1, c.2],
                "point ({i}, {j}) drawn at pixel ({x}, {y})"
            );
        }
    }
}

fn seq() -> Ops {
    ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap()
}

#[test]
fn a_2d_field_is_drawn_point_by_point_with_the_first_row_at_the_bottom() {
    let dir = tempfile::tempdir().unwrap();
    let mut ops = seq();
    let g = ops.block("g", 2).unwrap();
    let value = |i: usize, j: usize| {
        if (i, j) == (3, 2) {
            f64::NAN
        } else {
            i as f64 + 10.0 * j as f64 - 7.5
        }
    };
    let init: Vec<f64> = (0..5)
        .flat_map(|j| (0..8).map(move |i| (i, j)))
        .map(|(i, j)| value(i, j))
        .collect();
    let u = ops
        .dat_with(
            &g,
            "temperature",
            DatSpec::new([8, 5]).halo(Halo::uniform(1)).init(&init),
        )
        .unwrap();
    let path = dir.path().join("t.png");
    let pic = snapshot_png(&mut ops, &u, &path, &Snapshot::new().size(200)).unwrap();
    assert_eq!(pic.points, [8, 5]);
    assert_eq!(
        (pic.min, pic.max),
        (-7.5, 39.5),
        "the NaN is left out of the scale"
    );
    check(&path, &pic, value);
    assert_eq!(
        colour_of(f64::NAN, 0.0, 1.0),
        plotters::style::RGBColor(128, 128, 128)
    );
}

#[test]
fn a_plane_of_a_3d_dataset_and_one_component_of_several() {
    let dir = tempfile::tempdir().unwrap();
    let mut ops = seq();
    let g = ops.block("g", 3).unwrap();
    let (nx, ny, nz) = (4usize, 6usize, 5usize);
    let mut init = Vec::new();
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                init.push((100 * x + 10 * y + z) as f32);
                init.push(-((100 * x + 10 * y + z) as f32));
            }
        }
    }
    let v = ops
        .dat_with(
            &g,
            "v",
            DatSpec::<f32, 3>::new([nx, ny, nz])
                .components(2)
                .init(&init),
        )
        .unwrap();
    // The plane x = 2: y across, z up; component 1.
    let path = dir.path().join("v.png");
    let how = Snapshot::new().slice(0, 2).component(1).title("step 3");
    let pic = snapshot_png(&mut ops, &v, &path, &how).unwrap();
    assert_eq!(pic.points, [ny, nz]);
    check(&path, &pic, |i, j| -((200 + 10 * i + j) as f64));
    // The default plane of 3-D data: the middle one normal to z (x across, y up).
    let path = dir.path().join("mid.png");
    let pic = snapshot_png(&mut ops, &v, &path, &Snapshot::new()).unwrap();
    assert_eq!(pic.points, [nx, ny]);
    check(&path, &pic, |i, j| (100 * i + 10 * j + 2) as f64);
}

#[test]
fn bad_requests_name_the_dataset_or_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut ops = seq();
    let line = ops.block("line", 1).unwrap();
    let a = ops
        .dat::<f64, 1>(&line, "profile", [8], Halo::none())
        .unwrap();
    let cube = ops.block("cube", 3).unwrap();
    let c = ops
        .dat::<i32, 3>(&cube, "cells", [3, 3, 3], Halo::none())
        .unwrap();
    let out = dir.path().join("x.png");
    let err = |r: Result<Picture, ops_plot::PlotError>| r.unwrap_err().to_string();
    let e = err(snapshot_png(&mut ops, &a, &out, &Snapshot::new()));
    assert!(e.contains("`profile`") && e.contains("1-D"), "{e}");
    let e = err(snapshot_png(
        &mut ops,
        &c,
        &out,
        &Snapshot::new().slice(1, 3),
    ));
    assert!(
        e.contains("`cells`") && e.contains("y = 3 is outside the interior (0 to 2)"),
        "{e}"
    );
    let e = err(snapshot_png(
        &mut ops,
        &c,
        &out,
        &Snapshot::new().component(1),
    ));
    assert!(e.contains("`cells`") && e.contains("component 1"), "{e}");
    let nowhere = dir.path().join("no-such-dir").join("x.png");
    let e = err(snapshot_png(&mut ops, &c, &nowhere, &Snapshot::new()));
    assert!(e.contains("no-such-dir"), "{e}");
}

#[test]
fn the_candidate_chart_is_a_png_with_the_chosen_bar_in_orange() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..12)
        .map(|k| format!("loop_{k}@src/main.rs:{k}:5"))
        .collect();
    let cands: Vec<Candidate<'_>> = names
        .iter()
        .enumerate()
        .map(|(k, n)| Candidate {
            location: n,
            bytes_min: 1_000_000 + 50_000 * k as u64,
            bytes_max: 1_200_000 + 90_000 * (k as u64 % 5),
            chosen: k == 5,
        })
        .collect();
    let path = dir.path().join("cands.png");
    candidates_png(&cands, "checkpoint candidates", &path).unwrap();
    let (w, h, rgb) = decode(&path);
    assert_eq!((w, h), (960, 480));
    let orange = rgb.chunks(3).filter(|p| p == &[230, 120, 20]).count();
    assert!(
        orange > 100,
        "the chosen bar is drawn ({orange} orange pixels)"
    );
}
