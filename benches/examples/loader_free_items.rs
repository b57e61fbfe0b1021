//! The loader's cost per observation against the rayon + crossbeam-channel bridge, over a
//! matrix: observations that cost nothing, unbatched, `ThreadedEx` with basesize 1, at several
//! counts and buffers, ordered and unordered.
//!
//! ```text
//! cargo run --release -p foldex-benches --example loader_free_items -- [rounds] [counts] [buffers] [only]
//! ```
//!
//! Defaults: 7 rounds, counts `100000,1000000,2000000`, buffers `16,64,256` (comma-separated
//! lists); `only` is `loader` or `bridge` to run one side alone, for a profiler. For each cell
//! the bridge and the loader take turns, one epoch each per round, in the same process (the
//! loader's first epoch, which times the observations for the parcels of the next, runs once
//! before the rounds and is not counted). Each round gives a ratio, the loader's wall time over
//! the bridge's just before it; a cell prints the median ratio, its range, the median times and
//! the ratio of the median CPU times (every thread of the process, busy waiting included), which
//! on cores that other processes share varies less than the wall time. Below 1.0× the loader is
//! faster. Results: docs/benchmarks.md, "Free items against the bridge".
#![forbid(unsafe_code)]

use foldex::{from_fn, Loader, ThreadedEx};
use foldex_benches::rayon_crossbeam_epoch;
use std::hint::black_box;
use std::time::Instant;

fn list(arg: Option<String>, default: &[usize], name: &str) -> Vec<usize> {
    arg.map_or_else(
        || default.to_vec(),
        |a| {
            a.split(',')
                .map(|x| x.parse().unwrap_or_else(|_| panic!("{name}: numbers")))
                .collect()
        },
    )
}

/// The CPU time this process's living threads have run, from `/proc/self/task/*/schedstat`
/// (nanoseconds on a CPU); `None` where that is not readable. Threads that ended (an epoch's
/// driver), or end while they are read, no longer count, which loses only their short time.
fn cpu_nanos() -> Option<u64> {
    let mut total = 0;
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("schedstat")) else {
            continue; // the thread ended after the listing
        };
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(total)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args
        .next()
        .map_or(7, |a| a.parse().expect("rounds: a number"));
    assert!(rounds >= 1, "rounds: at least 1");
    let counts = list(args.next(), &[100_000, 1_000_000, 2_000_000], "counts");
    let buffers = list(args.next(), &[16, 64, 256], "buffers");
    let only = args.next();
    let (bridge_runs, loader_runs) = match only.as_deref() {
        None => (true, true),
        Some("loader") => (false, true),
        Some("bridge") => (true, false),
        Some(other) => panic!("only: `loader` or `bridge`, not `{other}`"),
    };

    println!(
        "{rounds} rounds per cell; wall and CPU (all threads) in ms, medians; \
         ratio = loader / bridge per round, wall"
    );
    println!(
        "{:>9} {:>6} {:>9}  {:>8} {:>8}  {:>8} {:>8}  {:>7} {:>13}  {:>7}",
        "count", "buffer", "order", "bridge", "loader", "cpu br", "cpu ld", "ratio", "range", "cpu"
    );
    for &n in &counts {
        for &buffer in &buffers {
            for ordered in [false, true] {
                let loader = Loader::new(from_fn(n, |i| i), ThreadedEx::new().basesize(1))
                    .buffer(buffer)
                    .ordered(ordered)
                    .unbatched();
                let drain = || {
                    loader
                        .iter()
                        .fold(0usize, |acc, x: usize| acc.wrapping_add(black_box(x)))
                };
                // The first epoch measures what an observation costs for the ones after it.
                if loader_runs {
                    black_box(drain());
                }
                // Wall and CPU milliseconds of one epoch of `run`, if it runs.
                let measure = |runs: bool, run: &dyn Fn() -> usize| {
                    let (start, cpu) = (Instant::now(), cpu_nanos());
                    if runs {
                        black_box(run());
                    }
                    let cpu = cpu_nanos()
                        .zip(cpu)
                        .map_or(f64::NAN, |(b, a)| b.saturating_sub(a) as f64);
                    (start.elapsed().as_secs_f64() * 1e3, cpu / 1e6)
                };
                let mut seen: [Vec<f64>; 5] = Default::default();
                for _ in 0..rounds {
                    let (b, cpu_b) =
                        measure(bridge_runs, &|| rayon_crossbeam_epoch(n, buffer, |i| i));
                    let (l, cpu_l) = measure(loader_runs, &drain);
                    for (k, x) in [b, l, cpu_b, cpu_l, l / b].into_iter().enumerate() {
                        seen[k].push(x);
                    }
                }
                let ratios = &seen[4];
                let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = ratios.iter().copied().fold(0.0, f64::max);
                let [b, l, cpu_b, cpu_l, ratios] = seen.map(median);
                println!(
                    "{n:>9} {buffer:>6} {:>9}  {b:>8.1} {l:>8.1}  {cpu_b:>8.1} {cpu_l:>8.1}  \
                     {ratios:>6.2}x {lo:>5.2}x–{hi:<5.2}x {:>6.2}x",
                    if ordered { "ordered" } else { "unordered" },
                    cpu_l / cpu_b,
                );
            }
        }
    }
}
