//! The peer table of docs/benchmarks.md ("Peers"): every row of `shared/peers.rs` with its
//! contenders run in alternating rounds (each contender once per round, the order rotated from
//! round to round), and a markdown table of the medians.
//!
//! `cargo run --release -p foldex-benches --example peers_table [ROUNDS] [ROW]` (21 rounds by
//! default; with `ROW`, only the rows whose name contains it, e.g. `fold_` for the small folds)
//!
//! Each contender's time in a round is the mean of as many calls as fill about 2 ms (one call
//! for the slower rows), so that calls of a few nanoseconds are timed too; that count is taken
//! from a first run of calls for 2 ms, after one call that checks the answer. Each foldex line
//! gets its ratio to the best peer's median (rayon, orx-parallel, chili) and to the sequential
//! loop's, in the same run.
use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "../shared/peers.rs"]
mod peers;

use peers::Side;

/// Calls that fill about this much time make one measurement.
const TARGET: Duration = Duration::from_millis(2);

/// The time of one call of `run`, as the mean of `calls` calls.
fn measure(run: &dyn Fn() -> u64, calls: u32) -> Duration {
    let start = Instant::now();
    for _ in 0..calls {
        black_box(run());
    }
    start.elapsed() / calls
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn show(d: Duration) -> String {
    let ns = d.as_secs_f64() * 1e9;
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{:.2} ms", ns / 1e6)
    }
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse().expect("ROUNDS: a number of rounds"))
        .unwrap_or(21);
    let only = std::env::args().nth(2).unwrap_or_default();
    let rows: Vec<_> = peers::rows()
        .into_iter()
        .filter(|row| row.name.contains(only.as_str()))
        .collect();
    println!("| row | contender | median | vs best peer | vs sequential |");
    println!("| --- | --- | --- | --- | --- |");
    for row in &rows {
        let contenders = &row.contenders;
        let want = (contenders[0].run)();
        // The first call checks the answer; then as many calls as fill `TARGET` (at least one,
        // at most a million), counted, warm the contender up and size its measurement (a first
        // call alone may be much slower than the rest: a pool waking up, a length measured).
        let calls: Vec<u32> = contenders
            .iter()
            .map(|c| {
                assert_eq!((c.run)(), want, "{} on {}", c.name, row.name);
                let start = Instant::now();
                let mut calls = 0;
                while calls < 1_000_000 && (calls == 0 || start.elapsed() < TARGET) {
                    black_box((c.run)());
                    calls += 1;
                }
                calls
            })
            .collect();
        let mut times = vec![Vec::with_capacity(rounds); contenders.len()];
        for round in 0..rounds {
            for k in 0..contenders.len() {
                let i = (round + k) % contenders.len();
                times[i].push(measure(&*contenders[i].run, calls[i]));
            }
        }
        let medians: Vec<Duration> = times.into_iter().map(median).collect();
        let of = |side: Side| {
            contenders
                .iter()
                .zip(&medians)
                .filter(|(c, _)| c.side == side)
                .map(|(_, &m)| m)
                .min()
        };
        let (best_peer, sequential) = (of(Side::Peer), of(Side::Sequential));
        for (c, &m) in contenders.iter().zip(&medians) {
            let ratio = |to: Option<Duration>| match (c.side, to) {
                (Side::Foldex, Some(to)) => format!("{:.2}", m.as_secs_f64() / to.as_secs_f64()),
                _ => String::new(),
            };
            println!(
                "| {} | {} | {} | {} | {} |",
                row.name,
                c.name,
                show(m),
                ratio(best_peer),
                ratio(sequential)
            );
        }
    }
    println!();
    for row in &rows {
        println!("- `{}`: {}", row.name, row.measures);
    }
}
