//! ThreadedEx against rayon, with the same number of threads, in the same run.
//!
//! `cargo bench -p foldex-benches --bench threaded`
//!
//! Groups (compare the medians within a group):
//! - `threaded/sum_1e7_u64`: sum of a 10^7-element `u64` slice vs `par_iter().sum()`;
//! - `threaded/uneven`: 2000 items, item `i` spinning `i × 100 ns` (0.2 s of CPU in all), vs
//!   `into_par_iter()`; also ThreadedEx with fixed leaves around the automatic one;
//! - `threaded/items_100ns`: 10^6 items of about 100 ns, basesize 1 vs rayon `with_max_len(1)`,
//!   and basesize 16, 256, auto and the sequential time, for the per-item overhead;
//! - `threaded/small_fold`: a fold of `4 × threads` trivial items, latency;
//! - `threaded/fork_cost`: 10^6 trivial items, basesize 1 vs rayon `with_max_len(1)`, on pools
//!   of one thread: the cost of a fork (per item) without stealing, and steadier than the
//!   two-thread groups on a shared machine;
//! - `threaded/pool_start_{2,16}`: making a pool of 2 and 16 threads (`Pool::new`, whose
//!   workers start one at a time) vs rayon's `ThreadPoolBuilder::build`; the drop is not timed
//!   (rayon's drop returns before its threads end).
use criterion::{criterion_group, criterion_main, Criterion};
use foldex::prelude::*;
use foldex_benches::spin_for;
use rayon::prelude::*;
use std::hint::black_box;

fn threads() -> usize {
    foldex::protocol::available_parallelism()
}

fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool")
}

fn sum(c: &mut Criterion) {
    let n = threads();
    let (ex, pool) = (ThreadedEx::new().threads(n), rayon_pool(n));
    let data: Vec<u64> = (0..10_000_000u64).collect();
    let want: u64 = data.iter().sum();
    let mut g = c.benchmark_group("threaded/sum_1e7_u64");
    g.bench_function("rayon", |b| {
        b.iter(|| {
            assert_eq!(
                pool.install(|| black_box(&data).par_iter().sum::<u64>()),
                want
            )
        })
    });
    g.bench_function("ThreadedEx", |b| {
        b.iter(|| assert_eq!(ex.sum::<u64>(black_box(&data)), want))
    });
    g.finish();
}

/// Item `i` costs about `i × 100 ns`.
fn uneven_item(i: usize) -> u64 {
    spin_for(i as u64 * 100);
    i as u64
}

fn uneven(c: &mut Criterion) {
    const LEN: usize = 2000;
    let n = threads();
    let (ex, pool) = (ThreadedEx::new().threads(n), rayon_pool(n));
    let want = (LEN * (LEN - 1) / 2) as u64;
    let mut g = c.benchmark_group("threaded/uneven");
    g.bench_function("rayon", |b| {
        b.iter(|| {
            let got: u64 = pool.install(|| (0..LEN).into_par_iter().map(uneven_item).sum());
            assert_eq!(got, want)
        })
    });
    g.bench_function("ThreadedEx", |b| {
        b.iter(|| assert_eq!(ex.map_reduce(0..LEN, uneven_item, || 0, |a, b| a + b), want))
    });
    // Leaves of len / (k × threads): how many pieces per worker the default should aim for.
    for per_worker in [2, 8, 16] {
        let ex = ex.clone().basesize(LEN / (per_worker * n));
        g.bench_function(format!("ThreadedEx_{per_worker}_leaves_per_worker"), |b| {
            b.iter(|| assert_eq!(ex.map_reduce(0..LEN, uneven_item, || 0, |a, b| a + b), want))
        });
    }
    g.finish();
}

fn items_100ns(c: &mut Criterion) {
    const LEN: usize = 1_000_000;
    let n = threads();
    let (ex, pool) = (ThreadedEx::new().threads(n), rayon_pool(n));
    let item = |i: usize| {
        spin_for(100);
        i as u64
    };
    let want = (LEN * (LEN - 1) / 2) as u64;
    let mut g = c.benchmark_group("threaded/items_100ns");
    g.sample_size(10);
    g.bench_function("sequential", |b| {
        b.iter(|| {
            assert_eq!(
                SequentialEx.map_reduce(0..LEN, item, || 0, |a, b| a + b),
                want
            )
        })
    });
    g.bench_function("rayon_max_len_1", |b| {
        b.iter(|| {
            let got: u64 =
                pool.install(|| (0..LEN).into_par_iter().with_max_len(1).map(item).sum());
            assert_eq!(got, want)
        })
    });
    for basesize in [Some(1), Some(16), Some(256), None] {
        let (ex, name) = match basesize {
            Some(b) => (ex.clone().basesize(b), format!("ThreadedEx_basesize_{b}")),
            None => (ex.clone(), "ThreadedEx_basesize_auto".to_owned()),
        };
        g.bench_function(name, |b| {
            b.iter(|| assert_eq!(ex.map_reduce(0..LEN, item, || 0, |a, b| a + b), want))
        });
    }
    g.finish();
}

fn small_fold(c: &mut Criterion) {
    let n = threads();
    let len = 4 * n;
    let (ex, pool) = (ThreadedEx::new().threads(n), rayon_pool(n));
    let want = len * (len - 1) / 2;
    let mut g = c.benchmark_group("threaded/small_fold");
    g.bench_function("rayon", |b| {
        b.iter(|| {
            let got: usize = pool.install(|| (0..black_box(len)).into_par_iter().sum());
            assert_eq!(got, want)
        })
    });
    // Outside a pool, as the ThreadedEx call is: rayon's `install` from outside pays the same
    // injection and wake-up.
    g.bench_function("ThreadedEx", |b| {
        b.iter(|| assert_eq!(ex.sum::<usize>(0..black_box(len)), want))
    });
    g.finish();
}

fn fork_cost(c: &mut Criterion) {
    const LEN: usize = 1_000_000;
    let (ex, pool) = (ThreadedEx::new().threads(1).basesize(1), rayon_pool(1));
    let want = (LEN * (LEN - 1) / 2) as u64;
    let mut g = c.benchmark_group("threaded/fork_cost");
    g.sample_size(10);
    g.bench_function("rayon_max_len_1", |b| {
        b.iter(|| {
            let got: u64 = pool.install(|| {
                (0..black_box(LEN))
                    .into_par_iter()
                    .with_max_len(1)
                    .map(|i| i as u64)
                    .sum()
            });
            assert_eq!(got, want)
        })
    });
    g.bench_function("ThreadedEx_basesize_1", |b| {
        b.iter(|| {
            let got = ex.map_reduce(0..black_box(LEN), |i| i as u64, || 0, |a, b| a + b);
            assert_eq!(got, want)
        })
    });
    g.finish();
}

fn pool_start(c: &mut Criterion) {
    for threads in [2, 16] {
        let mut g = c.benchmark_group(format!("threaded/pool_start_{threads}"));
        g.bench_function("rayon", |b| {
            b.iter_custom(|iters| timed_starts(iters, || rayon_pool(threads)))
        });
        g.bench_function("ThreadedEx", |b| {
            b.iter_custom(|iters| timed_starts(iters, || Pool::new(threads)))
        });
        g.finish();
    }
}

/// The time `iters` calls of `start` take, each result dropped outside the timing.
fn timed_starts<P>(iters: u64, start: impl Fn() -> P) -> std::time::Duration {
    let mut total = std::time::Duration::ZERO;
    for _ in 0..iters {
        let began = std::time::Instant::now();
        let pool = black_box(start());
        total += began.elapsed();
        drop(pool);
    }
    total
}

criterion_group! {
    name = benches;
    config = foldex_benches::fold_criterion();
    targets = sum, uneven, items_100ns, small_fold, fork_cost, pool_start
}
criterion_main!(benches);
