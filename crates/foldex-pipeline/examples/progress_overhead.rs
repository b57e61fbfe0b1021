//! What `with_progress` costs on cheap folds: the sum of `0..n` (10^8 by default; the compiler
//! turns it into a formula per piece), the sum of a cheap function of `0..n` (a loop it
//! vectorises), and the sum of a `Vec<u64>` of `n / 10` items (memory-bound), each with and
//! without a progress count, on `ThreadedEx` with its default threads, alternating, the
//! median of each printed.
//!
//! ```text
//! cargo run --release -p foldex-pipeline --example progress_overhead -- [n] [rounds]
//! ```

use foldex_pipeline::{IntoPipeline, Progress};
use foldex_threaded::ThreadedEx;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Times `plain` and `counted` alternately, `rounds` times after one warm-up each, and prints
/// their medians.
fn compare(what: &str, rounds: usize, plain: impl Fn() -> u64, counted: impl Fn() -> u64) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for round in 0..=rounds {
        let started = Instant::now();
        let x = black_box(plain());
        let t_plain = started.elapsed();
        let started = Instant::now();
        let y = black_box(counted());
        let t_counted = started.elapsed();
        assert_eq!(x, y, "{what}");
        if round > 0 {
            a.push(t_plain);
            b.push(t_counted);
        }
    }
    let (a, b) = (median(a), median(b));
    let change = (b.as_secs_f64() / a.as_secs_f64() - 1.0) * 100.0;
    println!("{what}: without progress {a:?}, with progress {b:?} ({change:+.1}%)");
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args
        .next()
        .map_or(100_000_000, |a| a.parse().expect("n: a number"));
    let rounds: usize = args
        .next()
        .map_or(21, |a| a.parse().expect("rounds: a number"));
    let ex = ThreadedEx::new();
    let progress = Progress::new();
    println!(
        "ThreadedEx on {} threads, median of {rounds} alternating rounds",
        foldex_core::available_parallelism()
    );
    let counted = |done: u64| {
        assert_eq!(progress.done() as u64, done);
        done
    };

    compare(
        &format!("sum of 0..{n}"),
        rounds,
        || black_box(0..n).pipe().sum::<u64>(&ex),
        || {
            let sum = black_box(0..n)
                .pipe()
                .with_progress(&progress)
                .sum::<u64>(&ex);
            counted(n);
            sum
        },
    );

    let mix = |x: u64| x ^ (x >> 7) ^ (x << 9);
    compare(
        &format!("sum of x ^ (x >> 7) ^ (x << 9) over 0..{n}"),
        rounds,
        || {
            black_box(0..n)
                .pipe()
                .map(mix)
                .fold(&ex, || 0, u64::wrapping_add, u64::wrapping_add)
        },
        || {
            let pipe = black_box(0..n).pipe().with_progress(&progress).map(mix);
            let sum = pipe.fold(&ex, || 0, u64::wrapping_add, u64::wrapping_add);
            counted(n);
            sum
        },
    );

    let data: Vec<u64> = (0..n / 10).collect();
    compare(
        &format!("sum of a Vec<u64> of {} items", n / 10),
        rounds,
        || data.pipe().copied().sum::<u64>(&ex),
        || {
            let sum = data
                .pipe()
                .copied()
                .with_progress(&progress)
                .sum::<u64>(&ex);
            counted(n / 10);
            sum
        },
    );
}
