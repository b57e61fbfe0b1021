//! What `DepthFirstEx` is for: a `find_first` whose answer lies early in a long input, with a
//! predicate that costs about a microsecond, on `DepthFirstEx` and `ThreadedEx` (the global
//! pool, the automatic basesize) and `TaskPoolEx` (which also takes its chunks in order).
//!
//! ```text
//! cargo run --release -p foldex-benches --example depth_first_search -- [rounds]
//! ```
//!
//! For each position of the answer (a fraction of the input), the table gives each executor's
//! median time over the rounds (9 by default, executors alternating) and the median number of
//! items the predicate saw: the work done past the answer.
#![forbid(unsafe_code)]

use foldex::prelude::*;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

const N: u64 = 400_000;

/// About a microsecond of arithmetic, then whether `x` is the answer.
fn costly_is(x: u64, answer: u64) -> bool {
    let mut h = x;
    for _ in 0..200 {
        h = black_box(
            h.wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407),
        );
    }
    black_box(h);
    x == answer
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|r| r.parse().expect("rounds: a number"))
        .unwrap_or(9);
    let executors: [(&str, Box<dyn Executor>); 3] = [
        ("DepthFirstEx", Box::new(DepthFirstEx::new())),
        ("ThreadedEx", Box::new(ThreadedEx::new())),
        ("TaskPoolEx", Box::new(TaskPoolEx::new())),
    ];
    println!("find_first over 0..{N}, a predicate of about 1 µs; median of {rounds} rounds");
    println!("| answer at | executor | time | items seen | time ÷ ThreadedEx's |");
    println!("| --- | --- | --- | --- | --- |");
    for fraction in [0.01, 0.3, 0.6] {
        let answer = (N as f64 * fraction) as u64;
        let mut times = vec![Vec::new(); executors.len()];
        let mut seen = vec![Vec::new(); executors.len()];
        for round in 0..rounds {
            for k in 0..executors.len() {
                // Alternate the order from round to round.
                let k = if round % 2 == 0 {
                    k
                } else {
                    executors.len() - 1 - k
                };
                let calls = AtomicUsize::new(0);
                let started = Instant::now();
                let hit = (0..N).pipe().find_first(&*executors[k].1, |&x| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    costly_is(x, answer)
                });
                times[k].push(started.elapsed().as_secs_f64() * 1e3);
                assert_eq!(hit, Some(answer));
                seen[k].push(calls.load(Ordering::Relaxed) as f64);
            }
        }
        let medians: Vec<(f64, f64)> = (0..executors.len())
            .map(|k| (median(&mut times[k]), median(&mut seen[k])))
            .collect();
        for (k, (name, _)) in executors.iter().enumerate() {
            let (time, items) = medians[k];
            println!(
                "| {:.0}% | {name} | {time:.1} ms | {items:.0} | {:.2}× |",
                fraction * 100.0,
                time / medians[1].0
            );
        }
    }
}
