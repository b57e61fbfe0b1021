//! Loader throughput against rayon + crossbeam-channel, and the seed's sleep matrix.
//!
//! Run: `cargo bench -p foldex-benches --bench loader`.
//!
//! - `loader_throughput`: 100 000 observations that cost nothing, through a buffer of 16.
//!   The reference is rayon's `for_each_with` sending into crossbeam-channel's `bounded(16)`,
//!   drained by the calling thread. Ours: unbatched observations, unordered and ordered; after
//!   each, the stats of one more epoch are printed (parcel size, verdict, each thread's share).
//!   Then both again on `AutoEx` (with its stats too), and last, unordered with a single worker thread beside the
//!   consumer.
//! - `loader_reuse`: 100 000 observations of 64 `f32` that cost next to nothing, with
//!   `reuse_buffers(true)` and a buffer of 16: what recycling a buffer per batch costs.
//! - `loader_wake_up`: 2 000 hand-overs of a token between two threads through a condvar,
//!   each a sleep and a wake-up: what the loader saves when a waiting thread polls instead.
//! - `loader_bursty`: an epoch whose slow observations come in bursts, with the default buffer
//!   tuned from the epochs before against the same size held fixed.
//! - `loader_sleep`: the seed's `TimeDataset` (each observation sleeps for `t`), per executor,
//!   with `n` chosen so that an ideal run on 2 workers takes about 50 ms. Efficiency is
//!   `n * t / workers` divided by the median time. `AutoEx` picks its own task count (8 per
//!   core for items that sleep), so its time is compared with the best of the others, not its
//!   efficiency.
#![forbid(unsafe_code)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use foldex::dataset::Dataset;
use foldex::{from_fn, AutoEx, Executor, Loader, SequentialEx, TaskPoolEx, ThreadedEx};
use foldex_benches::rayon_crossbeam_epoch;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

const BUFFER: usize = 16;

fn reference(n: usize, item: impl Fn(usize) -> usize + Sync + Send) -> usize {
    rayon_crossbeam_epoch(n, BUFFER, item)
}

/// A group of epochs that take milliseconds: 1 s of warm-up, 3 s of 20 samples.
fn steady_group<'c>(
    c: &'c mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'c, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20);
    group
}

fn throughput(c: &mut Criterion) {
    const N: usize = 100_000;
    let mut group = steady_group(c, "loader_throughput");
    group.bench_function("rayon+crossbeam", |b| b.iter(|| reference(N, |i| i)));
    // `ThreadedEx` with basesize 1 (a batch per piece), then AutoEx.
    let executors: [(&str, Arc<dyn Executor>); 2] = [
        ("", Arc::new(ThreadedEx::new().basesize(1))),
        (", AutoEx", Arc::new(AutoEx::new())),
    ];
    for (suffix, executor) in executors {
        for ordered in [false, true] {
            let loader = Loader::new(from_fn(N, |i| i), Arc::clone(&executor))
                .buffer(BUFFER)
                .ordered(ordered)
                .unbatched();
            let order = if ordered { "ordered" } else { "unordered" };
            let name = format!("loader {order}{suffix}");
            group.bench_function(&name, |b| b.iter(|| drain(loader.iter())));
            // Where one more epoch's time went: the parcel size, the verdict, and each
            // producing thread's share of the observations.
            let mut epoch = loader.iter();
            drain(epoch.by_ref());
            let stats = epoch.stats();
            let shares: Vec<String> = stats
                .workers
                .iter()
                .map(|w| format!("{} {:.1}%", w.thread, 100.0 * w.items as f64 / N as f64))
                .collect();
            eprintln!(
                "{name}: parcels of {}; {stats}; buffer full in {:.1}% of samples; \
                 observations by thread: {}",
                stats.parcel,
                100.0 * stats.full,
                shares.join(", ")
            );
        }
    }
    // One worker and the consumer, a thread per core: the pair hands every parcel over, so
    // this is where waiting threads that sleep too early cost the most.
    let one_worker = Loader::new(from_fn(N, |i| i), ThreadedEx::new().threads(1).basesize(1))
        .buffer(BUFFER)
        .ordered(false)
        .unbatched();
    group.bench_function("loader unordered, 1 worker", |b| {
        b.iter(|| drain(one_worker.iter()))
    });
    group.finish();
}

/// An epoch of `usize` observations, summed so that none is optimised away.
fn drain(epoch: impl Iterator<Item = usize>) -> usize {
    epoch.fold(0usize, |acc, x| acc.wrapping_add(black_box(x)))
}

/// Rows of 64 floats, filled in place when a buffer is handed back.
struct Rows;

impl Dataset for Rows {
    type Item = Vec<f32>;
    fn len(&self) -> usize {
        100_000
    }
    fn get(&self, i: usize) -> Vec<f32> {
        vec![i as f32; 64]
    }
    fn get_into(&self, i: usize, row: &mut Vec<f32>) {
        row.clear();
        row.resize(64, i as f32);
    }
}

fn reuse(c: &mut Criterion) {
    let mut group = steady_group(c, "loader_reuse");
    let loader = Loader::new(Rows, ThreadedEx::new().basesize(1))
        .buffer(BUFFER)
        .reuse_buffers(true);
    group.bench_function("ThreadedEx, batch 1", |b| {
        b.iter(|| {
            loader
                .iter()
                .fold(0.0f32, |acc, batch| acc + black_box(batch[0][0]))
        })
    });
    group.finish();
}

fn sleep_matrix(c: &mut Criterion) {
    let mut group = c.benchmark_group("loader_sleep");
    group
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10);
    let executors: Vec<(&str, Arc<dyn Executor>)> = vec![
        (
            "ThreadedEx",
            Arc::new(ThreadedEx::new().threads(2).basesize(1)),
        ),
        (
            "TaskPoolEx",
            Arc::new(TaskPoolEx::new().ntasks(2).basesize(1)),
        ),
        (
            "TaskPoolEx background",
            Arc::new(TaskPoolEx::new().ntasks(2).basesize(1).background(true)),
        ),
        ("SequentialEx", Arc::new(SequentialEx)),
        ("AutoEx", Arc::new(AutoEx::new())),
    ];
    // (item time, n): n * t / 2 workers is about 50 ms.
    let cells = [
        (Duration::from_millis(10), 10usize),
        (Duration::from_millis(1), 100),
        (Duration::from_micros(100), 1_000),
        (Duration::from_micros(10), 10_000),
    ];
    for (t, n) in cells {
        let cell = format!("t={t:?} n={n}");
        for (name, executor) in &executors {
            let loader = Loader::new(
                from_fn(n, move |i| {
                    std::thread::sleep(t);
                    i
                }),
                Arc::clone(executor),
            )
            .unbatched();
            group.bench_with_input(BenchmarkId::new(*name, &cell), &loader, |b, loader| {
                b.iter(|| loader.iter().count())
            });
        }
        group.bench_with_input(BenchmarkId::new("rayon+crossbeam", &cell), &n, |b, &n| {
            b.iter(|| {
                reference(n, |i| {
                    std::thread::sleep(t);
                    i
                })
            })
        });
    }
    group.finish();
}

/// What a sleep and the wake-up that ends it cost on this machine: two threads hand a token back
/// and forth through a mutex and a condvar, each sleeping until the other hands it over. The
/// loader's waiting threads poll for about this long before they sleep (`POLL_FOR`).
fn wake_up(c: &mut Criterion) {
    use std::sync::{Condvar, Mutex};
    let mut group = c.benchmark_group("loader_wake_up");
    group
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    const ROUNDS: u64 = 1_000;
    group.bench_function("condvar hand-over x2000", |b| {
        b.iter(|| {
            // The token's value says whose turn it is: even for this thread, odd for the other.
            let token = (Mutex::new(0u64), Condvar::new());
            std::thread::scope(|s| {
                s.spawn(|| {
                    let (value, turn) = &token;
                    let mut value = value.lock().unwrap();
                    while *value < 2 * ROUNDS {
                        while *value % 2 == 0 {
                            value = turn.wait(value).unwrap();
                        }
                        *value += 1;
                        turn.notify_one();
                    }
                });
                let (value, turn) = &token;
                let mut value = value.lock().unwrap();
                for _ in 0..ROUNDS {
                    *value += 1;
                    turn.notify_one();
                    while *value % 2 == 1 {
                        value = turn.wait(value).unwrap();
                    }
                }
            });
        })
    });
    group.finish();
}

/// Every 20th observation sleeps 4 ms, the rest are free, and the consumer spends 100 µs per
/// observation: a bursty epoch. The loader's default buffer (4 on 2 workers) grows over the
/// warm-up epochs; against it, the same default held fixed with `.buffer(4)`.
fn bursty(c: &mut Criterion) {
    let mut group = steady_group(c, "loader_bursty");
    let data = || {
        from_fn(400, |i| {
            if i % 20 == 0 {
                std::thread::sleep(Duration::from_millis(4));
            }
            i
        })
    };
    let executor = || ThreadedEx::new().threads(2).basesize(1);
    let consume = |loader: &Loader<_, _>| {
        loader.iter().fold(0usize, |acc, x| {
            std::thread::sleep(Duration::from_micros(100));
            acc.wrapping_add(black_box(x))
        })
    };
    let fixed = Loader::new(data(), executor()).buffer(4).unbatched();
    group.bench_function("buffer 4, fixed", |b| b.iter(|| consume(&fixed)));
    let tuned = Loader::new(data(), executor()).unbatched();
    group.bench_function("default buffer, tuned", |b| b.iter(|| consume(&tuned)));
    let mut epoch = tuned.iter();
    epoch.by_ref().for_each(drop);
    eprintln!("default buffer, tuned: {}", epoch.stats());
    group.finish();
}

criterion_group!(benches, throughput, reuse, sleep_matrix, wake_up, bursty);
criterion_main!(benches);
