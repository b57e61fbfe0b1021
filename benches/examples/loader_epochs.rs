//! The time of every epoch, not just the typical one: the workload of the `loader_throughput`
//! bench (100 000 observations, buffer 16, unbatched, `ThreadedEx` with basesize 1), run epoch by epoch
//! with the reference and the loader taking turns, then each one's distribution.
//!
//! ```text
//! cargo run --release -p foldex-benches --example loader_epochs -- [epochs] [item cost in ns]
//! ```
//!
//! Defaults: 300 epochs of each, items that cost nothing. Criterion reports a median and a
//! spread; an epoch that now and then takes several times longer shows up here, in the p99, the
//! maximum and the count of epochs above twice the median.
#![forbid(unsafe_code)]

use foldex::{from_fn, Loader, ThreadedEx};
use foldex_benches::{rayon_crossbeam_epoch, spin_for};
use std::hint::black_box;
use std::time::Instant;

const N: usize = 100_000;
const BUFFER: usize = 16;

fn main() {
    let mut args = std::env::args().skip(1);
    let epochs: usize = args
        .next()
        .map_or(300, |a| a.parse().expect("epochs: a number"));
    let cost: u64 = args
        .next()
        .map_or(0, |a| a.parse().expect("item cost in ns: a number"));
    assert!(epochs >= 2, "epochs: at least 2");
    let item = move |i: usize| {
        if cost > 0 {
            spin_for(cost);
        }
        i
    };
    let loader = |ordered: bool, executor: ThreadedEx| {
        Loader::new(from_fn(N, item), executor)
            .buffer(BUFFER)
            .ordered(ordered)
            .unbatched()
    };
    let unordered = loader(false, ThreadedEx::new().basesize(1));
    let ordered = loader(true, ThreadedEx::new().basesize(1));
    let one_worker = loader(false, ThreadedEx::new().threads(1).basesize(1));
    let drain = |l: &Loader<_, _>| {
        l.iter()
            .fold(0usize, |acc, x: usize| acc.wrapping_add(black_box(x)))
    };

    let names = [
        "rayon+crossbeam",
        "loader unordered",
        "loader ordered",
        "loader unordered, 1 worker",
    ];
    let mut times: [Vec<f64>; 4] = Default::default();
    // One epoch of each per round, so that a slow stretch of the machine falls on all of them.
    for _ in 0..epochs {
        for (k, t) in times.iter_mut().enumerate() {
            let start = Instant::now();
            black_box(match k {
                0 => rayon_crossbeam_epoch(N, BUFFER, item),
                1 => drain(&unordered),
                2 => drain(&ordered),
                _ => drain(&one_worker),
            });
            t.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }

    println!(
        "{epochs} epochs of {N} observations costing {cost} ns each, buffer {BUFFER}; ms per epoch"
    );
    println!(
        "{:<28} {:>7} {:>7} {:>7} {:>7} {:>7}  above 2x median",
        "", "mean", "p50", "p90", "p99", "max"
    );
    for (name, mut t) in names.into_iter().zip(times) {
        t.sort_by(f64::total_cmp);
        let at = |q: f64| t[((t.len() - 1) as f64 * q).round() as usize];
        let median = at(0.5);
        let slow = t.iter().filter(|&&x| x > 2.0 * median).count();
        let mean = t.iter().sum::<f64>() / t.len() as f64;
        println!(
            "{name:<28} {mean:>7.2} {median:>7.2} {:>7.2} {:>7.2} {:>7.2}  {slow}",
            at(0.9),
            at(0.99),
            at(1.0)
        );
    }
}
