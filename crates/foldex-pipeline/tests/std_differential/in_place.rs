//! In-place work: mutable slices, `chunks_mut`, a map written into an output slice, a `Vec` by
//! value, `scan` over items handed out once, and `collect::<Vec<_>>` written in place, on every
//! executor configuration; with panics, every element is dropped exactly once, and a second run
//! over items handed out once is refused, saying so.

use foldex_core::{Basesize, Executor};
use foldex_pipeline::{from_vec, IntoPipeline};
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::{watchdog, InlineUpTo};
use foldex_threaded::ThreadedEx;
use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicIsize, Ordering};

const LENGTHS: [usize; 8] = [0, 1, 2, 7, 31, 97, 1009, 100_000];

fn executors() -> Vec<(String, Box<dyn Executor>)> {
    let fixed = |n| Basesize::Fixed(NonZeroUsize::new(n).unwrap());
    // SequentialEx runs every fold inline, with no job; the wrapper hands folds of more than
    // 31 items to SequentialEx's `execute`, as a job.
    let mut all: Vec<(String, Box<dyn Executor>)> = vec![
        ("SequentialEx".into(), Box::new(SequentialEx)),
        (
            "SequentialEx inline up to 31".into(),
            Box::new(InlineUpTo {
                up_to: 31,
                ex: SequentialEx,
            }),
        ),
    ];
    for basesize in [Basesize::Auto, fixed(1), fixed(7), fixed(4096)] {
        all.push((
            format!("ThreadedEx(2, {basesize})"),
            Box::new(ThreadedEx::new().threads(2).with_basesize(basesize)),
        ));
        all.push((
            format!("TaskPoolEx(3, {basesize})"),
            Box::new(TaskPoolEx::new().ntasks(3).with_basesize(basesize)),
        ));
    }
    all
}

fn each_case(name: &str, check: impl Fn(&dyn Executor, usize, &str)) {
    watchdog(name, || {
        for (ex_name, ex) in &executors() {
            for len in LENGTHS {
                check(&**ex, len, &format!("{name}, {ex_name}, len {len}"));
            }
        }
    });
}

/// Counts live values: +1 when made, -1 when dropped.
#[derive(Debug)]
struct Counted<'c>(u64, &'c AtomicIsize);

impl<'c> Counted<'c> {
    fn new(value: u64, live: &'c AtomicIsize) -> Self {
        live.fetch_add(1, Ordering::Relaxed);
        Self(value, live)
    }
}

impl Clone for Counted<'_> {
    fn clone(&self) -> Self {
        Self::new(self.0, self.1)
    }
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.1.fetch_sub(1, Ordering::Relaxed);
    }
}

#[test]
fn mutable_slices_match_std() {
    each_case("mutable slices", |ex, len, what| {
        let mut got: Vec<u64> = (0..len as u64).collect();
        let mut want = got.clone();
        (&mut got).pipe().for_each(ex, |x| *x = *x * 3 + 1);
        want.iter_mut().for_each(|x| *x = *x * 3 + 1);
        assert_eq!(got, want, "for_each: {what}");

        for size in [1, 3, 64] {
            (&mut got[..])
                .pipe()
                .chunks_mut(size)
                .enumerate()
                .for_each(ex, |(i, chunk)| {
                    chunk.iter_mut().for_each(|x| *x += i as u64)
                });
            want.chunks_mut(size)
                .enumerate()
                .for_each(|(i, chunk)| chunk.iter_mut().for_each(|x| *x += i as u64));
            assert_eq!(got, want, "chunks_mut({size}): {what}");
        }

        let input: Vec<u64> = (0..len as u64).collect();
        let mut out = vec![0u64; len];
        input
            .pipe()
            .map(|&x| x * x)
            .zip(&mut out)
            .for_each(ex, |(y, o)| *o = y);
        let squares: Vec<u64> = input.iter().map(|&x| x * x).collect();
        assert_eq!(out, squares, "map into an output slice: {what}");

        // Reductions over `&mut` items run too, and stop early.
        let first_big = (&mut got)
            .pipe()
            .position_first(ex, |x| *x > 3 * (len as u64 / 2));
        let want_first = want.iter().position(|&x| x > 3 * (len as u64 / 2));
        assert_eq!(first_big, want_first, "position_first: {what}");
    });
}

#[test]
fn a_vec_by_value_matches_std_and_drops_every_item_once() {
    let live = AtomicIsize::new(0);
    each_case("Vec by value", |ex, len, what| {
        let items = || {
            (0..len as u64)
                .map(|i| Counted::new(i, &live))
                .collect::<Vec<_>>()
        };
        let total: u64 = from_vec(items()).map(|c| c.0).sum(ex);
        assert_eq!(total, (0..len as u64).sum::<u64>(), "sum: {what}");
        let kept: Vec<u64> = from_vec(items())
            .filter(|c| c.0 % 3 == 0)
            .map(|c| c.0)
            .collect(ex);
        let want: Vec<u64> = (0..len as u64).filter(|x| x % 3 == 0).collect();
        assert_eq!(kept, want, "filter + collect: {what}");
        let moved: Vec<Counted> = from_vec(items()).collect(ex);
        assert_eq!(moved.len(), len, "collect: {what}");
        assert!(moved.iter().enumerate().all(|(i, c)| c.0 == i as u64));
        drop(moved);
        // An early stop leaves items behind: the pipeline drops them.
        let found = from_vec(items()).find_first(ex, |c| c.0 == 5).map(|c| c.0);
        assert_eq!(found, (len > 5).then_some(5), "find_first: {what}");
        let stopped = from_vec(items()).try_fold(
            ex,
            || 0,
            |n, c| {
                if c.0 == 3 {
                    ControlFlow::Break(n)
                } else {
                    ControlFlow::Continue(n + 1)
                }
            },
            |a, b| a + b,
        );
        assert_eq!(
            stopped,
            if len > 3 {
                ControlFlow::Break(3)
            } else {
                ControlFlow::Continue(len)
            }
        );
        let panicked = catch_unwind(AssertUnwindSafe(|| {
            from_vec(items()).for_each(ex, |c| assert!(c.0 != len as u64 / 2, "boom"))
        }));
        assert_eq!(panicked.is_err(), len > 0, "panic: {what}");
        assert_eq!(
            live.load(Ordering::Relaxed),
            0,
            "every item dropped once: {what}"
        );
    });
}

#[test]
fn collect_vec_in_place_matches_std_and_drops_on_panic() {
    let live = AtomicIsize::new(0);
    each_case("collect in place", |ex, len, what| {
        let data: Vec<u64> = (0..len as u64).collect();
        let got: Vec<u64> = data.pipe().map(|&x| x * 7).collect(ex);
        let want: Vec<u64> = data.iter().map(|&x| x * 7).collect();
        assert_eq!(got, want, "map + collect: {what}");
        let got: Vec<(usize, &u64)> = data.pipe().rev().enumerate().collect(ex);
        let want: Vec<(usize, &u64)> = data.iter().rev().enumerate().collect();
        assert_eq!(got, want, "rev + enumerate + collect: {what}");
        let panicked = catch_unwind(AssertUnwindSafe(|| {
            data.pipe()
                .map(|&x| {
                    assert!(x != len as u64 / 2, "boom");
                    Counted::new(x, &live)
                })
                .collect::<Vec<_>>(ex)
        }));
        assert_eq!(panicked.is_err(), len > 0, "panic: {what}");
        assert_eq!(
            live.load(Ordering::Relaxed),
            0,
            "every item dropped once: {what}"
        );
    });
}

/// The affine map `x -> a * x + b` (wrapping) as `(a, b)`.
type Affine = (u64, u64);

/// `f` then `g`: associative, not commutative, with identity `(1, 0)`, so a scan that
/// combines out of order or groups wrongly shows.
fn then(f: &Affine, g: &Affine) -> Affine {
    (
        g.0.wrapping_mul(f.0),
        g.0.wrapping_mul(f.1).wrapping_add(g.1),
    )
}

fn affine(i: u64) -> Affine {
    (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1, i ^ 0x5555)
}

/// What `Iterator::scan` gives: item `i` is `identity` combined with items `0..=i`.
fn std_scan<T: Clone>(items: impl Iterator<Item = T>, identity: T, op: fn(&T, &T) -> T) -> Vec<T> {
    items
        .scan(identity, |acc, item| {
            *acc = op(acc, &item);
            Some(acc.clone())
        })
        .collect()
}

#[test]
fn scan_over_items_handed_out_once_matches_std() {
    let live = AtomicIsize::new(0);
    each_case("scan by value", |ex, len, what| {
        let items: Vec<Affine> = (0..len as u64).map(affine).collect();
        let want = std_scan(items.iter().copied(), (1, 0), then);
        let got = from_vec(items.clone()).scan(ex, (1, 0), then);
        assert_eq!(got, want, "from_vec: {what}");

        // Each element is read, so changed, once.
        let mut v = items.clone();
        let got = (&mut v)
            .pipe()
            .map(|x: &mut Affine| {
                x.1 = x.1.wrapping_add(1);
                *x
            })
            .scan(ex, (1, 0), then);
        let bumped: Vec<Affine> = items.iter().map(|&(a, b)| (a, b + 1)).collect();
        let want = std_scan(bumped.iter().copied(), (1, 0), then);
        assert_eq!(got, want, "(&mut v).pipe(): {what}");
        assert_eq!(v, bumped, "(&mut v).pipe() read each element once: {what}");

        // By value beside by reference.
        let got = from_vec(items.clone())
            .zip(&bumped)
            .map(|(x, y)| then(&x, y))
            .scan(ex, (1, 0), then);
        let pairs = items.iter().zip(&bumped).map(|(x, y)| then(x, y));
        assert_eq!(got, std_scan(pairs, (1, 0), then), "zip: {what}");

        // Items that own something: each is dropped once.
        let counted = || (0..len as u64).map(|i| Counted::new(i, &live));
        let scanned = from_vec(counted().collect()).scan(ex, Counted::new(0, &live), |a, b| {
            Counted::new(a.0 + b.0, &live)
        });
        let got: Vec<u64> = scanned.iter().map(|c| c.0).collect();
        drop(scanned);
        let want: Vec<u64> = (0..len as u64)
            .scan(0, |acc, i| {
                *acc += i;
                Some(*acc)
            })
            .collect();
        assert_eq!(got, want, "owned items: {what}");
        assert_eq!(
            live.load(Ordering::Relaxed),
            0,
            "every item dropped once: {what}"
        );
    });
}

/// The message of the panic that `run` ends with.
fn panic_message<R>(run: impl FnOnce() -> R) -> String {
    let Err(payload) = catch_unwind(AssertUnwindSafe(run)) else {
        panic!("the run was not refused");
    };
    match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => payload
            .downcast::<&str>()
            .map_or_else(|_| "(not a string)".into(), |m| m.to_string()),
    }
}

const VEC_SPENT: &str = "foldex: a pipeline or fold over a Vec by value runs once (its items \
     were moved out by the first run); build a new one with from_vec or OwnedVec::new for \
     another run";

const SLICE_SPENT: &str = "foldex: a pipeline or fold over a mutable slice runs once (its \
     elements were lent out by the first run, and may still be borrowed); build a new one with \
     (&mut v).pipe() or MutSlice::new for another run";

#[test]
fn a_second_run_over_items_handed_out_once_is_refused_saying_so() {
    watchdog("second runs", || {
        for (ex_name, ex) in &executors() {
            let ex: &dyn Executor = &**ex;
            let refused = |message: String, want: &str, what: &str| {
                assert!(message.contains(want), "{what}, {ex_name}: {message}");
                assert!(!message.contains("executor bug"), "{what}, {ex_name}");
            };

            let doubled = from_vec((0..1000u64).collect()).map(|x| x * 2);
            assert_eq!(doubled.sum::<u64>(ex), 999_000);
            let message = panic_message(|| doubled.sum::<u64>(ex));
            refused(message, VEC_SPENT, "from_vec(v).map(f), sum twice");

            let items = from_vec((0..1000u64).collect());
            assert_eq!(items.scan(ex, 0, |a, b| a + b)[999], 499_500);
            let message = panic_message(|| items.scan(ex, 0, |a, b| a + b));
            refused(message, VEC_SPENT, "from_vec(v), scan twice");

            let words = from_vec(vec![String::from("a"); 100]);
            assert_eq!(words.collect::<Vec<_>>(ex).len(), 100);
            let message = panic_message(|| words.collect::<Vec<_>>(ex));
            refused(message, VEC_SPENT, "from_vec(v), collect in place twice");
            let message = panic_message(|| words.count(ex));
            refused(message, VEC_SPENT, "from_vec(v), collect then count");

            let empty = from_vec(Vec::<u64>::new());
            assert_eq!(empty.count(ex), 0);
            let message = panic_message(|| empty.count(ex));
            refused(message, VEC_SPENT, "from_vec of nothing, twice");

            let mut v = vec![0u32; 1000];
            let lent = (&mut v).pipe();
            lent.for_each(ex, |x| *x += 1);
            let message = panic_message(|| lent.for_each(ex, |x| *x += 1));
            refused(message, SLICE_SPENT, "(&mut v).pipe(), for_each twice");
            let rows = (&mut v).pipe().chunks_mut(7).enumerate();
            rows.for_each(ex, |(_, row)| row.iter_mut().for_each(|x| *x += 1));
            let message = panic_message(|| rows.for_each(ex, |(_, row)| row[0] += 1));
            refused(message, SLICE_SPENT, "chunks_mut, for_each twice");
            let mut out = vec![0u32; 1000];
            let written = (0..1000u32).pipe().zip(&mut out);
            written.for_each(ex, |(i, o)| *o = i);
            let message = panic_message(|| written.for_each(ex, |(_, o)| *o = 0));
            refused(message, SLICE_SPENT, "zip with an output slice, twice");
            assert!(
                v.iter().all(|&x| x == 2),
                "{ex_name}: a refused run touches nothing"
            );
            assert!(
                out.iter().enumerate().all(|(i, &o)| o == i as u32),
                "{ex_name}"
            );
        }
    });
}
