//! A word count over a plain iterator, with a `HashMap<String, usize>` per piece merged in
//! order: foldex's stream fold (default settings) against rayon's
//! `par_bridge().fold(HashMap::new, ..).reduce(HashMap::new, merge)` and the sequential loop,
//! in alternating rounds; then the medians and their ratios.
//!
//! ```text
//! cargo run --release -p foldex-benches --example stream_word_count -- [rounds] [lines]
//! ```
//!
//! Defaults: 11 rounds, 2·10^5 lines of 4 to 16 words drawn from 10^4 (a common word far more
//! often than a rare one), held in memory and read with `BufRead::lines`, so that every line is
//! pulled as a new `String`. Before the rounds, one fold per executor reports how many
//! accumulators it made and how long it spent merging them. Also measured, to see that they do
//! not get slower: a cheap accumulator (the sum of the line lengths) over the same lines, and a
//! few slow items (16 items of 1 ms each), which should spread over the threads; and the same
//! word count with each word copied only when it is new to a map, on both sides: foldex's
//! `flat_map_ref(str::split_whitespace).counts(ex)` against `par_bridge` with the same step.
#![forbid(unsafe_code)]

use foldex::pipeline::from_stream;
use foldex::prelude::*;
use foldex::protocol::Stream;
use foldex_benches::{spin_for, word_lines};
use rayon::prelude::*;
use std::collections::HashMap;
use std::hint::black_box;
use std::io::BufRead;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

type Counts = HashMap<String, usize>;

fn lines(text: &str) -> impl Iterator<Item = String> + Send + '_ {
    std::io::Cursor::new(text.as_bytes())
        .lines()
        .map(|line| line.expect("in memory"))
}

fn count(mut counts: Counts, line: String) -> Counts {
    for word in line.split_whitespace() {
        *counts.entry(word.to_string()).or_default() += 1;
    }
    counts
}

/// [`count`] written to copy a word only when it is new to the map, as
/// `flat_map_ref(str::split_whitespace).counts(ex)` does.
fn count_lent(mut counts: Counts, line: String) -> Counts {
    for word in line.split_whitespace() {
        match counts.get_mut(word) {
            Some(n) => *n += 1,
            None => {
                counts.insert(word.to_owned(), 1);
            }
        }
    }
    counts
}

fn merge(mut a: Counts, b: Counts) -> Counts {
    for (word, n) in b {
        *a.entry(word).or_default() += n;
    }
    a
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Runs each contender once per round, in turn, and prints the medians, their ratios to the
/// first contender's, and the median of the rounds' own ratios (each round's time over the
/// first contender's in that round: less sensitive to a load that drifts between rounds).
fn compare(name: &str, rounds: usize, contenders: &[(&str, &dyn Fn())]) {
    let mut times = vec![Vec::new(); contenders.len()];
    for _ in 0..rounds {
        for (i, (_, run)) in contenders.iter().enumerate() {
            let start = Instant::now();
            run();
            times[i].push(start.elapsed());
        }
    }
    let first = times[0].clone();
    let medians: Vec<Duration> = times.iter().cloned().map(median).collect();
    println!("{name}: median ms, ratio of medians, median of the rounds' ratios");
    for (((label, _), m), t) in contenders.iter().zip(&medians).zip(&times) {
        let ratio = m.as_secs_f64() / medians[0].as_secs_f64();
        let mut ratios: Vec<f64> = t
            .iter()
            .zip(&first)
            .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
            .collect();
        ratios.sort_by(f64::total_cmp);
        let paired = ratios[ratios.len() / 2];
        println!(
            "  {label:<28} {:>10.2} ms  {ratio:>5.2}x  {paired:>5.2}x",
            m.as_secs_f64() * 1e3
        );
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args
        .next()
        .map_or(11, |a| a.parse().expect("rounds: a number"));
    let n: usize = args
        .next()
        .map_or(200_000, |a| a.parse().expect("lines: a number"));
    let text = word_lines(n);
    let threaded = ThreadedEx::new();
    let auto = AutoEx::new();
    let want = lines(&text).fold(Counts::new(), count);

    let rayon = || {
        let got = lines(&text)
            .par_bridge()
            .fold(Counts::new, count)
            .reduce(Counts::new, merge);
        assert_eq!(got, want);
    };
    let on = |ex: &dyn Executor, batch: Option<usize>| {
        let stream = Stream::new(lines(&text));
        let stream = match batch {
            Some(b) => stream.batch_size(b),
            None => stream,
        };
        let got = ex.fold(stream, Counts::new, count, merge);
        assert_eq!(got, want);
    };
    let sequential = || assert_eq!(lines(&text).fold(Counts::new(), count), want);
    for (label, ex) in [
        ("ThreadedEx", &threaded as &dyn Executor),
        ("AutoEx", &auto),
    ] {
        let (inits, merged) = (AtomicUsize::new(0), AtomicU64::new(0));
        let init = || {
            inits.fetch_add(1, Ordering::Relaxed);
            Counts::new()
        };
        let timed_merge = |a, b| {
            let start = Instant::now();
            let out = merge(a, b);
            merged.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
            out
        };
        let start = Instant::now();
        let got = ex.fold(Stream::new(lines(&text)), init, count, timed_merge);
        let took = start.elapsed();
        assert_eq!(got, want);
        println!(
            "{label}: {} accumulators made, {:.2} ms merging, in {:.2} ms",
            inits.into_inner(),
            merged.into_inner() as f64 / 1e6,
            took.as_secs_f64() * 1e3
        );
    }
    compare(
        &format!("word count, HashMap per piece, {n} lines (median of {rounds})"),
        rounds,
        &[
            ("rayon par_bridge", &rayon),
            ("ThreadedEx", &|| on(&threaded, None)),
            ("AutoEx", &|| on(&auto, None)),
            ("ThreadedEx batch_size(4096)", &|| on(&threaded, Some(4096))),
            ("sequential", &sequential),
        ],
    );

    let rayon = || {
        let got = lines(&text)
            .par_bridge()
            .fold(Counts::new, count_lent)
            .reduce(Counts::new, merge);
        assert_eq!(got, want);
    };
    let on = |ex: &dyn Executor| {
        let words = from_stream(Stream::new(lines(&text))).flat_map_ref(str::split_whitespace);
        assert_eq!(words.counts(ex), want);
    };
    compare(
        &format!(
            "word count, a word copied only when new to a map, {n} lines (median of {rounds})"
        ),
        rounds,
        &[
            ("rayon par_bridge", &rayon),
            ("ThreadedEx", &|| on(&threaded)),
            ("AutoEx", &|| on(&auto)),
            ("sequential", &|| {
                assert_eq!(lines(&text).fold(Counts::new(), count_lent), want)
            }),
        ],
    );

    let want: usize = lines(&text).map(|l| l.len()).sum();
    let rayon = || {
        let got: usize = lines(&text).par_bridge().map(|l| l.len()).sum();
        assert_eq!(got, want);
    };
    let on = |ex: &dyn Executor| {
        let got = ex.map_reduce(Stream::new(lines(&text)), |l| l.len(), || 0, |a, b| a + b);
        assert_eq!(got, want);
    };
    compare(
        &format!("sum of line lengths, {n} lines (median of {rounds})"),
        rounds,
        &[
            ("rayon par_bridge", &rayon),
            ("ThreadedEx", &|| on(&threaded)),
            ("AutoEx", &|| on(&auto)),
            ("sequential", &|| {
                assert_eq!(lines(&text).map(|l| l.len()).sum::<usize>(), want)
            }),
        ],
    );

    let slow = |i: u64| {
        spin_for(1_000_000);
        black_box(i)
    };
    let want: u64 = (0..16).sum();
    let rayon = || assert_eq!((0..16u64).par_bridge().map(slow).sum::<u64>(), want);
    let on = |ex: &dyn Executor| {
        let got = ex.map_reduce(Stream::new(0..16u64), slow, || 0, |a, b| a + b);
        assert_eq!(got, want);
    };
    compare(
        &format!("16 items of 1 ms (median of {rounds})"),
        rounds,
        &[
            ("rayon par_bridge", &rayon),
            ("ThreadedEx", &|| on(&threaded)),
            ("AutoEx", &|| on(&auto)),
            ("sequential", &|| {
                assert_eq!((0..16u64).map(slow).sum::<u64>(), want)
            }),
        ],
    );
}
