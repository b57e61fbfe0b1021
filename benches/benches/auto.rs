//! AutoEx against the hand-picked executors and rayon, in the same run.
//!
//! `cargo bench -p foldex-benches --bench auto`
//!
//! Groups (compare the medians within a group):
//! - `auto/small_fold`: a fold of 8 trivial items, latency, defaults everywhere;
//! - `auto/fold_16_u64`, `auto/fold_1000_u64`: one fold of 16 (1000) `u64`s, `ex.sum(&v)` and
//!   `ex.fold(&v, || 0, |a, &x| a + x, |a, b| a + b)`, on `AutoEx` (a remembered inline fold)
//!   and `SequentialEx`, against the loop `v.iter().sum()`; medians of alternating rounds:
//!   `cargo run --release -p foldex-benches --example small_folds`;
//! - `auto/sum_1e7_u64`: sum of a 10^7-element `u64` slice;
//! - `auto/sleep_1ms_x100`: 100 items that each sleep 1 ms (items that wait), against
//!   `TaskPoolEx` with `8 × cores` tasks and basesize 1 (the hand-picked choice for waiting
//!   items), `ThreadedEx` basesize 1 and rayon;
//! - `auto/spin_20us_x2000`: 2000 items that each compute for 20 µs, against `ThreadedEx` and
//!   rayon with their defaults.
use criterion::{criterion_group, criterion_main, Criterion};
use foldex::prelude::*;
use foldex_benches::spin_for;
use rayon::prelude::*;
use std::hint::black_box;
use std::time::Duration;

fn cores() -> usize {
    foldex::protocol::available_parallelism()
}

fn small_fold(c: &mut Criterion) {
    let mut g = c.benchmark_group("auto/small_fold");
    let auto = AutoEx::new();
    g.bench_function("rayon", |b| {
        b.iter(|| (0..black_box(8usize)).into_par_iter().sum::<usize>())
    });
    g.bench_function("AutoEx", |b| b.iter(|| auto.sum::<usize>(0..black_box(8))));
    g.finish();
}

fn small_u64_folds(c: &mut Criterion) {
    let (auto, add) = (AutoEx::new(), |a: u64, b: u64| a + b);
    for len in [16u64, 1000] {
        let v: Vec<u64> = (0..len).collect();
        let mut g = c.benchmark_group(format!("auto/fold_{len}_u64"));
        g.bench_function("loop", |b| b.iter(|| black_box(&v).iter().sum::<u64>()));
        g.bench_function("SequentialEx_sum", |b| {
            b.iter(|| SequentialEx.sum::<u64>(black_box(&v)))
        });
        g.bench_function("SequentialEx_fold", |b| {
            b.iter(|| SequentialEx.fold(black_box(&v), || 0, |a, &x| a + x, add))
        });
        g.bench_function("AutoEx_sum", |b| b.iter(|| auto.sum::<u64>(black_box(&v))));
        g.bench_function("AutoEx_fold", |b| {
            b.iter(|| auto.fold(black_box(&v), || 0, |a, &x| a + x, add))
        });
        g.finish();
    }
}

fn sum(c: &mut Criterion) {
    let data: Vec<u64> = (0..10_000_000u64).collect();
    let mut g = c.benchmark_group("auto/sum_1e7_u64");
    let (auto, threaded) = (AutoEx::new(), ThreadedEx::new());
    g.bench_function("rayon", |b| b.iter(|| data.par_iter().sum::<u64>()));
    g.bench_function("ThreadedEx", |b| b.iter(|| threaded.sum::<u64>(&data)));
    g.bench_function("AutoEx", |b| b.iter(|| auto.sum::<u64>(&data)));
    g.finish();
}

fn sleep(c: &mut Criterion) {
    let item = |i: usize| {
        std::thread::sleep(Duration::from_millis(1));
        i
    };
    let mut g = c.benchmark_group("auto/sleep_1ms_x100");
    g.sample_size(10);
    let auto = AutoEx::new();
    let pool = TaskPoolEx::new().ntasks(8 * cores()).basesize(1);
    let threaded = ThreadedEx::new().basesize(1);
    let add = |a, b| a + b;
    g.bench_function("rayon", |b| {
        b.iter(|| {
            (0..100usize)
                .into_par_iter()
                .with_max_len(1)
                .map(item)
                .sum::<usize>()
        })
    });
    g.bench_function("ThreadedEx_basesize_1", |b| {
        b.iter(|| threaded.map_reduce(0..100usize, item, || 0, add))
    });
    g.bench_function("TaskPoolEx_8_per_core", |b| {
        b.iter(|| pool.map_reduce(0..100usize, item, || 0, add))
    });
    g.bench_function("AutoEx", |b| {
        b.iter(|| auto.map_reduce(0..100usize, item, || 0, add))
    });
    g.finish();
}

fn spin(c: &mut Criterion) {
    let item = |i: usize| {
        spin_for(20_000);
        i
    };
    let mut g = c.benchmark_group("auto/spin_20us_x2000");
    g.sample_size(10);
    let (auto, threaded) = (AutoEx::new(), ThreadedEx::new());
    let add = |a, b| a + b;
    g.bench_function("rayon", |b| {
        b.iter(|| (0..2000usize).into_par_iter().map(item).sum::<usize>())
    });
    g.bench_function("ThreadedEx", |b| {
        b.iter(|| threaded.map_reduce(0..2000usize, item, || 0, add))
    });
    g.bench_function("AutoEx", |b| {
        b.iter(|| auto.map_reduce(0..2000usize, item, || 0, add))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = foldex_benches::fold_criterion();
    targets = small_fold, small_u64_folds, sum, sleep, spin
}
criterion_main!(benches);
