//! TaskPoolEx on the seed's `TimeDataset` matrix (item `i` sleeps `t`: I/O-bound), and on the
//! CPU-bound version (item `i` spins `t`) against ThreadedEx and rayon, in the same run.
//!
//! `cargo bench -p foldex-benches --bench taskpool`
//!
//! Groups (compare the medians within a group):
//! - `taskpool_sleep/n{n}_t{t}`: `for_each` over `n` items that each sleep `t`, on
//!   `TaskPoolEx::new().ntasks(k).basesize(1)` for k = 2, 8, 32, and `SequentialEx` over a
//!   prefix of the same items (`seq_{m}_items`) for the time one item really takes
//!   (`t_measured`, which includes the OS's timer slack); and, as the reference, `ntasks`
//!   scoped std threads taking indices from one atomic counter (`std_scope`). The seed's n = 100, t = 100 ms is
//!   scaled to t = 10 ms to fit criterion's ten samples.
//! - `taskpool_spin/n{n}_t{t}`: the same with items that spin `t` on the CPU, on TaskPoolEx
//!   and ThreadedEx with one thread per core and on rayon's pool of that size.
//!
//! After criterion's own report, the bench prints a table with the medians of its own timings
//! (criterion's iterations, warm-up included), the efficiency `ideal / actual` with
//! `ideal = n × t_measured / ntasks` for the sleep matrix, and the ratios to rayon for the
//! spin group.
use criterion::{BenchmarkId, Criterion, SamplingMode};
use foldex::prelude::*;
use foldex_benches::spin_for;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Every timed iteration, by group and id, in seconds.
static TIMES: Mutex<BTreeMap<(String, String), Vec<f64>>> = Mutex::new(BTreeMap::new());

fn record(group: &str, id: &str, took: Duration) {
    TIMES
        .lock()
        .unwrap()
        .entry((group.to_owned(), id.to_owned()))
        .or_default()
        .push(took.as_secs_f64());
}

fn median(group: &str, id: &str) -> Option<f64> {
    let times = TIMES.lock().unwrap();
    let mut v = times.get(&(group.to_owned(), id.to_owned()))?.clone();
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

/// Times `iters` runs of `run`, recording each one for the closing table.
fn timed(group: &str, id: &str, iters: u64, mut run: impl FnMut()) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let start = Instant::now();
        run();
        let took = start.elapsed();
        record(group, id, took);
        total += took;
    }
    total
}

const NTASKS: [usize; 3] = [2, 8, 32];

/// (n, t, how many items the sequential run times to measure t).
const SLEEP_CASES: [(usize, Duration, usize); 4] = [
    (100, Duration::from_millis(10), 20),
    (10_000, Duration::from_millis(1), 200),
    (10_000, Duration::from_micros(100), 1_000),
    (10_000, Duration::from_micros(10), 2_000),
];

fn sleep_group(n: usize, t: Duration) -> String {
    format!("taskpool_sleep/n{n}_t{t:?}")
}

/// The reference for the sleep matrix: `ntasks` scoped threads, started per run, taking
/// indices from one atomic counter. The least a dynamic schedule can do.
fn counter_threads(ntasks: usize, n: usize, t: Duration) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..ntasks {
            s.spawn(|| {
                while next.fetch_add(1, Ordering::Relaxed) < n {
                    std::thread::sleep(t);
                }
            });
        }
    });
}

fn sleep_matrix(c: &mut Criterion) {
    let pools: Vec<TaskPoolEx> = NTASKS
        .iter()
        .map(|&k| TaskPoolEx::new().ntasks(k).basesize(1))
        .collect();
    for (n, t, seq_items) in SLEEP_CASES {
        let name = sleep_group(n, t);
        let mut g = c.benchmark_group(&name);
        g.sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        let seq_id = format!("seq_{seq_items}_items");
        g.bench_function(&seq_id, |b| {
            b.iter_custom(|iters| {
                timed(&name, &seq_id, iters, || {
                    SequentialEx.for_each(0..seq_items, |_| std::thread::sleep(t))
                })
            })
        });
        for k in NTASKS {
            let id = format!("std_scope_ntasks={k}");
            g.bench_function(BenchmarkId::new("std_scope", k), |b| {
                b.iter_custom(|iters| timed(&name, &id, iters, || counter_threads(k, n, t)))
            });
        }
        for (k, pool) in NTASKS.iter().zip(&pools) {
            let id = format!("ntasks={k}");
            g.bench_function(BenchmarkId::new("TaskPoolEx", k), |b| {
                b.iter_custom(|iters| {
                    timed(&name, &id, iters, || {
                        pool.for_each(0..n, |_| std::thread::sleep(t))
                    })
                })
            });
        }
        g.finish();
    }
}

/// (n, t): about 10 ms to 200 ms of CPU in all.
const SPIN_CASES: [(usize, Duration); 3] = [
    (10_000, Duration::from_micros(1)),
    (10_000, Duration::from_micros(10)),
    (2_000, Duration::from_micros(100)),
];

fn spin_group(n: usize, t: Duration) -> String {
    format!("taskpool_spin/n{n}_t{t:?}")
}

fn spin_matrix(c: &mut Criterion) {
    let threads = foldex::protocol::available_parallelism();
    let taskpool = TaskPoolEx::new().ntasks(threads);
    let threaded = ThreadedEx::new().threads(threads);
    let rayon = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool");
    for (n, t) in SPIN_CASES {
        let name = spin_group(n, t);
        let nanos = t.as_nanos() as u64;
        let mut g = c.benchmark_group(&name);
        g.sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        g.bench_function("rayon", |b| {
            b.iter_custom(|iters| {
                timed(&name, "rayon", iters, || {
                    rayon.install(|| (0..n).into_par_iter().for_each(|_| spin_for(nanos)))
                })
            })
        });
        g.bench_function("ThreadedEx", |b| {
            b.iter_custom(|iters| {
                timed(&name, "ThreadedEx", iters, || {
                    threaded.for_each(0..n, |_| spin_for(nanos))
                })
            })
        });
        for (id, ex) in [
            ("TaskPoolEx", taskpool.clone()),
            ("TaskPoolEx_basesize1", taskpool.clone().basesize(1)),
            ("TaskPoolEx_background", taskpool.clone().background(true)),
        ] {
            g.bench_function(id, |b| {
                b.iter_custom(|iters| {
                    timed(&name, id, iters, || ex.for_each(0..n, |_| spin_for(nanos)))
                })
            });
        }
        g.finish();
    }
}

fn report() {
    println!("\n## sleep matrix: efficiency = n x t_measured / ntasks / median\n");
    println!("| n | t | t_measured | ntasks | TaskPoolEx median | ideal | efficiency | std_scope median | efficiency of std_scope |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (n, t, seq_items) in SLEEP_CASES {
        let name = sleep_group(n, t);
        let Some(seq) = median(&name, &format!("seq_{seq_items}_items")) else {
            continue;
        };
        let t_measured = seq / seq_items as f64;
        for k in NTASKS {
            let Some(actual) = median(&name, &format!("ntasks={k}")) else {
                continue;
            };
            let ideal = n as f64 * t_measured / k as f64;
            let reference = median(&name, &format!("std_scope_ntasks={k}")).unwrap_or(f64::NAN);
            println!(
                "| {n} | {t:?} | {:.1} µs | {k} | {:.1} ms | {:.1} ms | {:.3} | {:.1} ms | {:.3} |",
                t_measured * 1e6,
                actual * 1e3,
                ideal * 1e3,
                ideal / actual,
                reference * 1e3,
                ideal / reference
            );
        }
    }
    println!(
        "\n## spin (CPU-bound): median, and rayon's median / this one (>1: faster than rayon)\n"
    );
    println!("| n | t | executor | median | rayon / this |");
    println!("|---|---|---|---|---|");
    for (n, t) in SPIN_CASES {
        let name = spin_group(n, t);
        let Some(rayon) = median(&name, "rayon") else {
            continue;
        };
        for id in [
            "rayon",
            "ThreadedEx",
            "TaskPoolEx",
            "TaskPoolEx_basesize1",
            "TaskPoolEx_background",
        ] {
            if let Some(m) = median(&name, id) {
                println!(
                    "| {n} | {t:?} | {id} | {:.2} ms | {:.3} |",
                    m * 1e3,
                    rayon / m
                );
            }
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    sleep_matrix(&mut c);
    spin_matrix(&mut c);
    c.final_summary();
    report();
}
