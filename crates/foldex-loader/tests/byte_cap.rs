//! The byte cap (`max_buffer_bytes`): batches of large items held under it where an uncapped
//! loader holds more, every observation exactly once and in order under random caps, a cap
//! smaller than one batch, and the verdict "capped by bytes".
//!
//! The bound checked is the one `Loader::max_buffer_bytes` states, for batches of any sizes:
//! the bytes held (as the stats measure them) never exceed the cap plus the largest batch
//! (unordered) or plus twice it (ordered); and what the process holds besides is at most the
//! batches being made, one per thread that makes them at each depth of nesting, and the
//! consumer's batch.

mod common;

use foldex_core::exec::WhileWaiting;
use foldex_core::{Executor, ExecutorExt, Job, Partial};
use foldex_dataset::{from_fn, rng_for, Dataset};
use foldex_loader::stats::Verdict;
use foldex_loader::{ByteSize, Loader, Stats, StreamLoader};
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use rand::RngExt;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

const MIB: usize = 1 << 20;

/// Bytes of observations alive (made and not yet dropped), and the most ever alive: what the
/// process really held, counted apart from the loader's own measure.
#[derive(Default)]
struct Live {
    now: AtomicUsize,
    peak: AtomicUsize,
}

/// An observation of one MiB (or of `len` bytes) that counts itself in a [`Live`] while it
/// exists.
struct Big {
    index: usize,
    bytes: Vec<u8>,
    live: Arc<Live>,
}

impl Big {
    fn new(index: usize, live: &Arc<Live>) -> Self {
        Self::sized(index, MIB, live)
    }

    fn sized(index: usize, len: usize, live: &Arc<Live>) -> Self {
        let now = live.now.fetch_add(len, Ordering::Relaxed) + len;
        live.peak.fetch_max(now, Ordering::Relaxed);
        Big {
            index,
            bytes: vec![index as u8; len],
            live: Arc::clone(live),
        }
    }
}

impl Drop for Big {
    fn drop(&mut self) {
        self.live.now.fetch_sub(self.bytes.len(), Ordering::Relaxed);
    }
}

impl ByteSize for Big {
    fn byte_size(&self) -> usize {
        std::mem::size_of::<Self>() + self.bytes.byte_size() - std::mem::size_of::<Vec<u8>>()
    }
}

struct Bigs {
    len: usize,
    live: Arc<Live>,
}

impl Dataset for Bigs {
    type Item = Big;
    fn len(&self) -> usize {
        self.len
    }
    fn get(&self, index: usize) -> Big {
        Big::new(index, &self.live)
    }
}

/// Runs one epoch of `loader`, slowly (the consumer takes 2 ms per batch, so that producers
/// fill whatever the loader lets them), checking every observation once, in order when
/// `ordered`; returns the epoch's stats.
fn slow_epoch(loader: &Loader<Bigs>, ordered: bool, what: &str) -> Stats {
    let mut epoch = loader.iter();
    let mut seen = Vec::new();
    for batch in epoch.by_ref() {
        thread::sleep(Duration::from_millis(2));
        for big in &batch {
            let ends = [big.bytes[0], big.bytes[MIB - 1]];
            assert_eq!(ends, [big.index as u8; 2], "{what}");
            seen.push(big.index);
        }
    }
    if !ordered {
        seen.sort_unstable();
    }
    assert_eq!(
        seen,
        (0..loader.dataset().len).collect::<Vec<_>>(),
        "{what}"
    );
    epoch.stats()
}

#[test]
fn large_items_stay_under_the_cap_while_an_uncapped_loader_holds_more() {
    let (len, buffer, cap) = (40, 24, 2 * MIB);
    for (name, executor) in common::executors() {
        for ordered in [true, false] {
            let what = format!("{name}, ordered {ordered}");
            watchdog(&what, || {
                let loader = |capped: bool| {
                    let live = Arc::new(Live::default());
                    let data = Bigs {
                        len,
                        live: Arc::clone(&live),
                    };
                    let loader = Loader::new(data, Arc::clone(executor))
                        .buffer(buffer)
                        .ordered(ordered);
                    let loader = if capped {
                        loader.max_buffer_bytes(cap)
                    } else {
                        // A cap never reached: the same loader, measured.
                        loader.max_buffer_bytes(usize::MAX)
                    };
                    (loader, live)
                };
                let (capped, capped_live) = loader(true);
                let stats = slow_epoch(&capped, ordered, &what);
                let batch = stats.largest_batch_bytes;
                assert!(batch > MIB && batch < MIB + 256, "{what}: {batch}");
                assert_eq!(stats.max_buffer_bytes, Some(cap), "{what}");
                assert!(
                    stats.peak_bytes <= cap + 2 * batch,
                    "{what}: {} bytes held, cap {cap}",
                    stats.peak_bytes
                );
                // What was alive besides: a batch per producing thread and the consumer's.
                let workers = executor.workers();
                let alive = capped_live.peak.load(Ordering::Relaxed);
                assert!(alive <= cap + (workers + 3) * MIB, "{what}: {alive} alive");

                let (uncapped, uncapped_live) = loader(false);
                let stats = slow_epoch(&uncapped, ordered, &what);
                let held = stats.peak_bytes;
                let alive = uncapped_live.peak.load(Ordering::Relaxed);
                assert!(alive >= held / batch * MIB, "{what}: {alive} alive");
                assert!(
                    held > cap + 2 * batch,
                    "{what}: uncapped, only {held} bytes held"
                );
            });
        }
    }
}

/// How the observations' sizes run over an epoch (in index order, which is the batches' order:
/// no shuffle).
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// Each of a random size in `0..2 MiB`.
    Random,
    /// From nearly nothing up to 2 MiB.
    Growing,
    /// From 2 MiB down to nearly nothing.
    Shrinking,
    /// Up to 64 KiB, but one of 8 MiB at a random place.
    Outlier,
    /// Up to 1 KiB, then 2 MiB from a random place on, each made slowly: threads that reserve
    /// room for a batch as large as the largest so far do so for the small ones, and make
    /// large ones at once.
    Step,
}

impl Shape {
    /// The size of observation `i` of `len`, in case `case`.
    fn size(self, case: usize, i: usize, len: usize, outlier: usize) -> usize {
        match self {
            Shape::Random => rng_for(0x51E5, case as u64, i).random_range(0..2 * MIB),
            Shape::Growing => (i + 1) * 2 * MIB / len,
            Shape::Shrinking => (len - i) * 2 * MIB / len,
            Shape::Outlier if i == outlier => 8 * MIB,
            Shape::Outlier => rng_for(0x51E5, case as u64, i).random_range(0..64 * 1024),
            Shape::Step if i >= outlier => 2 * MIB,
            Shape::Step => rng_for(0x51E5, case as u64, i).random_range(0..1024),
        }
    }
}

/// Runs every piece of a job as a thread that helps while it waits for something below it
/// (a pool worker waiting for a nested fold) does: `threads` scoped threads take one index at
/// a time, through `Job::run_while_waiting`. Such a thread cannot wait for the byte cap, so
/// many at once make batches they reserved room for.
struct HelpersEx {
    threads: usize,
}

impl Executor for HelpersEx {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let len = job.len();
        let next = AtomicUsize::new(0);
        let done = Mutex::new(BTreeMap::new());
        thread::scope(|s| {
            for _ in 0..self.threads {
                s.spawn(|| {
                    while !job.is_stopped(0) {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= len {
                            break;
                        }
                        let partial = WhileWaiting(job).run(i..i + 1);
                        done.lock().unwrap().insert(i, partial);
                    }
                });
            }
        });
        // Once the job says it is stopped, the indices nobody took run as one piece.
        let mut done = done.into_inner().unwrap();
        let taken = next.into_inner().min(len);
        if taken < len || len == 0 {
            done.insert(taken, job.run(taken..len));
        }
        let mut parts = done.into_values();
        let first = parts.next().expect("at least one piece");
        parts.fold(first, |acc, p| job.combine(acc, p))
    }

    fn workers(&self) -> usize {
        self.threads
    }
}

thread_local! {
    /// How many `get`s run on this thread's stack now (a nested fold's wait runs others).
    static DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Batches of observations whose sizes vary (growing, shrinking, random, one outlier far over
/// the cap), random caps and buffers, every executor (the consumer helping where the executor
/// lends it work), ordered and not, some `get`s running a fold nested on the same executor (so
/// that pool threads make batches while they wait): every observation once, in order when
/// ordered; the loader's peak within the stated bound; and what was alive within it plus the
/// batches being made and the consumer's.
#[test]
fn batches_of_any_sizes_stay_within_the_stated_bound() {
    let shapes = [
        Shape::Random,
        Shape::Growing,
        Shape::Shrinking,
        Shape::Outlier,
        Shape::Step,
    ];
    let helpers: Arc<dyn Executor> = Arc::new(HelpersEx { threads: 6 });
    let helpers = [("HelpersEx 6 threads", helpers)];
    let executors = common::executors().iter().chain(&helpers);
    let mut case = 0usize;
    for (name, executor) in executors {
        for ordered in [true, false] {
            for shape in shapes {
                case += 1;
                let mut rng = rng_for(0xB16, 1, case);
                let len = rng.random_range(8..33usize);
                let batch_size = rng.random_range(1..4usize);
                let buffer = rng.random_range(2..17usize);
                let cap = rng.random_range(MIB / 4..4 * MIB);
                let nested = rng.random_range(0..2u8) == 0;
                let outlier = rng.random_range(0..len);
                let what = format!(
                    "case {case}: {name}, ordered {ordered}, {shape:?}, len {len}, batch_size \
                     {batch_size}, buffer {buffer}, cap {cap}, nested folds {nested}"
                );
                watchdog(&what, || {
                    let live = Arc::new(Live::default());
                    let depth = Arc::new(AtomicUsize::new(0));
                    let (alive, deepest, fold_on) =
                        (Arc::clone(&live), Arc::clone(&depth), Arc::clone(executor));
                    let data = from_fn(len, move |i| {
                        let here = DEPTH.with(|d| {
                            d.set(d.get() + 1);
                            d.get()
                        });
                        deepest.fetch_max(here, Ordering::Relaxed);
                        let size = shape.size(case, i, len, outlier);
                        if matches!(shape, Shape::Step) && size == 2 * MIB {
                            thread::sleep(Duration::from_millis(5));
                        }
                        if nested && i % 3 == 0 {
                            let sum: usize =
                                fold_on.map_reduce(0..8usize, |x| x, || 0, |a, b| a + b);
                            assert_eq!(sum, 28);
                        }
                        let big = Big::sized(i, size, &alive);
                        DEPTH.with(|d| d.set(d.get() - 1));
                        big
                    });
                    let loader = Loader::new(data, Arc::clone(executor))
                        .batch_size(batch_size)
                        .buffer(buffer)
                        .ordered(ordered)
                        .max_buffer_bytes(cap);
                    let mut epoch = loader.iter();
                    let mut seen = Vec::new();
                    for batch in epoch.by_ref() {
                        thread::sleep(Duration::from_millis(1));
                        for big in &batch {
                            let last = big.bytes.last().copied();
                            assert!(last.is_none_or(|b| b == big.index as u8), "{what}");
                            seen.push(big.index);
                        }
                    }
                    if !ordered {
                        seen.sort_unstable();
                    }
                    assert_eq!(seen, (0..len).collect::<Vec<_>>(), "{what}");
                    let stats = epoch.stats();
                    let largest = stats.largest_batch_bytes;
                    let bound = cap + if ordered { 2 } else { 1 } * largest;
                    assert!(
                        stats.peak_bytes <= bound,
                        "{what}: {} bytes held, bound {bound}: {stats:?}",
                        stats.peak_bytes
                    );
                    // Besides: a batch being made per thread that makes them (the pool's, the
                    // loader's driver, the consumer) at each depth of nesting, and the
                    // consumer's batch.
                    let makers = executor.workers() + 2;
                    let depth = depth.load(Ordering::Relaxed);
                    let alive = live.peak.load(Ordering::Relaxed);
                    let besides = (makers * depth + 1) * largest;
                    assert!(
                        alive <= bound + besides,
                        "{what}: {alive} bytes alive, bound {bound} + {besides}"
                    );
                });
            }
        }
    }
}

/// Six threads that cannot wait for the cap make batches at once, tiny ones and then, from
/// the ninth on, ones of 2 MiB made slowly: each reserved room for a tiny batch and makes a
/// large one. One reservation at a time keeps the bytes held within the cap plus two batches
/// where six reservations would hold six.
#[test]
fn threads_that_cannot_wait_overshoot_their_room_one_at_a_time() {
    for ordered in [true, false] {
        let what = format!("HelpersEx 6 threads, ordered {ordered}");
        watchdog(&what, || {
            let live = Arc::new(Live::default());
            let alive = Arc::clone(&live);
            let data = from_fn(40, move |i| {
                let len = if i >= 8 { 2 * MIB } else { 100 };
                if len > 100 {
                    thread::sleep(Duration::from_millis(5));
                }
                Big::sized(i, len, &alive)
            });
            let loader = Loader::new(data, HelpersEx { threads: 6 })
                .buffer(32)
                .ordered(ordered)
                .max_buffer_bytes(MIB);
            let mut epoch = loader.iter();
            let mut seen = Vec::new();
            for batch in epoch.by_ref() {
                thread::sleep(Duration::from_millis(2));
                seen.extend(batch.iter().map(|big| big.index));
            }
            if !ordered {
                seen.sort_unstable();
            }
            assert_eq!(seen, (0..40).collect::<Vec<_>>(), "{what}");
            let stats = epoch.stats();
            let largest = stats.largest_batch_bytes;
            assert!(largest >= 2 * MIB, "{what}: {stats:?}");
            assert!(
                stats.peak_bytes <= MIB + 2 * largest,
                "{what}: {} bytes held: {stats:?}",
                stats.peak_bytes
            );
        });
    }
}

#[test]
fn random_caps_deliver_every_observation_once_and_in_order_resumed_too() {
    let executors = common::executors();
    for case in 0..200u64 {
        let mut rng = rng_for(0xB17E, 0, case as usize);
        let len = rng.random_range(0..150usize);
        let batch_size = rng.random_range(1..9usize);
        let buffer = rng.random_range(1..9usize);
        let cap = rng.random_range(1..4_000usize);
        let ordered = rng.random_range(0..2u8) == 0;
        let (name, executor) = &executors[rng.random_range(0..executors.len())];
        let what = format!(
            "case {case}: {name}, len {len}, batch_size {batch_size}, buffer {buffer}, \
             cap {cap}, ordered {ordered}"
        );
        watchdog(&what, || {
            // Observations of one size, 0 to 300 bytes besides their index: batches of one
            // size, but for the last (sizes that vary: the test above).
            let size = rng.random_range(0..301usize);
            let data = from_fn(len, move |i| (i, vec![i as u8; size]));
            let loader = Loader::new(data, Arc::clone(executor))
                .batch_size(batch_size)
                .buffer(buffer)
                .shuffle(case)
                .ordered(ordered)
                .max_buffer_bytes(cap);
            for epoch in 0..2 {
                let mut iter = loader.iter();
                let mut seen: Vec<usize> = iter.by_ref().flatten().map(|(i, _)| i).collect();
                let stats = iter.stats();
                assert!(
                    stats.peak_bytes <= cap + 2 * stats.largest_batch_bytes,
                    "{what}: {stats:?}"
                );
                let mut expected: Vec<usize> = loader.epoch_order(epoch).iter().collect();
                if !ordered {
                    seen.sort_unstable();
                    expected.sort_unstable();
                }
                assert_eq!(seen, expected, "{what}, epoch {epoch}");
            }
            // Stopped at a random batch and resumed: the rest, exactly once, in order.
            let stop = rng.random_range(0..=loader.len());
            let mut first = loader.iter();
            let mut seen: Vec<usize> = first
                .by_ref()
                .take(stop)
                .flatten()
                .map(|(i, _)| i)
                .collect();
            let state = first.state();
            drop(first);
            let rest = loader.resume(&state).expect("the same loader's state");
            seen.extend(rest.flatten().map(|(i, _)| i));
            let mut expected: Vec<usize> = loader.epoch_order(2).iter().collect();
            if !ordered {
                seen.sort_unstable();
                expected.sort_unstable();
            }
            assert_eq!(seen, expected, "{what}, resumed after {stop} batches");
        });
    }
}

#[test]
fn a_cap_smaller_than_one_batch_delivers_every_batch_alone() {
    for (name, executor) in common::executors() {
        for ordered in [true, false] {
            let what = format!("{name}, ordered {ordered}");
            watchdog(&what, || {
                let data = from_fn(60, |i| vec![i as u8; 1000]);
                let loader = Loader::new(data, Arc::clone(executor))
                    .batch_size(3)
                    .ordered(ordered)
                    .max_buffer_bytes(1);
                let mut epoch = loader.iter();
                let mut seen: Vec<usize> = epoch
                    .by_ref()
                    .flatten()
                    .map(|item| usize::from(item[0]))
                    .collect();
                if !ordered {
                    seen.sort_unstable();
                }
                assert_eq!(seen, (0..60).collect::<Vec<_>>(), "{what}");
                let stats = epoch.stats();
                assert!(
                    stats.peak_bytes <= 1 + 2 * stats.largest_batch_bytes,
                    "{what}: {stats:?}"
                );
                // Dropping an epoch whose producers wait for the cap returns.
                let mut early = loader.iter();
                assert!(early.next().is_some(), "{what}");
                drop(early);
            });
        }
    }
}

#[test]
fn reused_batches_are_measured_by_the_batch_their_guard_holds() {
    for (name, executor) in common::executors() {
        for ordered in [true, false] {
            let what = format!("{name}, ordered {ordered}");
            watchdog(&what, || {
                let data = from_fn(90, |i| vec![i as u32; 500]);
                let loader = Loader::new(data, Arc::clone(executor))
                    .batch_size(3)
                    .buffer(12)
                    .ordered(ordered)
                    .max_buffer_bytes(4 * 6_000)
                    .reuse_buffers(true);
                for _ in 0..2 {
                    let mut epoch = loader.iter();
                    let mut seen = Vec::new();
                    for batch in epoch.by_ref() {
                        seen.extend(batch.iter().map(|item| item[0] as usize));
                    }
                    if !ordered {
                        seen.sort_unstable();
                    }
                    assert_eq!(seen, (0..90).collect::<Vec<_>>(), "{what}");
                    let stats = epoch.stats();
                    assert!(stats.largest_batch_bytes >= 6_000, "{what}: {stats:?}");
                    assert!(
                        stats.peak_bytes <= 4 * 6_000 + 2 * stats.largest_batch_bytes,
                        "{what}: {stats:?}"
                    );
                }
            });
        }
    }
}

#[test]
fn a_stream_loader_holds_its_cap_too() {
    for (name, executor) in common::executors() {
        for ordered in [true, false] {
            let what = format!("{name}, ordered {ordered}");
            watchdog(&what, || {
                let loader = StreamLoader::new(
                    || 0..200usize,
                    |&i: &usize| vec![i as u32; 256],
                    Arc::clone(executor),
                )
                .batch_size(4)
                .buffer(16)
                .ordered(ordered)
                .max_buffer_bytes(8 * 1024);
                let mut epoch = loader.iter();
                let mut seen: Vec<usize> = epoch
                    .by_ref()
                    .flatten()
                    .map(|item| item[0] as usize)
                    .collect();
                if !ordered {
                    seen.sort_unstable();
                }
                assert_eq!(seen, (0..200).collect::<Vec<_>>(), "{what}");
                let stats = epoch.stats();
                assert!(stats.largest_batch_bytes > 4 * 1024, "{what}");
                assert!(
                    stats.peak_bytes <= 8 * 1024 + 2 * stats.largest_batch_bytes,
                    "{what}: {stats:?}"
                );
            });
        }
    }
}

#[test]
fn a_cap_that_keeps_a_bursty_consumer_waiting_is_the_verdict() {
    // Items cost 3 ms; the consumer takes 30 ms on every 16th batch and nothing on the
    // others. Capped at one batch, the producers cannot work ahead during the long steps, so
    // the consumer then waits for each batch; uncapped, they fill the buffer meanwhile.
    let run = |capped: bool| {
        let data = from_fn(64, |i| {
            thread::sleep(Duration::from_millis(3));
            vec![i as u8; 100]
        });
        let loader = Loader::new(data, ThreadedEx::new().threads(3).basesize(1)).buffer(32);
        let loader = if capped {
            loader.max_buffer_bytes(1)
        } else {
            loader
        };
        let mut epoch = loader.iter();
        for (n, _batch) in epoch.by_ref().enumerate() {
            if n % 16 == 0 {
                thread::sleep(Duration::from_millis(30));
            }
        }
        epoch.stats()
    };
    watchdog("bursty consumer", || {
        let capped = run(true);
        assert_eq!(capped.verdict(), Verdict::CappedByBytes, "{capped}");
        assert!(capped.to_string().contains("capped by bytes: "), "{capped}");
        let uncapped = run(false);
        assert_ne!(uncapped.verdict(), Verdict::CappedByBytes, "{uncapped}");
        assert_eq!(uncapped.peak_bytes, 0, "nothing is measured without a cap");
    });
}

#[test]
fn a_zero_cap_or_a_collate_after_the_cap_is_refused_by_name() {
    let message = |f: Box<dyn FnOnce()>| {
        let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("refused");
        foldex_core::exec::message(&*payload).to_owned()
    };
    let zero = message(Box::new(|| {
        Loader::new(from_fn(3, |i| vec![i]), ThreadedEx::new()).max_buffer_bytes(0);
    }));
    assert!(
        zero.contains("max_buffer_bytes must be at least 1, got 0"),
        "{zero}"
    );
    let stream_zero = message(Box::new(|| {
        StreamLoader::new(|| 0..3u8, |&i: &u8| i, ThreadedEx::new()).max_buffer_bytes(0);
    }));
    assert!(stream_zero.contains("max_buffer_bytes"), "{stream_zero}");
    let late = message(Box::new(|| {
        Loader::new(from_fn(3, |i| vec![i]), ThreadedEx::new())
            .max_buffer_bytes(100)
            .collate(|xs: Vec<Vec<usize>>| xs.len());
    }));
    assert!(
        late.contains("collate must come before max_buffer_bytes"),
        "{late}"
    );
}
