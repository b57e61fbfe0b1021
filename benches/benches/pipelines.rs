//! Pipelines on ThreadedEx (the global pool, default settings) against the same chain on rayon's
//! global pool, and on SequentialEx against the same chain on `std::iter`, in the same run.
//!
//! `cargo bench -p foldex-benches --bench pipelines`
//!
//! Groups (ratio = foldex median / reference median within a group):
//! - `pipelines/map_filter_sum_1e7`: `map` + `filter` + `sum` over 10^7 `u64`;
//! - `pipelines/find_first_1e7/{1pct,50pct,none}`: `find_first` with the hit at 1%, at 50%, and
//!   no hit;
//! - `pipelines/min_by_key_1e6`: `min_by_key` over 10^6 structs of 32 bytes;
//! - `pipelines/map_collect_1e7`: `map` + `collect::<Vec<_>>` of 10^7 `u64`;
//! - `pipelines/flat_map_1e5x10`: `flat_map` of 10^5 items into 10 each, summed;
//! - `pipelines/word_count_1e6`: `group_by` with `count` over 10^6 words (10^4 distinct) into a
//!   `HashMap`, against rayon's `fold` + `reduce` into `HashMap`s;
//! - `pipelines/dedup_skip_while_1e6`: `skip_while` + `dedup` + `map` + `sum` over 10^6 `u64` in
//!   runs of 4 (rayon has no ordered `dedup`: `ThreadedEx` is measured against `std`).
//!
//! Each group has `rayon` and `ThreadedEx`, then `std` and `SequentialEx`.
use criterion::{criterion_group, criterion_main, Criterion};
use foldex::prelude::*;
use rayon::prelude::*;
use std::hint::black_box;

const N: u64 = 10_000_000;

fn data() -> Vec<u64> {
    (0..N).collect()
}

fn map_filter_sum(c: &mut Criterion) {
    let data = data();
    let ex = ThreadedEx::new();
    let want: u64 = data.iter().map(|&x| x * 3).filter(|x| x % 5 != 0).sum();
    let mut g = c.benchmark_group("pipelines/map_filter_sum_1e7");
    g.bench_function("rayon", |b| {
        b.iter(|| {
            let got: u64 = black_box(&data)
                .par_iter()
                .map(|&x| x * 3)
                .filter(|x| x % 5 != 0)
                .sum();
            assert_eq!(got, want)
        })
    });
    g.bench_function("ThreadedEx", |b| {
        b.iter(|| {
            let got: u64 = black_box(&data)
                .pipe()
                .map(|&x| x * 3)
                .filter(|x| x % 5 != 0)
                .sum(&ex);
            assert_eq!(got, want)
        })
    });
    g.bench_function("std", |b| {
        b.iter(|| {
            let got: u64 = black_box(&data)
                .iter()
                .map(|&x| x * 3)
                .filter(|x| x % 5 != 0)
                .sum();
            assert_eq!(got, want)
        })
    });
    g.bench_function("SequentialEx", |b| {
        b.iter(|| {
            let got: u64 = black_box(&data)
                .pipe()
                .map(|&x| x * 3)
                .filter(|x| x % 5 != 0)
                .sum(&SequentialEx);
            assert_eq!(got, want)
        })
    });
    g.finish();
}

fn find_first(c: &mut Criterion) {
    let data = data();
    let ex = ThreadedEx::new();
    for (name, target) in [("1pct", N / 100), ("50pct", N / 2), ("none", N)] {
        let want = (target < N).then_some(target);
        let mut g = c.benchmark_group(format!("pipelines/find_first_1e7/{name}"));
        g.bench_function("rayon", |b| {
            b.iter(|| {
                let got = black_box(&data).par_iter().find_first(|&&x| x == target);
                assert_eq!(got.copied(), want)
            })
        });
        g.bench_function("ThreadedEx", |b| {
            b.iter(|| {
                let got = black_box(&data).pipe().find_first(&ex, |&&x| x == target);
                assert_eq!(got.copied(), want)
            })
        });
        g.bench_function("std", |b| {
            b.iter(|| {
                let got = black_box(&data).iter().find(|&&x| x == target);
                assert_eq!(got.copied(), want)
            })
        });
        g.bench_function("SequentialEx", |b| {
            b.iter(|| {
                let got = black_box(&data)
                    .pipe()
                    .find_first(&SequentialEx, |&&x| x == target);
                assert_eq!(got.copied(), want)
            })
        });
        g.finish();
    }
}

/// 32 bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Record {
    key: u64,
    a: u64,
    b: u64,
    c: u64,
}

fn min_by_key(c: &mut Criterion) {
    let records: Vec<Record> = (0..1_000_000u64)
        .map(|i| Record {
            key: i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20,
            a: i,
            b: 0,
            c: 0,
        })
        .collect();
    let ex = ThreadedEx::new();
    let want = records.iter().min_by_key(|r| r.key).copied();
    let mut g = c.benchmark_group("pipelines/min_by_key_1e6");
    g.bench_function("rayon", |b| {
        b.iter(|| {
            let got = black_box(&records).par_iter().min_by_key(|r| r.key);
            assert_eq!(got.copied(), want)
        })
    });
    g.bench_function("ThreadedEx", |b| {
        b.iter(|| {
            let got = black_box(&records).pipe().min_by_key(&ex, |r| r.key);
            assert_eq!(got.copied(), want)
        })
    });
    g.bench_function("std", |b| {
        b.iter(|| {
            let got = black_box(&records).iter().min_by_key(|r| r.key);
            assert_eq!(got.copied(), want)
        })
    });
    g.bench_function("SequentialEx", |b| {
        b.iter(|| {
            let got = black_box(&records)
                .pipe()
                .min_by_key(&SequentialEx, |r| r.key);
            assert_eq!(got.copied(), want)
        })
    });
    g.finish();
}

fn map_collect(c: &mut Criterion) {
    let data = data();
    let ex = ThreadedEx::new();
    let mut g = c.benchmark_group("pipelines/map_collect_1e7");
    g.bench_function("rayon", |b| {
        b.iter(|| {
            let got: Vec<u64> = black_box(&data).par_iter().map(|&x| x ^ 7).collect();
            assert_eq!(got.len(), data.len())
        })
    });
    g.bench_function("ThreadedEx", |b| {
        b.iter(|| {
            let got: Vec<u64> = black_box(&data).pipe().map(|&x| x ^ 7).collect(&ex);
            assert_eq!(got.len(), data.len())
        })
    });
    g.bench_function("std", |b| {
        b.iter(|| {
            let got: Vec<u64> = black_box(&data).iter().map(|&x| x ^ 7).collect();
            assert_eq!(got.len(), data.len())
        })
    });
    g.bench_function("SequentialEx", |b| {
        b.iter(|| {
            let got: Vec<u64> = black_box(&data)
                .pipe()
                .map(|&x| x ^ 7)
                .collect(&SequentialEx);
            assert_eq!(got.len(), data.len())
        })
    });
    g.finish();
}

fn flat_map(c: &mut Criterion) {
    const OUTER: usize = 100_000;
    let ex = ThreadedEx::new();
    let want: usize = (0..OUTER).flat_map(|i| (0..10).map(move |j| i ^ j)).sum();
    let mut g = c.benchmark_group("pipelines/flat_map_1e5x10");
    g.bench_function("rayon", |b| {
        b.iter(|| {
            let got: usize = (0..black_box(OUTER))
                .into_par_iter()
                .flat_map_iter(|i| (0..10).map(move |j| i ^ j))
                .sum();
            assert_eq!(got, want)
        })
    });
    g.bench_function("ThreadedEx", |b| {
        b.iter(|| {
            let got: usize = (0..black_box(OUTER))
                .pipe()
                .flat_map(|i| (0..10).map(move |j| i ^ j))
                .sum(&ex);
            assert_eq!(got, want)
        })
    });
    g.bench_function("std", |b| {
        b.iter(|| {
            let got: usize = (0..black_box(OUTER))
                .flat_map(|i| (0..10).map(move |j| i ^ j))
                .sum();
            assert_eq!(got, want)
        })
    });
    g.bench_function("SequentialEx", |b| {
        b.iter(|| {
            let got: usize = (0..black_box(OUTER))
                .pipe()
                .flat_map(|i| (0..10).map(move |j| i ^ j))
                .sum(&SequentialEx);
            assert_eq!(got, want)
        })
    });
    g.finish();
}

fn word_count(c: &mut Criterion) {
    use std::collections::HashMap;
    let vocabulary: Vec<String> = (0..10_000).map(|i| format!("w{i:x}")).collect();
    let words: Vec<&str> = (0..1_000_000u64)
        .map(|i| {
            vocabulary[(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize % 10_000].as_str()
        })
        .collect();
    let ex = ThreadedEx::new();
    let mut want: HashMap<&str, usize> = HashMap::new();
    for w in &words {
        *want.entry(w).or_default() += 1;
    }
    let mut g = c.benchmark_group("pipelines/word_count_1e6");
    g.bench_function("rayon", |b| {
        b.iter(|| {
            let got = black_box(&words)
                .par_iter()
                .fold(HashMap::new, |mut m: HashMap<&str, usize>, w| {
                    *m.entry(*w).or_default() += 1;
                    m
                })
                .reduce(HashMap::new, |mut a, b| {
                    for (k, n) in b {
                        *a.entry(k).or_default() += n;
                    }
                    a
                });
            assert_eq!(got.len(), want.len())
        })
    });
    g.bench_function("ThreadedEx", |b| {
        b.iter(|| {
            let got =
                black_box(&words)
                    .pipe()
                    .group_by(&ex, |w| **w, foldex::pipeline::group::count());
            assert_eq!(got.len(), want.len())
        })
    });
    g.bench_function("std", |b| {
        b.iter(|| {
            let mut got: HashMap<&str, usize> = HashMap::new();
            for w in black_box(&words) {
                *got.entry(w).or_default() += 1;
            }
            assert_eq!(got.len(), want.len())
        })
    });
    g.bench_function("SequentialEx", |b| {
        b.iter(|| {
            let got = black_box(&words).pipe().group_by(
                &SequentialEx,
                |w| **w,
                foldex::pipeline::group::count(),
            );
            assert_eq!(got.len(), want.len())
        })
    });
    g.finish();
}

/// Stages that hold items at a piece's edge, stacked, with a closure after them.
fn dedup_skip_while(c: &mut Criterion) {
    let data: Vec<u64> = (0..1_000_000u64).map(|i| (i / 4) % 1000).collect();
    let ex = ThreadedEx::new();
    let want: u64 = {
        let mut kept: Vec<u64> = data.iter().copied().skip_while(|x| *x < 10).collect();
        kept.dedup();
        kept.iter().map(|x| x * 3).sum()
    };
    let run = |ex: &dyn Executor| -> u64 {
        black_box(&data)
            .pipe()
            .copied()
            .skip_while(|x| *x < 10)
            .dedup()
            .map(|x| x * 3)
            .sum(ex)
    };
    let mut g = c.benchmark_group("pipelines/dedup_skip_while_1e6");
    g.bench_function("ThreadedEx", |b| b.iter(|| assert_eq!(run(&ex), want)));
    g.bench_function("std", |b| {
        b.iter(|| {
            let mut last = None;
            let got: u64 = black_box(&data)
                .iter()
                .copied()
                .skip_while(|x| *x < 10)
                .filter(|x| last.replace(*x) != Some(*x))
                .map(|x| x * 3)
                .sum();
            assert_eq!(got, want)
        })
    });
    g.bench_function("SequentialEx", |b| {
        b.iter(|| assert_eq!(run(&SequentialEx), want))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = foldex_benches::fold_criterion();
    targets = map_filter_sum, find_first, min_by_key, map_collect, flat_map, word_count,
        dedup_skip_while
}
criterion_main!(benches);
