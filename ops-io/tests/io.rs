//! Datasets to files and back: round trips of every element type, with components and halos,
//! in 2-D and 3-D; the files as HDF5 itself and `h5dump` read them; the XDMF companions; and
//! the errors, each naming the file and the dataset.

use std::process::Command;

use ops_backends::prelude::*;
use ops_io::{dat_from_hdf5, Dump, Mesh, Series};

fn seq() -> Ops {
    ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap()
}

/// HDF5 opens files without close-on-exec and locks them (`flock`), so a process spawned by
/// one test (h5dump) inherits the file another test has open at that moment and keeps its
/// lock alive after that test closes it; the test's next open of its own file then fails with
/// "unable to lock file". The tests here that open files or spawn processes take this in turn.
static FILES_OR_SPAWN: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    FILES_OR_SPAWN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[test]
fn datasets_go_to_a_file_and_come_back_the_same() {
    let _turn = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let mut ops = seq();
    let g2 = ops.block("plane", 2).unwrap();
    let g3 = ops.block("box", 3).unwrap();
    let a: Vec<f64> = (0..20).map(|k| k as f64 * 0.5 - 3.0).collect();
    let da = ops
        .dat_with(
            &g2,
            "a",
            DatSpec::new([5, 4]).halo(Halo::uniform(2)).init(&a),
        )
        .unwrap();
    let v: Vec<f32> = (0..3 * 24).map(|k| k as f32 * 0.25).collect();
    let dv = ops
        .dat_with(
            &g3,
            "velocity",
            DatSpec::<f32, 3>::new([2, 3, 4]).components(3).init(&v),
        )
        .unwrap();
    let m: Vec<i32> = (0..20).map(|k| 7 - k).collect();
    let dm = ops
        .dat_with(&g2, "material", DatSpec::new([5, 4]).init(&m))
        .unwrap();
    let path = dir.path().join("state.h5");
    let mut dump = Dump::create(&mut ops, &path).unwrap();
    dump.mesh(Mesh::uniform(&[5, 4], &[0.0, 0.0], &[0.2, 0.25]))
        .unwrap();
    dump.write(&mut ops, &da).unwrap();
    dump.write(&mut ops, &dv).unwrap();
    dump.write_as(&mut ops, &dm, "mat").unwrap();
    dump.attr("time", 1.5).unwrap();
    let record = dump.finish().unwrap();
    assert_eq!(record.fields.len(), 3);

    // What HDF5 sees: slowest dimension first, components last.
    let f = hdf5::File::open(&path).unwrap();
    assert_eq!(f.dataset("a").unwrap().shape(), vec![4, 5]);
    assert_eq!(f.dataset("velocity").unwrap().shape(), vec![4, 3, 2, 3]);
    assert_eq!(f.dataset("mat").unwrap().read_raw::<i32>().unwrap(), m);
    assert_eq!(
        f.dataset("mesh/x")
            .unwrap()
            .read_raw::<f64>()
            .unwrap()
            .len(),
        6
    );
    let time: f64 = f.attr("time").unwrap().read_scalar().unwrap();
    assert_eq!(time, 1.5);
    drop(f);

    // Back through the runtime, under other names and halos.
    let a2: Dat<f64> =
        dat_from_hdf5(&mut ops, &g2, "a2", &path, "a", Halo::<2>::uniform(1)).unwrap();
    assert_eq!(ops.fetch_data(&a2).unwrap(), a);
    let v2: Dat<f32> =
        dat_from_hdf5(&mut ops, &g3, "v2", &path, "velocity", Halo::<3>::none()).unwrap();
    assert_eq!(ops.dat_layout(&v2).unwrap().components, 3);
    assert_eq!(ops.fetch_data(&v2).unwrap(), v);
    let m2: Dat<i32> = dat_from_hdf5(&mut ops, &g2, "m2", &path, "mat", Halo::<2>::none()).unwrap();
    assert_eq!(ops.fetch_data(&m2).unwrap(), m);
}

#[test]
fn h5dump_reads_a_dump_and_the_xdmf_names_its_fields() {
    let _turn = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let mut ops = seq();
    let g = ops.block("grid", 2).unwrap();
    let cells = ops
        .dat_with(&g, "density", DatSpec::new([3, 2]).init(&[1.0; 6]))
        .unwrap();
    let nodes = ops
        .dat_with(&g, "xvel", DatSpec::new([4, 3]).init(&[2.0; 12]))
        .unwrap();
    let faces = ops
        .dat_with(&g, "flux", DatSpec::new([4, 2]).init(&[3.0; 8]))
        .unwrap();
    let mut series = Series::new(dir.path().join("run.xmf"));
    for step in [0u64, 10] {
        let path = dir.path().join(format!("run.{step}.h5"));
        let mut dump = Dump::create(&mut ops, &path).unwrap();
        dump.mesh(Mesh::rectilinear(vec![
            vec![0.0, 1.0, 2.0, 4.0],
            vec![0.0, 0.5, 1.0],
        ]))
        .unwrap();
        for d in [&cells, &nodes, &faces] {
            dump.write(&mut ops, d).unwrap();
        }
        let record = dump.finish().unwrap();
        series.push(step, step as f64 * 0.1, &record).unwrap();
    }
    let one = std::fs::read_to_string(dir.path().join("run.10.xmf")).unwrap();
    assert!(
        one.contains("TopologyType=\"2DRectMesh\" Dimensions=\"3 4\""),
        "{one}"
    );
    assert!(one.contains("Name=\"density\" AttributeType=\"Scalar\" Center=\"Cell\""));
    assert!(one.contains("Name=\"xvel\" AttributeType=\"Scalar\" Center=\"Node\""));
    assert!(one.contains("run.10.h5:/xvel"));
    assert!(
        !one.contains("Name=\"flux\""),
        "face data is in the file, not the grid"
    );
    let all = std::fs::read_to_string(dir.path().join("run.xmf")).unwrap();
    assert_eq!(all.matches("<Grid Name=\"step").count(), 2);
    assert!(all.contains("<Time Value=\"1e0\"/>"), "{all}");

    let out = match Command::new("h5dump")
        .arg("-H")
        .arg(dir.path().join("run.0.h5"))
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            ops_testkit::skip(&format!("h5dump: {e}"));
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for want in [
        "DATASET \"density\"",
        "( 2, 3 )",
        "DATASET \"xvel\"",
        "( 3, 4 )",
        "GROUP \"mesh\"",
    ] {
        assert!(text.contains(want), "h5dump shows no {want}:\n{text}");
    }
}

#[test]
fn bad_files_and_arrays_are_errors_naming_the_file_and_the_dataset() {
    let _turn = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let mut ops = seq();
    let g2 = ops.block("plane", 2).unwrap();
    let g3 = ops.block("box", 3).unwrap();
    let d = ops
        .dat_with(&g2, "rho", DatSpec::new([3, 2]).init(&[1.0; 6]))
        .unwrap();
    let path = dir.path().join("f.h5");
    let mut dump = Dump::create(&mut ops, &path).unwrap();
    dump.write(&mut ops, &d).unwrap();
    dump.finish().unwrap();

    let missing = dir.path().join("missing.h5");
    let e = dat_from_hdf5::<f64, 2>(&mut ops, &g2, "x", &missing, "rho", Halo::none())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("missing.h5") && e.contains("opening the file"),
        "{e}"
    );
    let e = dat_from_hdf5::<f64, 2>(&mut ops, &g2, "x", &path, "nope", Halo::none())
        .unwrap_err()
        .to_string();
    assert!(e.contains("f.h5") && e.contains("`nope`"), "{e}");
    let e = dat_from_hdf5::<f64, 3>(&mut ops, &g3, "x", &path, "rho", Halo::none())
        .unwrap_err()
        .to_string();
    // A 2-D array read as 3-D: it would need 3 dimensions (4 with components).
    assert!(
        e.contains("`rho`") && e.contains("a 3-D dataset needs 3"),
        "{e}"
    );
    let e = dat_from_hdf5::<i32, 2>(&mut ops, &g2, "x", &path, "rho", Halo::none())
        .unwrap_err()
        .to_string();
    assert!(e.contains("`rho`") && e.contains("are not i32"), "{e}");
    let nowhere = dir.path().join("no-dir").join("x.h5");
    let e = Dump::create(&mut ops, &nowhere).err().unwrap().to_string();
    assert!(
        e.contains("no-dir") && e.contains("creating the file"),
        "{e}"
    );
}
