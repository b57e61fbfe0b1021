//! The parallel sorts (`foldex_pipeline::sort::ParallelSort`) against std's sorts of the same
//! name, on several executors through `&dyn Executor`: lengths 0, 1, 2, primes and 10^5, with
//! duplicates, sorted, reversed; stability with `(key, original index)` pairs; comparators
//! that are not a total order; elements that own heap data over random settings; and panic
//! safety (rayon's `tests/sort-panic-safe.rs`, ported:
//! drop counters and versions, a panic after every tenth of the comparisons).

use foldex_auto::AutoEx;
use foldex_core::exec::JoinHalf;
use foldex_core::{Executor, Job, Partial};
use foldex_pipeline::sort::ParallelSort;
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::cell::Cell;
use std::cmp::Ordering;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

const LENGTHS: [usize; 10] = [0, 1, 2, 3, 7, 31, 97, 1009, 20_011, 100_000];

/// Runs the whole job on the calling thread, and both halves of a join there, in order, but
/// says it has four workers: the sorts' parallel paths, deterministic, on one thread.
struct FourOnOne;
impl Executor for FourOnOne {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        job.run(0..job.len())
    }
    fn workers(&self) -> usize {
        4
    }
}

fn executors() -> Vec<(&'static str, Box<dyn Executor>)> {
    vec![
        ("SequentialEx", Box::new(SequentialEx)),
        ("FourOnOne", Box::new(FourOnOne)),
        ("ThreadedEx(2)", Box::new(ThreadedEx::new().threads(2))),
        ("TaskPoolEx(3)", Box::new(TaskPoolEx::new().ntasks(3))),
        ("AutoEx", Box::new(AutoEx::new())),
    ]
}

/// A fixed pseudo-random sequence (xorshift64).
fn random(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// Inputs of `len` keys: random with many duplicates, random over a wide range, sorted,
/// reversed, and sorted with a few swaps.
fn inputs(len: usize) -> Vec<(&'static str, Vec<u32>)> {
    let mut next = random(len as u64 + 7);
    let few: Vec<u32> = (0..len).map(|_| (next() % 5) as u32).collect();
    let wide: Vec<u32> = (0..len).map(|_| next() as u32).collect();
    let sorted: Vec<u32> = (0..len as u32).collect();
    let reversed: Vec<u32> = sorted.iter().rev().copied().collect();
    let mut nearly = sorted.clone();
    for _ in 0..len / 100 + 1 {
        if len > 1 {
            let (a, b) = (next() as usize % len, next() as usize % len);
            nearly.swap(a, b);
        }
    }
    vec![
        ("duplicates", few),
        ("wide", wide),
        ("sorted", sorted),
        ("reversed", reversed),
        ("nearly sorted", nearly),
    ]
}

/// `check(ex, keys, what)` for every executor, length and input.
fn each_case(name: &str, check: impl Fn(&dyn Executor, &[u32], &str)) {
    for (ex_name, ex) in &executors() {
        for len in LENGTHS {
            watchdog(&format!("{name}, {ex_name}, len {len}"), || {
                for (input, keys) in inputs(len) {
                    check(
                        &**ex,
                        &keys,
                        &format!("{name}, {ex_name}, len {len}, {input}"),
                    );
                }
            });
        }
    }
}

/// The keys paired with their index: equal keys tell apart by where they were.
fn indexed(keys: &[u32]) -> Vec<(u32, usize)> {
    keys.iter().copied().zip(0..).collect()
}

#[test]
fn stable_sorts_give_std_result() {
    each_case("stable", |ex, keys, what| {
        let mut want = indexed(keys);
        want.sort_by_key(|p| p.0);

        let mut v = indexed(keys);
        v.par_sort_by_key(ex, |p| p.0);
        assert_eq!(v, want, "par_sort_by_key: {what}");

        let mut v = indexed(keys);
        v.par_sort_by(ex, |a, b| a.0.cmp(&b.0));
        assert_eq!(v, want, "par_sort_by: {what}");

        let mut v = indexed(keys);
        v.par_sort_by_cached_key(ex, |p| p.0.to_string().len() * 1000 + p.0 as usize % 1000);
        let mut cached = indexed(keys);
        cached.sort_by_cached_key(|p| p.0.to_string().len() * 1000 + p.0 as usize % 1000);
        assert_eq!(v, cached, "par_sort_by_cached_key: {what}");

        let mut v = keys.to_vec();
        v.par_sort(ex);
        let mut plain = keys.to_vec();
        plain.sort();
        assert_eq!(v, plain, "par_sort: {what}");

        // Descending, with equal keys still in their original order.
        let mut v = indexed(keys);
        v.par_sort_by(ex, |a, b| b.0.cmp(&a.0));
        let mut down = indexed(keys);
        down.sort_by_key(|p| std::cmp::Reverse(p.0));
        assert_eq!(v, down, "par_sort_by descending: {what}");
    });
}

#[test]
fn unstable_sorts_give_std_result() {
    each_case("unstable", |ex, keys, what| {
        let mut v = keys.to_vec();
        v.par_sort_unstable(ex);
        let mut want = keys.to_vec();
        want.sort_unstable();
        assert_eq!(v, want, "par_sort_unstable: {what}");

        let mut v = keys.to_vec();
        v.par_sort_unstable_by(ex, |a, b| b.cmp(a));
        want.reverse();
        assert_eq!(v, want, "par_sort_unstable_by: {what}");

        // By key: the keys in order, each pair kept (equal keys in any order).
        let mut v = indexed(keys);
        v.par_sort_unstable_by_key(ex, |p| p.0);
        assert!(v.windows(2).all(|w| w[0].0 <= w[1].0), "sorted: {what}");
        v.sort_unstable();
        assert_eq!(v, indexed(keys).tap_sort(), "a permutation: {what}");
    });
}

#[test]
fn strings_sort_as_std_does() {
    watchdog("strings", || {
        let mut next = random(3);
        let words: Vec<String> = (0..30_011)
            .map(|_| {
                let len = (next() % 6) as usize;
                (0..len)
                    .map(|_| char::from(b'a' + (next() % 4) as u8))
                    .collect()
            })
            .collect();
        let mut want = words.clone();
        want.sort();
        for (ex_name, ex) in &executors() {
            let mut v = words.clone();
            v.par_sort(&**ex);
            assert_eq!(v, want, "par_sort on {ex_name}");
            let mut v = words.clone();
            v.par_sort_unstable(&**ex);
            assert_eq!(v, want, "par_sort_unstable on {ex_name}");
            let mut v = words.clone();
            v.par_sort_by_cached_key(&**ex, |w| w.len());
            let mut by_len = words.clone();
            by_len.sort_by_key(|w| w.len());
            assert_eq!(v, by_len, "par_sort_by_cached_key on {ex_name}");
        }
    });
}

/// Property: the unstable sorts of elements that own heap data (which take the block
/// partition and the sort's own quicksort down to small slices, where plain values take
/// Lomuto's partition and std's sort) give std's result, over random settings: lengths (0, 1,
/// primes, random up to 60 000), key ranges (all equal to all distinct), inputs sorted,
/// reversed, or random, and a random executor each. A comparator that answers at random
/// leaves every element once and ends.
#[test]
fn owning_elements_sort_as_std_does() {
    const PRIMES: [usize; 8] = [2, 3, 31, 127, 8191, 8209, 16_411, 32_771];
    let executors = executors();
    let mut next = random(0x5EED);
    for case in 0..48 {
        let len = match case % 4 {
            0 => [0, 1][case / 4 % 2],
            1 => PRIMES[next() as usize % PRIMES.len()],
            _ => next() as usize % 60_000,
        };
        let keys = [1, 2, 10, 1000, u64::MAX][next() as usize % 5];
        let (ex_name, ex) = &executors[next() as usize % executors.len()];
        let what = format!("case {case}: len {len}, keys {keys}, {ex_name}");
        watchdog(&what, || {
            let mut words: Vec<String> = (0..len).map(|_| format!("{:x}", next() % keys)).collect();
            match next() % 3 {
                0 => words.sort(),
                1 => words.sort_by(|a, b| b.cmp(a)),
                _ => {}
            }
            let mut want = words.clone();
            want.sort_unstable();

            let mut v = words.clone();
            v.par_sort_unstable(&**ex);
            assert_eq!(v, want, "par_sort_unstable: {what}");

            // Boxed keys with their index: sorted by key, each pair kept once.
            let boxed = |w: &[String]| -> Vec<(Box<str>, usize)> {
                w.iter().map(|w| Box::from(w.as_str())).zip(0..).collect()
            };
            let mut v = boxed(&words);
            v.par_sort_unstable_by(&**ex, |a, b| b.0.cmp(&a.0));
            assert!(v.windows(2).all(|w| w[0].0 >= w[1].0), "descending: {what}");
            v.sort_unstable();
            assert_eq!(v, boxed(&words).tap_sort(), "a permutation: {what}");

            let mut v = boxed(&words);
            let calls = AtomicUsize::new(0);
            let coin = |a: &(Box<str>, usize), b: &(Box<str>, usize)| {
                let n = calls.fetch_add(1, Relaxed) as u64;
                let h = (a.1 as u64 ^ (b.1 as u64) << 20 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                [Ordering::Less, Ordering::Equal, Ordering::Greater][(h >> 62) as usize % 3]
            };
            let _quiet = Quiet::new();
            let outcome =
                panic::catch_unwind(AssertUnwindSafe(|| v.par_sort_unstable_by(&**ex, coin)));
            if let Err(payload) = outcome {
                let message = foldex_core::exec::message(&*payload);
                assert!(
                    message.contains(STD_ORDER_PANIC),
                    "coin, {what}: {message:?}"
                );
            }
            v.sort_unstable();
            assert_eq!(v, boxed(&words).tap_sort(), "coin, a permutation: {what}");
        });
    }
}

trait TapSort {
    fn tap_sort(self) -> Self;
}
impl<T: Ord> TapSort for Vec<T> {
    fn tap_sort(mut self) -> Self {
        self.sort_unstable();
        self
    }
}

/// A comparator of `(key, index)` pairs.
type PairOrder<'a> = dyn Fn(&(u32, usize), &(u32, usize)) -> Ordering + Sync + 'a;

/// The message std's sorts panic with when they notice an order is not total.
const STD_ORDER_PANIC: &str = "total order";

/// Runs `sort` with comparators that are not a total order, on every executor: it returns or
/// panics as std's sorts may (with std's message), never loops, and leaves every element once.
fn not_a_total_order(
    name: &str,
    sort: impl Fn(&dyn Executor, &mut [(u32, usize)], &PairOrder<'_>),
) {
    let _quiet = Quiet::new();
    {
        let calls = AtomicUsize::new(0);
        let coin = |a: &(u32, usize), b: &(u32, usize)| {
            let n = calls.fetch_add(1, Relaxed) as u64;
            let h = (a.1 as u64 ^ (b.1 as u64) << 20 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            [Ordering::Less, Ordering::Equal, Ordering::Greater][(h >> 62) as usize % 3]
        };
        let less_or_equal = |a: &(u32, usize), b: &(u32, usize)| {
            if a.0 <= b.0 {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        };
        // Keys divisible by 7 compare equal to everything (as NaN does with `unwrap_or`).
        let nan_like = |a: &(u32, usize), b: &(u32, usize)| {
            if a.0.is_multiple_of(7) || b.0.is_multiple_of(7) {
                Ordering::Equal
            } else {
                a.0.cmp(&b.0)
            }
        };
        let comparators: [(&str, &PairOrder<'_>); 3] = [
            ("coin", &coin),
            ("less_or_equal", &less_or_equal),
            ("nan_like", &nan_like),
        ];
        for (ex_name, ex) in &executors() {
            watchdog(&format!("{name}, {ex_name}"), || {
                for len in [2, 97, 20_011] {
                    let keys: Vec<u32> = {
                        let mut next = random(len as u64);
                        (0..len).map(|_| (next() % 1000) as u32).collect()
                    };
                    for (cmp_name, cmp) in comparators {
                        let mut v = indexed(&keys);
                        let outcome =
                            panic::catch_unwind(AssertUnwindSafe(|| sort(&**ex, &mut v, cmp)));
                        if let Err(payload) = outcome {
                            let message = foldex_core::exec::message(&*payload);
                            assert!(
                            message.contains(STD_ORDER_PANIC),
                            "{name}, {ex_name}, len {len}, {cmp_name}: panicked with {message:?}"
                        );
                        }
                        v.sort_unstable();
                        assert_eq!(
                            v,
                            indexed(&keys).tap_sort(),
                            "{name}, {ex_name}, len {len}, {cmp_name}"
                        );
                    }
                }
            });
        }
    }
}

#[test]
fn stable_with_an_order_that_is_not_total() {
    not_a_total_order("par_sort_by", |ex, v, cmp| v.par_sort_by(ex, cmp));
}

#[test]
fn unstable_with_an_order_that_is_not_total() {
    not_a_total_order("par_sort_unstable_by", |ex, v, cmp| {
        v.par_sort_unstable_by(ex, cmp)
    });
}

/// Silences the messages of the panics a test makes on purpose (`SILENT` set on the panicking
/// thread, as rayon's test does) and of std's sorts noticing an order that is not total; other
/// panics print as usual.
struct Quiet;

thread_local!(static SILENT: Cell<bool> = const { Cell::new(false) });

impl Quiet {
    fn new() -> Self {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let previous = panic::take_hook();
            panic::set_hook(Box::new(move |info| {
                let order = foldex_core::exec::message(info.payload()).contains(STD_ORDER_PANIC);
                if !SILENT.get() && !order {
                    previous(info);
                }
            }));
        });
        Quiet
    }
}

/// Marks the current thread's coming panic as on purpose.
fn silence() {
    SILENT.set(true);
}

// ---------------------------------------------------------------------------------------------
// Panic safety: rayon's tests/sort-panic-safe.rs, ported.
// ---------------------------------------------------------------------------------------------

/// Drops and comparisons of one run of the test.
struct Counters {
    drops: Vec<AtomicUsize>,
    /// Versions handed out by comparisons, less those of the values dropped: 0 at the end if
    /// every value dropped was its latest version (no stale copy).
    versions: AtomicUsize,
}

impl Counters {
    fn new(len: usize) -> Self {
        Counters {
            drops: (0..len).map(|_| AtomicUsize::new(0)).collect(),
            versions: AtomicUsize::new(0),
        }
    }
}

/// Element `id` of `xs`, counted in `counters`.
fn counted<'c>(xs: &[u32], counters: &'c Counters) -> Vec<DropCounter<'c>> {
    xs.iter()
        .enumerate()
        .map(|(id, &x)| DropCounter {
            x,
            id,
            version: Cell::new(0),
            counters,
        })
        .collect()
}

struct DropCounter<'c> {
    x: u32,
    id: usize,
    version: Cell<usize>,
    counters: &'c Counters,
}

impl Clone for DropCounter<'_> {
    fn clone(&self) -> Self {
        DropCounter {
            x: self.x,
            id: self.id,
            version: Cell::new(0),
            counters: self.counters,
        }
    }
}

impl DropCounter<'_> {
    fn compare(&self, other: &Self) -> Ordering {
        self.version.set(self.version.get() + 1);
        other.version.set(other.version.get() + 1);
        self.counters.versions.fetch_add(2, Relaxed);
        self.x.cmp(&other.x)
    }
}

impl Drop for DropCounter<'_> {
    fn drop(&mut self) {
        self.counters.drops[self.id].fetch_add(1, Relaxed);
        self.counters
            .versions
            .fetch_sub(self.version.get(), Relaxed);
    }
}

type SortBy = fn(
    &dyn Executor,
    &mut [DropCounter<'_>],
    &(dyn Fn(&DropCounter<'_>, &DropCounter<'_>) -> Ordering + Sync),
);

/// rayon's `test!`: counts the comparisons a sort of `xs` makes, then sorts again panicking
/// after every tenth of them (every one when short), and checks each element is dropped once,
/// in its latest version, and that the panic is the comparator's.
fn panic_after_each_step(ex: &dyn Executor, xs: &[u32], sort: SortBy, what: &str) {
    let len = xs.len();
    let count = AtomicUsize::new(0);
    {
        let counters = Counters::new(len);
        let mut v = counted(xs, &counters);
        sort(ex, &mut v, &|a, b| {
            count.fetch_add(1, Relaxed);
            a.compare(b)
        });
    }
    let mut countdown = count.load(Relaxed);
    let step = if len <= 100 {
        1
    } else {
        (countdown / 10).max(1)
    };
    loop {
        let counters = Counters::new(len);
        let mut v = counted(xs, &counters);
        let left = AtomicUsize::new(countdown);
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            sort(ex, &mut v, &|a, b| {
                if left.fetch_sub(1, Relaxed) == 1 {
                    silence();
                    panic!("comparison {countdown}");
                }
                a.compare(b)
            })
        }));
        SILENT.set(false);
        match outcome {
            Ok(()) => assert_eq!(
                countdown, 0,
                "{what}: no panic after {countdown} comparisons"
            ),
            Err(payload) => assert_eq!(
                foldex_core::exec::message(&*payload),
                format!("comparison {countdown}"),
                "{what}: the comparator's own payload"
            ),
        }
        drop(v);
        for (id, drops) in counters.drops.iter().enumerate() {
            let drops = drops.load(Relaxed);
            assert_eq!(
                drops, 1,
                "{what}, countdown {countdown}: element {id} dropped {drops} times"
            );
        }
        assert_eq!(
            counters.versions.load(Relaxed),
            0,
            "{what}, countdown {countdown}: a stale copy was dropped"
        );
        if countdown < step {
            break;
        }
        countdown -= step;
    }
}

#[test]
fn sort_panic_safe() {
    let _quiet = Quiet::new();
    {
        let sorts: [(&str, SortBy); 2] = [
            ("par_sort_by", |ex, v, cmp| v.par_sort_by(ex, cmp)),
            ("par_sort_unstable_by", |ex, v, cmp| {
                v.par_sort_unstable_by(ex, cmp)
            }),
        ];
        let executors = executors();
        let mut next = random(11);
        for len in [1, 2, 3, 4, 5, 10, 20, 100, 500, 5_000, 20_000] {
            for modulus in [5, 30, 1_000, 20_000] {
                for has_runs in [false, true] {
                    let mut xs: Vec<u32> = (0..len).map(|_| (next() % modulus) as u32).collect();
                    if has_runs {
                        xs = (0..len as u32).collect();
                        for _ in 0..5 {
                            let (a, b) = (next() as usize % len, next() as usize % len);
                            if a < b {
                                xs[a..b].reverse();
                            } else {
                                xs.swap(a, b);
                            }
                        }
                    }
                    // Inputs long enough for the parallel paths on three executors, the others
                    // (std's sorts on each leaf) on one.
                    let on = if len >= 5_000 {
                        &executors[1..4]
                    } else {
                        &executors[1..2]
                    };
                    for (ex_name, ex) in on {
                        for (name, sort) in sorts {
                            let what = format!(
                                "{name}, {ex_name}, len {len}, modulus {modulus}, runs {has_runs}"
                            );
                            watchdog(&what, || panic_after_each_step(&**ex, &xs, sort, &what));
                        }
                    }
                }
            }
        }
    }
}

/// A key function that panics: the payload comes back, the slice keeps every element.
#[test]
fn key_function_panics_propagate() {
    let _quiet = Quiet::new();
    watchdog("key panics", || {
        for (ex_name, ex) in &executors() {
            let keys: Vec<u32> = (0..20_011).map(|i| i * 7919 % 20_011).collect();
            let sorts: [(&str, SortKeys); 3] = [
                ("par_sort_by_key", |ex, v| {
                    v.par_sort_by_key(ex, |&x| key_or_panic(x))
                }),
                ("par_sort_by_cached_key", |ex, v| {
                    v.par_sort_by_cached_key(ex, |&x| key_or_panic(x))
                }),
                ("par_sort_unstable_by_key", |ex, v| {
                    v.par_sort_unstable_by_key(ex, |&x| key_or_panic(x))
                }),
            ];
            for (name, sort) in sorts {
                let mut v = keys.clone();
                let payload = panic::catch_unwind(AssertUnwindSafe(|| sort(&**ex, &mut v)))
                    .expect_err("the key of 12345 panics");
                SILENT.set(false);
                assert_eq!(
                    foldex_core::exec::message(&*payload),
                    "key 12345",
                    "{name} on {ex_name}"
                );
                v.sort_unstable();
                assert_eq!(v, (0..20_011).collect::<Vec<u32>>(), "{name} on {ex_name}");
            }
        }
    });
}

/// A sort of `u32`s by a key.
type SortKeys = fn(&dyn Executor, &mut Vec<u32>);

fn key_or_panic(x: u32) -> u32 {
    if x == 12345 {
        silence();
        panic!("key 12345");
    }
    x
}

/// Runs only the first half of every join: a broken executor. The sort panics (the join
/// reports the executor bug), and every element is still in the slice once.
struct FirstHalfOnly;
impl Executor for FirstHalfOnly {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        job.run(0..job.len())
    }
    fn workers(&self) -> usize {
        2
    }
    fn join_halves(&self, first: JoinHalf<'_>, _second: JoinHalf<'_>) {
        first.run();
    }
}

#[test]
fn a_broken_executor_loses_no_element() {
    let _quiet = Quiet::new();
    let len = 50_000;
    let xs: Vec<u32> = (0..len as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % 1000)
        .collect();
    let sorts: [(&str, SortBy); 2] = [
        ("par_sort_by", |ex, v, cmp| v.par_sort_by(ex, cmp)),
        ("par_sort_unstable_by", |ex, v, cmp| {
            v.par_sort_unstable_by(ex, cmp)
        }),
    ];
    for (name, sort) in sorts {
        let counters = Counters::new(len);
        let mut v = counted(&xs, &counters);
        let payload = panic::catch_unwind(AssertUnwindSafe(|| {
            sort(&FirstHalfOnly, &mut v, &|a, b| a.compare(b))
        }))
        .expect_err("the join reports the executor bug");
        assert!(
            foldex_core::exec::message(&*payload).contains("executor bug"),
            "{name}"
        );
        drop(v);
        for (id, drops) in counters.drops.iter().enumerate() {
            assert_eq!(drops.load(Relaxed), 1, "{name}: element {id}");
        }
        assert_eq!(
            counters.versions.load(Relaxed),
            0,
            "{name}: a stale copy was dropped"
        );
    }
}
