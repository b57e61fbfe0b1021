//! Differential test: `Loader` and `StreamLoader` epochs against a sequential model of what an
//! epoch must deliver, over seeded random cases.
//!
//! Each case draws a length (0, 1, primes, up to a few thousand), a batch size (1, primes, one
//! larger than the length), an executor (`SequentialEx`, `ThreadedEx` at basesize 1 and auto,
//! `TaskPoolEx` foreground and background, `AutoEx`, all as `Arc<dyn Executor>`), a buffer,
//! ordered or not, partial last batch or not, a shuffle (the loader's seeded permutation; the
//! stream loader's shuffle buffer), for streams the shards, interleaving and window, and at most
//! one fault: a panic in `get` or `compute` at a random item, or (streams) a panic in a shard
//! iterator's `next()` at a random item. The model (plain sequential code, no executor) says
//! what the epoch delivers: its batches, in order, then the failure, the payload `Boom(item)`
//! and where it happened (`failed_index()`, `failed_position()`). The rule it follows is
//! docs/loader.md's: every batch before the failing one, then the panic; the failing batch
//! is never delivered; a panic in a short last batch that `partial(false)` leaves out never
//! happens (it is not loaded), a panic while pulling always does (pulling comes first).
//! Ordered epochs must equal the model; unordered ones must deliver every batch of the model,
//! the same failure, and otherwise only batches of the epoch after the failing one, each once.
//!
//! Knobs, shared with `crates/foldex/tests/fault_injection`:
//! - `FOLDEX_FAULT_CASES_SCALE` (default 1) multiplies the case count of each group, for a
//!   long run: `FOLDEX_FAULT_CASES_SCALE=50 cargo test --release -p foldex-loader --test
//!   differential -- --nocapture` (each group prints its cases, seed, time and disagreements);
//! - `FOLDEX_FAULT_SEED` (default `DEFAULT_SEED`, decimal or `0x` hex) changes the base seed;
//! - `FOLDEX_FAULT_CASE` runs only that case of each group; a disagreement's message names it.
//!
//! Each case runs under [`foldex_testkit::watchdog`] (120 s: a hang aborts the run).
#![cfg(panic = "unwind")]

use foldex_auto::AutoEx;
use foldex_core::Executor;
use foldex_dataset::{from_fn, order::permutation, rng_for};
use foldex_loader::{Loader, StreamLoader};
use foldex_seq::{NonThreadedEx, SequentialEx};
use foldex_taskpool::TaskPoolEx;
use foldex_threaded::{DepthFirstEx, ThreadedEx};
use std::any::Any;
use std::collections::VecDeque;
use std::ops::Range;
use std::panic::{self, catch_unwind, panic_any, AssertUnwindSafe};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

const DEFAULT_SEED: u64 = 0xD1FF_10AD_5EED;
/// Cases per group at scale 1: a few seconds for both groups in a debug build.
const BASE_CASES: usize = 120;

/// The payload of every injected panic: the item that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Boom(u64);

struct Knobs {
    scale: usize,
    seed: u64,
    only: Option<usize>,
}

fn knobs() -> &'static Knobs {
    static KNOBS: OnceLock<Knobs> = OnceLock::new();
    KNOBS.get_or_init(|| {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let number = |name: &str, v: String| -> u64 {
            let v = v.trim().replace('_', "");
            let parsed = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16).ok(),
                None => v.parse().ok(),
            };
            parsed.unwrap_or_else(|| panic!("{name} must be a number, got {v:?}"))
        };
        let scale = var("FOLDEX_FAULT_CASES_SCALE")
            .map_or(1, |v| number("FOLDEX_FAULT_CASES_SCALE", v) as usize);
        assert!(scale >= 1, "FOLDEX_FAULT_CASES_SCALE must be at least 1");
        Knobs {
            scale,
            seed: var("FOLDEX_FAULT_SEED").map_or(DEFAULT_SEED, |v| number("FOLDEX_FAULT_SEED", v)),
            only: var("FOLDEX_FAULT_CASE").map(|v| number("FOLDEX_FAULT_CASE", v) as usize),
        }
    })
}

/// SplitMix64, seeded by (base seed, group, case number).
struct Rng(u64);

impl Rng {
    fn for_case(seed: u64, group: &str, case: usize) -> Self {
        let mut h = seed ^ 0x6A09_E667_F3BC_C908;
        for b in group.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3);
        }
        Rng(h ^ (case as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.range(0, xs.len() - 1)]
    }

    /// The first prime at or above a random number in `2..=hi`.
    fn prime(&mut self, hi: usize) -> usize {
        let is_prime = |n: usize| {
            n >= 2
                && (2..)
                    .take_while(|d| d * d <= n)
                    .all(|d| !n.is_multiple_of(d))
        };
        (self.range(2, hi)..)
            .find(|&n| is_prime(n))
            .expect("primes go on")
    }
}

fn executors() -> &'static [(&'static str, Arc<dyn Executor>)] {
    static ALL: OnceLock<Vec<(&'static str, Arc<dyn Executor>)>> = OnceLock::new();
    ALL.get_or_init(|| {
        vec![
            ("SequentialEx", Arc::new(SequentialEx) as Arc<dyn Executor>),
            (
                "ThreadedEx basesize 1",
                Arc::new(ThreadedEx::new().basesize(1)),
            ),
            ("ThreadedEx", Arc::new(ThreadedEx::new())),
            ("TaskPoolEx", Arc::new(TaskPoolEx::new())),
            (
                "TaskPoolEx 3 tasks background",
                Arc::new(TaskPoolEx::new().ntasks(3).background(true)),
            ),
            ("AutoEx", Arc::new(AutoEx::new())),
            ("DepthFirstEx", Arc::new(DepthFirstEx::new())),
            (
                "NonThreadedEx basesize 1",
                Arc::new(NonThreadedEx::new().basesize(1)),
            ),
        ]
    })
}

/// Where the one injected panic is, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    None,
    /// `get` (or `compute`) of this item panics.
    Load(u64),
    /// Pulling this item from its shard panics (streams only).
    Pull(u64),
}

/// One epoch's settings.
#[derive(Debug, Clone)]
struct Case {
    len: usize,
    batch: usize,
    executor: usize,
    buffer: Option<usize>,
    ordered: bool,
    partial: bool,
    /// The loader's permutation seed, or the stream's shuffle buffer (size, seed).
    shuffle: Option<(usize, u64)>,
    /// Streams: the shards (consecutive ranges of `0..len`), read `interleave` at a time.
    shards: Vec<Range<u64>>,
    interleave: usize,
    window: Option<usize>,
    fault: Fault,
}

fn draw(rng: &mut Rng, stream: bool) -> Case {
    let len = match rng.range(0, 99) {
        0..=4 => 0,
        5..=9 => 1,
        10..=39 => rng.pick(&[2, 3, 5, 7, 11, 13, 17, 31, 61]),
        40..=79 => rng.prime(3000),
        _ => rng.range(0, 4000),
    };
    let batch = match rng.range(0, 99) {
        0..=19 => 1,
        20..=69 => rng.pick(&[2, 3, 5, 7, 13, 31, 61, 127]),
        70..=84 => len + rng.range(1, 10),
        _ => rng.range(1, 64),
    };
    let mut shards = Vec::new();
    let mut start = 0;
    while stream && start < len {
        let end = if rng.chance(40) {
            len
        } else {
            rng.range(start + 1, len)
        };
        shards.push(start as u64..end as u64);
        start = end;
    }
    let item = |rng: &mut Rng| rng.range(0, len.max(1) - 1) as u64;
    let fault = match rng.range(0, 99) {
        _ if len == 0 => Fault::None,
        0..=24 => Fault::None,
        25..=69 => Fault::Load(item(rng)),
        _ if stream => Fault::Pull(item(rng)),
        _ => Fault::Load(item(rng)),
    };
    Case {
        len,
        batch,
        executor: rng.range(0, executors().len() - 1),
        buffer: rng.chance(60).then(|| rng.pick(&[1, 2, 4, 64])),
        ordered: rng.chance(75),
        partial: rng.chance(70),
        shuffle: rng.chance(40).then(|| {
            let size = if stream { rng.range(1, 2 * len + 2) } else { 0 };
            (size, rng.next())
        }),
        shards,
        interleave: rng.range(1, 3),
        window: (stream && rng.chance(60)).then(|| rng.range(1, 5)),
        fault,
    }
}

/// What an epoch delivered, or must deliver: its batches, then the failure (payload, and the
/// index or stream position the loader names).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    batches: Vec<Vec<u64>>,
    failure: Option<(Boom, Option<usize>)>,
}

/// The model of a `Loader` epoch (epoch 0): the order, cut into batches, up to the batch that
/// holds the failing item.
fn loader_model(case: &Case) -> Outcome {
    let order: Vec<usize> = match case.shuffle {
        Some((_, seed)) => permutation(case.len, seed, 0),
        None => (0..case.len).collect(),
    };
    let items: Vec<u64> = order.iter().map(|&i| i as u64).collect();
    let mut batches: Vec<Vec<u64>> = items.chunks(case.batch).map(<[u64]>::to_vec).collect();
    if !case.partial && !case.len.is_multiple_of(case.batch) {
        batches.pop();
    }
    cut_at_load(batches, case.fault, |item, _| item as usize)
}

/// Cuts `batches` before the one that holds the failing load, if any: the failure names it by
/// `place(item, stream position)`.
fn cut_at_load(
    mut batches: Vec<Vec<u64>>,
    fault: Fault,
    place: impl Fn(u64, usize) -> usize,
) -> Outcome {
    if let Fault::Load(failing) = fault {
        let mut position = 0;
        for (b, batch) in batches.iter().enumerate() {
            if let Some(at) = batch.iter().position(|&x| x == failing) {
                batches.truncate(b);
                let failure = Some((Boom(failing), Some(place(failing, position + at))));
                return Outcome { batches, failure };
            }
            position += batch.len();
        }
    }
    Outcome {
        batches,
        failure: None,
    }
}

/// The model of a `StreamLoader` epoch (epoch 0): the shards interleaved (tf.data's
/// `interleave` with a block of one), through the shuffle buffer (tf.data's `shuffle`, drawn
/// with `rng_for(seed, epoch, size)`), cut into batches; a panic while pulling ends the stream
/// after the whole batches before it.
fn stream_model(case: &Case) -> Outcome {
    let pull_panic = match case.fault {
        Fault::Pull(item) => Some(item),
        _ => None,
    };
    // Interleaving.
    let mut pending: VecDeque<Range<u64>> = case.shards.iter().cloned().collect();
    let mut cycle: VecDeque<Range<u64>> = VecDeque::new();
    let mut pull = move || -> Result<Option<u64>, ()> {
        loop {
            while cycle.len() < case.interleave {
                let Some(shard) = pending.pop_front() else {
                    break;
                };
                cycle.push_back(shard);
            }
            let Some(mut current) = cycle.pop_front() else {
                return Ok(None);
            };
            if let Some(item) = current.next() {
                if Some(item) == pull_panic {
                    return Err(());
                }
                cycle.push_back(current);
                return Ok(Some(item));
            }
            if let Some(shard) = pending.pop_front() {
                cycle.push_front(shard);
            }
        }
    };
    // Shuffling; `Err` once pulling panicked.
    let mut items = Vec::new();
    let pulled: Result<(), ()> = match case.shuffle {
        None => loop {
            match pull() {
                Ok(Some(item)) => items.push(item),
                Ok(None) => break Ok(()),
                Err(()) => break Err(()),
            }
        },
        Some((size, seed)) => {
            let mut rng = rng_for(seed, 0, size);
            let mut held = Vec::new();
            'out: loop {
                while held.len() < size {
                    match pull() {
                        Ok(Some(item)) => held.push(item),
                        Ok(None) => break,
                        Err(()) => break 'out Err(()),
                    }
                }
                if held.is_empty() {
                    break Ok(());
                }
                items.push(held.swap_remove(rng.gen_range(0..held.len())));
            }
        }
    };
    let mut batches: Vec<Vec<u64>> = items.chunks(case.batch).map(<[u64]>::to_vec).collect();
    let short = !items.len().is_multiple_of(case.batch);
    if pulled.is_err() {
        // Only whole batches come before a failure while pulling.
        if short {
            batches.pop();
        }
    } else if !case.partial && short {
        batches.pop();
    }
    let outcome = cut_at_load(batches, case.fault, |_, position| position);
    match (pulled, pull_panic) {
        (Err(()), Some(item)) if outcome.failure.is_none() => Outcome {
            failure: Some((Boom(item), Some(items.len()))),
            ..outcome
        },
        _ => outcome,
    }
}

/// Runs an epoch to its end or its panic.
fn consume(
    epoch: &mut dyn Iterator<Item = Vec<u64>>,
) -> (Vec<Vec<u64>>, Option<Box<dyn Any + Send>>) {
    let mut batches = Vec::new();
    let ended = catch_unwind(AssertUnwindSafe(|| {
        for batch in epoch {
            batches.push(batch);
        }
    }));
    (batches, ended.err())
}

fn boom(payload: Option<Box<dyn Any + Send>>) -> Result<Option<Boom>, String> {
    match payload {
        None => Ok(None),
        Some(p) => match p.downcast::<Boom>() {
            Ok(boom) => Ok(Some(*boom)),
            Err(p) => Err(match p.downcast_ref::<&str>() {
                Some(s) => format!("a foreign panic: {s}"),
                None => match p.downcast_ref::<String>() {
                    Some(s) => format!("a foreign panic: {s}"),
                    None => "a foreign panic payload".to_owned(),
                },
            }),
        },
    }
}

fn run_loader(case: &Case) -> Result<Outcome, String> {
    let failing = match case.fault {
        Fault::Load(item) => Some(item as usize),
        _ => None,
    };
    let mut loader = Loader::new(
        from_fn(case.len, move |i| {
            if Some(i) == failing {
                panic_any(Boom(i as u64));
            }
            i as u64
        }),
        Arc::clone(&executors()[case.executor].1),
    )
    .batch_size(case.batch)
    .ordered(case.ordered)
    .partial(case.partial);
    if let Some(buffer) = case.buffer {
        loader = loader.buffer(buffer);
    }
    if let Some((_, seed)) = case.shuffle {
        loader = loader.shuffle(seed);
    }
    let mut epoch = loader.iter();
    let (batches, payload) = consume(&mut epoch);
    let failure = boom(payload)?.map(|b| (b, epoch.failed_index()));
    Ok(Outcome { batches, failure })
}

fn run_stream(case: &Case) -> Result<Outcome, String> {
    let (pull_panic, load_panic) = match case.fault {
        Fault::Pull(item) => (Some(item), None),
        Fault::Load(item) => (None, Some(item)),
        Fault::None => (None, None),
    };
    let mut loader = StreamLoader::from_shards(
        case.shards.clone(),
        move |shard: &Range<u64>| {
            shard.clone().inspect(move |&x| {
                if Some(x) == pull_panic {
                    panic_any(Boom(x));
                }
            })
        },
        move |&x: &u64| {
            if Some(x) == load_panic {
                panic_any(Boom(x));
            }
            x
        },
        Arc::clone(&executors()[case.executor].1),
    )
    .batch_size(case.batch)
    .ordered(case.ordered)
    .partial(case.partial)
    .interleave(case.interleave);
    if let Some(buffer) = case.buffer {
        loader = loader.buffer(buffer);
    }
    if let Some((size, seed)) = case.shuffle {
        loader = loader.shuffle_buffer(size, seed);
    }
    if let Some(window) = case.window {
        loader = loader.window(window);
    }
    let mut epoch = loader.iter();
    let (batches, payload) = consume(&mut epoch);
    let failure = boom(payload)?.map(|b| (b, epoch.failed_position()));
    Ok(Outcome { batches, failure })
}

/// Why `got` disagrees with `want`, if it does. Unordered, `got` may hold, besides the model's
/// batches, batches of the whole epoch (`all`) after the failing one that finished first.
fn disagreement(case: &Case, got: &Outcome, want: &Outcome, all: &Outcome) -> Option<String> {
    if got.failure != want.failure {
        return Some(format!(
            "failure: got {:?}, want {:?}",
            got.failure, want.failure
        ));
    }
    if case.ordered || want.failure.is_none() {
        let sorted = |o: &Outcome| {
            let mut b = o.batches.clone();
            if !case.ordered {
                b.sort_unstable();
            }
            b
        };
        let (g, w) = (sorted(got), sorted(want));
        if g != w {
            let first = g
                .iter()
                .zip(&w)
                .position(|(a, b)| a != b)
                .unwrap_or(g.len().min(w.len()));
            return Some(format!(
                "{} batches delivered, {} expected; first difference at batch {first}: got \
                 {:?}, want {:?}",
                g.len(),
                w.len(),
                g.get(first),
                w.get(first)
            ));
        }
        return None;
    }
    let mut got_sorted = got.batches.clone();
    got_sorted.sort_unstable();
    if let Some(twice) = got_sorted.windows(2).find(|w| w[0] == w[1]) {
        return Some(format!("batch delivered twice: {:?}", twice[0]));
    }
    if let Some(missing) = want.batches.iter().find(|b| !got.batches.contains(b)) {
        return Some(format!(
            "a batch before the failure is missing: {missing:?}"
        ));
    }
    let failing = all.batches.get(want.batches.len());
    if let Some(stray) = got
        .batches
        .iter()
        .find(|b| Some(*b) == failing || !all.batches.contains(b))
    {
        return Some(format!("not a batch the epoch may deliver: {stray:?}"));
    }
    None
}

/// Keeps the injected panics off stderr; any other panic is reported as usual.
fn quiet_injected_panics() {
    static HOOK: OnceLock<()> = OnceLock::new();
    HOOK.get_or_init(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !info.payload().is::<Boom>() {
                previous(info);
            }
        }));
    });
}

/// Runs `BASE_CASES` × scale cases of `group` (or only `FOLDEX_FAULT_CASE`), each against the
/// model, and fails with every disagreement (the first ten in full) and how to reproduce them.
fn run_group(
    group: &'static str,
    stream: bool,
    model: fn(&Case) -> Outcome,
    run: fn(&Case) -> Result<Outcome, String>,
) {
    quiet_injected_panics();
    let knobs = knobs();
    let count = BASE_CASES * knobs.scale;
    let cases = knobs.only.map_or(0..count, |only| only..only + 1);
    let started = Instant::now();
    let mut disagreements: Vec<String> = Vec::new();
    let (mut loads, mut pulls, mut failed) = (0, 0, 0);
    for n in cases.clone() {
        let case = draw(&mut Rng::for_case(knobs.seed, group, n), stream);
        match case.fault {
            Fault::Load(_) => loads += 1,
            Fault::Pull(_) => pulls += 1,
            Fault::None => {}
        }
        let what = format!("differential `{group}` case #{n}, seed {:#x}", knobs.seed);
        let verdict = foldex_testkit::watchdog(&format!("{what}: {case:?}"), || {
            let want = model(&case);
            let all = model(&Case {
                fault: Fault::None,
                ..case.clone()
            });
            failed += usize::from(want.failure.is_some());
            match run(&case) {
                Ok(got) => disagreement(&case, &got, &want, &all),
                Err(foreign) => Some(foreign),
            }
        });
        if let Some(why) = verdict {
            disagreements.push(format!(
                "{what} on {}: {why}\n  case: {case:?}\n  reproduce: FOLDEX_FAULT_SEED={:#x} \
                 FOLDEX_FAULT_CASE={n} cargo test -p foldex-loader --test differential {group} \
                 -- --exact",
                executors()[case.executor].0,
                knobs.seed,
            ));
        }
    }
    println!(
        "differential `{group}`: {} cases ({loads} with a panic in get or compute, {pulls} \
         while pulling; {failed} epochs that must fail), seed {:#x}, {:.2?}, {} disagreements",
        cases.len(),
        knobs.seed,
        started.elapsed(),
        disagreements.len()
    );
    if !disagreements.is_empty() {
        let shown: Vec<&str> = disagreements.iter().take(10).map(String::as_str).collect();
        panic!(
            "{} of {} cases disagree with the model:\n{}",
            disagreements.len(),
            cases.len(),
            shown.join("\n")
        );
    }
}

#[test]
fn loader() {
    run_group("loader", false, loader_model, run_loader);
}

#[test]
fn stream_loader() {
    run_group("stream_loader", true, stream_model, run_stream);
}
