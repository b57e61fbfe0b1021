//! foldex's parallel sorts against rayon's, side by side in one run: rounds in which every
//! contender sorts a fresh copy of every input in turn (the order of the contenders alternates
//! from round to round), then each cell's median over the rounds.
//!
//! ```text
//! nice -n -5 cargo run --release -p foldex-benches --example sort_rounds -- [rounds] [only] [threads] [sorts]
//! ```
//!
//! `rounds`: 9 by default. `only`: just the inputs whose name contains it (`-` for all).
//! `threads`: pools of their own with that many threads for both (`ThreadedEx::threads`,
//! a rayon `ThreadPool`; `-` for the default); by default both run on their global pools, as
//! the criterion bench (`benches/sort.rs`) does. `sorts`: just the contenders whose name
//! contains it (`unstable`: the unstable sorts and `std`'s).
//!
//! The table gives, per input, the medians (ms) of rayon's and foldex's `par_sort` and
//! `par_sort_unstable`, with ratio = foldex median / rayon median, and `std`'s one-thread
//! `sort_unstable` for scale, first of the wall time, then of the CPU time of the process's
//! threads (idle workers' spinning included) during the sort. Every result is checked against
//! `std`'s sort.
#![forbid(unsafe_code)]

use foldex::pipeline::sort::ParallelSort;
use foldex::prelude::*;
use rayon::slice::ParallelSliceMut;
use std::hint::black_box;
use std::time::Instant;

/// CPU time (s) of this process's threads so far, from Linux's `/proc/self/task/*/schedstat`
/// (nanoseconds on a CPU, per thread); 0 where that cannot be read.
fn cpu_time() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    let ns: u64 = tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    ns as f64 * 1e-9
}

/// A fixed pseudo-random sequence (xorshift64).
fn random(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// `n` random `String`s of 8 to 23 letters, from a random `0..keys` key when `keys` is given
/// (so many are equal).
fn strings(n: usize, keys: Option<u64>) -> Vec<String> {
    let mut next = random(0x2545_F491_4F6C_DD1D);
    (0..n)
        .map(|_| {
            let mut key = random(match keys {
                Some(k) => 1 + next() % k,
                None => next(),
            });
            let len = 8 + (key() % 16) as usize;
            (0..len)
                .map(|_| char::from(b'a' + (key() % 26) as u8))
                .collect()
        })
        .collect()
}

fn u64s(n: usize) -> Vec<u64> {
    let mut next = random(0x9E37_79B9_7F4A_7C15);
    (0..n).map(|_| next()).collect()
}

/// The contenders, by name.
const SORTS: [&str; 5] = [
    "rayon par_sort",
    "foldex par_sort",
    "rayon par_sort_unstable",
    "foldex par_sort_unstable",
    "std sort_unstable",
];

/// The executors: foldex's and rayon's (`None`: rayon's global pool).
type Pools = (ThreadedEx, Option<rayon::ThreadPool>);

/// Sorts `v` with contender `i`.
fn sort<T: Ord + Send>(i: usize, pools: &Pools, v: &mut [T]) {
    let (ex, rayon_pool) = pools;
    let stable = i == 0;
    let on_rayon = |v: &mut [T]| match (rayon_pool, stable) {
        (Some(pool), true) => pool.install(|| ParallelSliceMut::par_sort(v)),
        (Some(pool), false) => pool.install(|| ParallelSliceMut::par_sort_unstable(v)),
        (None, true) => ParallelSliceMut::par_sort(v),
        (None, false) => ParallelSliceMut::par_sort_unstable(v),
    };
    match i {
        0 | 2 => on_rayon(v),
        1 => ParallelSort::par_sort(v, ex),
        3 => ParallelSort::par_sort_unstable(v, ex),
        _ => v.sort_unstable(),
    }
}

/// One input: its name, and every round's time (s) of every contender.
struct Input<T> {
    name: &'static str,
    data: Vec<T>,
    sorted: Vec<T>,
    times: [Vec<f64>; SORTS.len()],
    cpu: [Vec<f64>; SORTS.len()],
}

impl<T: Ord + Clone + Send> Input<T> {
    fn new(name: &'static str, data: Vec<T>) -> Self {
        let mut sorted = data.clone();
        sorted.sort();
        Input {
            name,
            data,
            sorted,
            times: Default::default(),
            cpu: Default::default(),
        }
    }

    /// Times every contender once on a fresh copy, in the order `order`.
    fn round(&mut self, pools: &Pools, order: &[usize]) {
        for &i in order {
            let mut v = self.data.clone();
            let (started, cpu) = (Instant::now(), cpu_time());
            sort(i, pools, black_box(&mut v[..]));
            self.times[i].push(started.elapsed().as_secs_f64());
            self.cpu[i].push(cpu_time() - cpu);
            assert!(v == self.sorted, "{} on {}", SORTS[i], self.name);
        }
    }

    fn report(&self, cpu: bool) {
        let median = |i: usize| {
            let mut t = if cpu { &self.cpu } else { &self.times }[i].clone();
            t.sort_by(f64::total_cmp);
            t.get(t.len() / 2).map_or(f64::NAN, |m| m * 1e3)
        };
        let m: Vec<f64> = (0..SORTS.len()).map(median).collect();
        println!(
            "| {} | {:.1} | {:.1} | {:.2} | {:.1} | {:.1} | {:.2} | {:.1} |",
            self.name,
            m[0],
            m[1],
            m[1] / m[0],
            m[2],
            m[3],
            m[3] / m[2],
            m[4]
        );
    }
}

/// Both kinds of input, so that one loop runs them in turn.
enum AnyInput {
    U64(Input<u64>),
    Text(Input<String>),
}

impl AnyInput {
    fn name(&self) -> &'static str {
        match self {
            AnyInput::U64(i) => i.name,
            AnyInput::Text(i) => i.name,
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().map_or(9, |a| a.parse().expect("rounds"));
    let only = args.next().filter(|a| a != "-");
    let threads: Option<usize> = args
        .next()
        .filter(|a| a != "-")
        .map(|a| a.parse().expect("threads"));
    let sorts_wanted = args.next();
    let pools: Pools = match threads {
        Some(n) => (
            ThreadedEx::new().threads(n),
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .expect("rayon's pool"),
            ),
        ),
        None => (ThreadedEx::new(), None),
    };
    let wanted = |name: &str| only.as_deref().is_none_or(|o| name.contains(o));
    let mut inputs = Vec::new();
    let mut add = |input: AnyInput| {
        if wanted(input.name()) {
            inputs.push(input);
        }
    };
    let ascending: Vec<u64> = (0..10_000_000).collect();
    add(AnyInput::U64(Input::new(
        "10^7 random u64",
        u64s(10_000_000),
    )));
    add(AnyInput::Text(Input::new(
        "10^6 random String",
        strings(1_000_000, None),
    )));
    add(AnyInput::U64(Input::new(
        "10^7 u64, sorted",
        ascending.clone(),
    )));
    add(AnyInput::U64(Input::new(
        "10^7 u64, reversed",
        ascending.into_iter().rev().collect(),
    )));
    add(AnyInput::U64(Input::new(
        "10^7 u64, 100 distinct",
        u64s(10_000_000).into_iter().map(|x| x % 100).collect(),
    )));
    add(AnyInput::Text(Input::new(
        "10^6 String, 1000 distinct",
        strings(1_000_000, Some(1000)),
    )));
    add(AnyInput::Text(Input::new(
        "10^5 random String",
        strings(100_000, None),
    )));
    add(AnyInput::Text(Input::new("10^6 String, sorted", {
        let mut s = strings(1_000_000, None);
        s.sort_unstable();
        s
    })));
    for round in 0..rounds {
        // Alternate who goes first: forwards in even rounds, backwards in odd ones.
        let mut order: Vec<usize> = (0..SORTS.len())
            .filter(|&i| sorts_wanted.as_deref().is_none_or(|w| SORTS[i].contains(w)))
            .collect();
        if round % 2 == 1 {
            order.reverse();
        }
        for input in &mut inputs {
            match input {
                AnyInput::U64(i) => i.round(&pools, &order),
                AnyInput::Text(i) => i.round(&pools, &order),
            }
        }
        eprintln!("round {} of {rounds} done", round + 1);
    }
    println!(
        "| input | rayon `par_sort` | foldex `par_sort` | ratio | rayon `par_sort_unstable` | foldex `par_sort_unstable` | ratio | `std` `sort_unstable`, one thread |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for cpu in [false, true] {
        println!(
            "{}",
            if cpu {
                "CPU time of all threads:"
            } else {
                "Wall time:"
            }
        );
        for input in &inputs {
            match input {
                AnyInput::U64(i) => i.report(cpu),
                AnyInput::Text(i) => i.report(cpu),
            }
        }
    }
}
