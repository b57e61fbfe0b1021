//! What one small fold costs: a fold of 16 and of 1000 `u64`s, one call at a time, on
//! `SequentialEx`, `ThreadedEx` (the global pool, the automatic basesize) and `AutoEx`, against the plain loop (`iter().sum()`).
//!
//! ```text
//! cargo run --release -p foldex-benches --example small_folds -- [rounds] [only]
//! ```
//!
//! With `only`, just the loop and the variants whose name contains it run (for a profiler).
//!
//! Each round times a batch of calls of every variant in turn (the order alternates from round
//! to round); the table gives each variant's median time per call over the rounds (21 by
//! default) and its ratio to the loop's median. `sum` is `ex.sum(&v)`, `fold` is
//! `ex.fold(&v, || 0, |a, &x| a + x, |a, b| a + b)`.
#![forbid(unsafe_code)]

use foldex::prelude::*;
use std::hint::black_box;
use std::time::Instant;

const VARIANTS: [&str; 7] = [
    "loop",
    "SequentialEx sum",
    "SequentialEx fold",
    "ThreadedEx sum",
    "ThreadedEx fold",
    "AutoEx sum",
    "AutoEx fold",
];

/// Nanoseconds per call of `f` over `calls` calls.
#[inline(never)]
fn per_call(calls: usize, v: &[u64], expected: u64, f: impl Fn(&[u64]) -> u64) -> f64 {
    let started = Instant::now();
    for _ in 0..calls {
        assert_eq!(black_box(f(black_box(v))), expected);
    }
    started.elapsed().as_secs_f64() * 1e9 / calls as f64
}

/// Times `calls` calls of variant `i`.
fn batch(i: usize, ex: &(ThreadedEx, AutoEx), calls: usize, v: &[u64], expected: u64) -> f64 {
    let add = |a: u64, b: u64| a + b;
    let (threaded, auto) = ex;
    match i {
        0 => per_call(calls, v, expected, |v| v.iter().sum::<u64>()),
        1 => per_call(calls, v, expected, |v| SequentialEx.sum::<u64>(v)),
        2 => per_call(calls, v, expected, |v| {
            SequentialEx.fold(v, || 0, |a, &x| a + x, add)
        }),
        3 => per_call(calls, v, expected, |v| threaded.sum::<u64>(v)),
        4 => per_call(calls, v, expected, |v| {
            threaded.fold(v, || 0, |a, &x| a + x, add)
        }),
        5 => per_call(calls, v, expected, |v| auto.sum::<u64>(v)),
        _ => per_call(calls, v, expected, |v| {
            auto.fold(v, || 0, |a, &x| a + x, add)
        }),
    }
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map_or(21, |a| a.parse().expect("rounds: a number"));
    let only = std::env::args().nth(2).unwrap_or_default();
    let runs = |i: usize| i == 0 || VARIANTS[i].contains(only.as_str());
    let ex = (ThreadedEx::new(), AutoEx::new());
    println!("| items | variant | median per call | × loop |");
    println!("| --- | --- | --- | --- |");
    for (len, calls) in [(16usize, 20_000usize), (1000, 2_000)] {
        let v: Vec<u64> = (0..len as u64).collect();
        let expected: u64 = v.iter().sum();
        let mut times = vec![Vec::with_capacity(rounds); VARIANTS.len()];
        for round in 0..rounds {
            let order: Vec<usize> = if round % 2 == 0 {
                (0..VARIANTS.len()).collect()
            } else {
                (0..VARIANTS.len()).rev().collect()
            };
            for i in order.into_iter().filter(|&i| runs(i)) {
                times[i].push(batch(i, &ex, calls, &v, expected));
            }
        }
        let medians: Vec<f64> = times
            .iter_mut()
            .map(|t| {
                t.sort_by(f64::total_cmp);
                t.get(t.len() / 2).copied().unwrap_or(f64::NAN)
            })
            .collect();
        for (i, (name, median)) in VARIANTS.iter().zip(&medians).enumerate() {
            if !runs(i) {
                continue;
            }
            println!(
                "| {len} | {name} | {median:.1} ns | {:.2} |",
                median / medians[0]
            );
        }
    }
    println!("AutoEx's last choice: {:?}", ex.1.last_choice());
}
