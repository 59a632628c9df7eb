//! Checkpoints to store in the store tests.
#![allow(dead_code)]

use ops_core::ElemType;
use ops_resilience::store::{
    Checkpoint, CheckpointMeta, LoggedQuery, QueryLog, SavedDat, SavedRegion,
};

/// Application name the tests write.
pub const APP: &str = "testapp";

/// Deterministic bytes: a small xorshift stream seeded by `seed`.
pub fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn points(lo: [i32; 3], hi: [i32; 3]) -> usize {
    (0..3).map(|d| (hi[d] - lo[d]) as usize).product()
}

/// A region of `lo..hi` filled with noise.
pub fn region(seed: u64, lo: [i32; 3], hi: [i32; 3], elem: ElemType, comps: usize) -> SavedRegion {
    SavedRegion {
        lo,
        hi,
        bytes: noise(seed, points(lo, hi) * comps * elem.size()),
    }
}

/// A checkpoint with sequence `seq`: 2-D f64 with 1 and 2 components, 2-D f32, 3-D i32, several
/// regions each (halo strips at negative indices included), one dataset without regions, f64
/// special values (NaN with payload, -0.0, subnormal, infinity), reductions and a fetch in the
/// log, a payload. Its content depends on `seq`.
pub fn checkpoint(seq: u64) -> Checkpoint {
    let s = seq * 1000;
    let mut density = SavedDat {
        name: "clover/density0".into(),
        elem: ElemType::F64,
        components: 1,
        regions: vec![
            region(s + 1, [0, 0, 0], [12, 9, 1], ElemType::F64, 1),
            region(s + 2, [-2, 0, 0], [0, 9, 1], ElemType::F64, 1),
            region(s + 3, [0, -2, 0], [12, 0, 1], ElemType::F64, 1),
        ],
    };
    let specials: [f64; 5] = [
        f64::from_bits(0x7ff8_dead_beef_0001),
        -0.0,
        f64::from_bits(1),
        f64::INFINITY,
        f64::from_bits(0xfff0_0000_0000_0001),
    ];
    for (i, v) in specials.iter().enumerate() {
        density.regions[0].bytes[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
    }
    Checkpoint {
        meta: CheckpointMeta {
            app: APP.into(),
            sequence: seq,
            loop_index: 100 + seq * 37,
            location: "advection@apps/x/src/main.rs:120:9".into(),
            backend: "seq".into(),
            time_unix: 1.7e9 + seq as f64 * 0.25,
            rank: 0,
            ranks: 1,
        },
        queries: QueryLog::of(&[
            LoggedQuery::Reduction {
                name: "dt_min".into(),
                elem: ElemType::F64,
                bytes: (0.01 * seq as f64).to_le_bytes().to_vec(),
            },
            LoggedQuery::Fetch {
                dat: "clover/density0".into(),
                bytes: noise(s + 9, 96),
            },
            LoggedQuery::Reduction {
                name: "cells".into(),
                elem: ElemType::I32,
                bytes: (seq as i32 * 7).to_le_bytes().to_vec(),
            },
            LoggedQuery::Reduction {
                name: "mass".into(),
                elem: ElemType::F32,
                bytes: 1.5f32.to_le_bytes().to_vec(),
            },
            LoggedQuery::Fetch {
                dat: "clover/empty".into(),
                bytes: Vec::new(),
            },
        ]),
        payload: noise(s + 10, 33),
        dats: vec![
            density,
            SavedDat {
                name: "clover/xvel".into(),
                elem: ElemType::F64,
                components: 2,
                regions: vec![
                    region(s + 4, [0, 0, 0], [13, 10, 1], ElemType::F64, 2),
                    region(s + 5, [13, 0, 0], [15, 10, 1], ElemType::F64, 2),
                ],
            },
            SavedDat {
                name: "clover/energy32".into(),
                elem: ElemType::F32,
                components: 1,
                regions: vec![
                    region(s + 6, [0, 0, 0], [7, 5, 1], ElemType::F32, 1),
                    region(s + 7, [0, 5, 0], [7, 6, 1], ElemType::F32, 1),
                ],
            },
            SavedDat {
                name: "cube/flags".into(),
                elem: ElemType::I32,
                components: 1,
                regions: vec![
                    region(s + 8, [0, 0, 0], [4, 5, 6], ElemType::I32, 1),
                    region(s + 11, [4, 0, -1], [6, 5, 6], ElemType::I32, 1),
                    region(s + 12, [0, 0, 0], [0, 5, 6], ElemType::I32, 1),
                ],
            },
            SavedDat {
                name: "clover/unsaved".into(),
                elem: ElemType::F64,
                components: 1,
                regions: Vec::new(),
            },
        ],
    }
}

/// Names of the files in `dir`, sorted.
pub fn files(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}
