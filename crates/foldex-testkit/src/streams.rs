//! The conformance suite over streams: folds of a [`Stream`] on the executor give what the
//! same fold gives on `std::iter`, for any length, batch size and basesize.

use crate::{basesizes, quietly, run_property, watchdog, Boom};
use foldex_core::{Basesize, Executor, ExecutorExt, Stream};
use foldex_pipeline::{from_stream, group};
use proptest::prelude::*;
use std::ops::ControlFlow::{self, Break, Continue};
use std::panic;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Stream lengths worth testing: empty, one, primes, anything up to a few thousand, and now
/// and then 10^5.
pub fn stream_lengths() -> impl Strategy<Value = usize> {
    prop_oneof![
        3 => Just(0usize),
        3 => Just(1usize),
        4 => prop::sample::select(vec![2usize, 3, 7, 61, 509, 4093]),
        8 => 0usize..=3000,
        1 => Just(100_000usize),
    ]
}

/// Batch sizes worth testing: automatic (`None`), the smallest, odd ones, and large ones.
pub fn batch_sizes() -> impl Strategy<Value = Option<usize>> {
    prop_oneof![
        Just(None),
        (1usize..=8).prop_map(Some),
        (9usize..=5000).prop_map(Some),
    ]
}

fn stream<I: Iterator>(iter: I, batch: Option<usize>) -> Stream<I> {
    let stream = Stream::new(iter);
    match batch {
        Some(n) => stream.batch_size(n),
        None => stream,
    }
}

fn append<T>(mut a: Vec<T>, mut b: Vec<T>) -> Vec<T> {
    a.append(&mut b);
    a
}

/// Order and exactly once: a fold over a stream whose `combine` is not commutative
/// (concatenation) equals the sequential fold; every item is folded once; `collect_vec` and
/// `sum` agree with `std::iter`.
pub fn check_stream_order<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_stream_order_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_stream_order`] through `&dyn Executor`, compiled once.
fn check_stream_order_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (stream_lengths(), batch_sizes(), basesizes());
    run_property("stream order", cases, |(len, batch, bs)| {
        let ex = make(bs);
        let pulled = AtomicUsize::new(0);
        let items = (0..len).inspect(|_| {
            pulled.fetch_add(1, Ordering::Relaxed);
        });
        let got = ex.fold(
            stream(items, batch),
            Vec::new,
            |mut v, i| {
                v.push(i);
                v
            },
            append,
        );
        prop_assert_eq!(got, (0..len).collect::<Vec<_>>());
        prop_assert_eq!(pulled.load(Ordering::Relaxed), len, "each item pulled once");
        let words = (0..len).map(|i| format!("{i},"));
        let joined = ex.fold(
            stream(words, batch),
            String::new,
            |s, w| s + &w,
            |a, b| a + &b,
        );
        prop_assert_eq!(
            joined,
            (0..len).map(|i| format!("{i},")).collect::<String>()
        );
        prop_assert_eq!(
            ex.collect_vec(stream(0..len, batch)),
            (0..len).collect::<Vec<_>>()
        );
        prop_assert_eq!(
            ex.sum::<usize>(stream(0..len, batch)),
            (0..len).sum::<usize>()
        );
        Ok(())
    });
}

/// Early termination: `try_fold` over a stream returns what `Iterator::try_fold` returns, for a
/// `Break` at a random position (or none).
pub fn check_stream_try_fold<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_stream_try_fold_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_stream_try_fold`] through `&dyn Executor`, compiled once.
fn check_stream_try_fold_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (stream_lengths(), 0usize..=3100, batch_sizes(), basesizes());
    run_property("stream try_fold", cases, |(len, stop, batch, bs)| {
        let ex = make(bs);
        let step = |mut acc: Vec<usize>, i: usize| {
            acc.push(i);
            if i == stop {
                Break(acc)
            } else {
                Continue(acc)
            }
        };
        let want = (0..len).try_fold(Vec::new(), step);
        let got = ex.try_fold(stream(0..len, batch), Vec::new, step, append);
        prop_assert_eq!(got, want);
        Ok(())
    });
}

/// Early termination stops the pulling: on an endless stream, a `Break` at position 1000 ends
/// the fold, having pulled at most a batch per thread beyond it.
pub fn check_stream_break_stops_pulling<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_stream_break_stops_pulling_dyn(&|basesize| -> Box<dyn Executor + 'e> {
        Box::new(make(basesize))
    });
}

/// [`check_stream_break_stops_pulling`] through `&dyn Executor`, compiled once.
fn check_stream_break_stops_pulling_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    watchdog("a Break stops an endless stream", || {
        for batch in [None, Some(1), Some(64)] {
            let ex = make(Basesize::Auto);
            let pulled = AtomicUsize::new(0);
            let endless = (0usize..).inspect(|_| {
                pulled.fetch_add(1, Ordering::Relaxed);
            });
            let got: ControlFlow<usize, usize> = ex.try_fold(
                stream(endless, batch),
                || 0,
                |n, i| {
                    if i == 1000 {
                        Break(n + 1)
                    } else {
                        Continue(n + 1)
                    }
                },
                |a, b| a + b,
            );
            assert_eq!(got, Break(1001), "batch {batch:?}");
            let pulled = pulled.into_inner();
            let slack = 1024 * foldex_core::stream::MAX_AUTO_BATCH;
            assert!(
                pulled <= 1001 + slack,
                "batch {batch:?}: a Break at position 1000 still pulled {pulled} items"
            );
        }
    });
}

/// Panics: a panic in `step` or in the iterator's `next` reaches the caller with its payload,
/// unless a `Break` at an earlier position comes first; the executor works afterwards.
pub fn check_stream_panics<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_stream_panics_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_stream_panics`] through `&dyn Executor`, compiled once.
fn check_stream_panics_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (
        1usize..=3000,
        0usize..3000,
        prop::option::of(0usize..3000),
        batch_sizes(),
        basesizes(),
    );
    run_property("stream panics", cases, |(len, at, stop, batch, bs)| {
        let at = at % len;
        let ex = make(bs);
        let breaks_first = stop.is_some_and(|s| s < at);
        let step = |n: usize, i: usize| {
            if i == at {
                panic::panic_any(Boom(i));
            }
            if Some(i) == stop {
                Break(n + 1)
            } else {
                Continue(n + 1)
            }
        };
        let in_step = quietly(|| ex.try_fold(stream(0..len, batch), || 0, step, |a, b| a + b));
        let in_next = quietly(|| {
            let items = (0..len).inspect(|&i| {
                if i == at {
                    panic::panic_any(Boom(i));
                }
            });
            ex.try_fold(
                stream(items, batch),
                || 0,
                |n, i| {
                    if Some(i) == stop {
                        Break(n + 1)
                    } else {
                        Continue(n + 1)
                    }
                },
                |a, b| a + b,
            )
        });
        for (what, outcome) in [("step", in_step), ("next", in_next)] {
            match outcome {
                Ok(flow) => {
                    prop_assert!(breaks_first, "a panic in {} at {} was lost", what, at);
                    prop_assert_eq!(flow, Break(stop.unwrap_or(0) + 1));
                }
                Err(payload) => {
                    prop_assert!(
                        !breaks_first,
                        "a panic in {} after a Break was raised",
                        what
                    );
                    prop_assert_eq!(payload.downcast_ref::<Boom>(), Some(&Boom(at)));
                }
            }
        }
        prop_assert_eq!(ex.sum::<usize>(stream(0..len, batch)), len * (len - 1) / 2);
        Ok(())
    });
}

/// Nesting: a stream fold inside a step of a stream fold on the same executor completes.
pub fn check_stream_nesting<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_stream_nesting_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_stream_nesting`] through `&dyn Executor`, compiled once.
fn check_stream_nesting_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (0usize..=64, 0usize..=64, batch_sizes(), basesizes());
    run_property("stream nesting", cases, |(outer, inner, batch, bs)| {
        let ex = make(bs);
        let got = ex.map_reduce(
            stream(0..outer, batch),
            |i| ex.sum::<usize>(stream(0..inner, batch)) + i,
            || 0,
            |a, b| a + b,
        );
        prop_assert_eq!(
            got,
            outer * (inner * inner.saturating_sub(1) / 2) + outer * outer.saturating_sub(1) / 2
        );
        Ok(())
    });
}

/// Pipelines over a stream give what the same chain gives on `std::iter`: transforms,
/// `take_while` (a `Break`), a stateful stage (`dedup`), `collect`, `find_first`,
/// `position_first`, `group_by` and `try_for_each`.
pub fn check_stream_pipelines<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_stream_pipelines_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_stream_pipelines`] through `&dyn Executor`, compiled once.
fn check_stream_pipelines_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (stream_lengths(), 1usize..=50, batch_sizes(), basesizes());
    run_property("stream pipelines", cases, |(len, k, batch, bs)| {
        let ex = make(bs);
        let pipe = |n: usize| from_stream(stream(0..n, batch));
        let sum: usize = pipe(len).map(|x| x * 3).filter(|x| x % 5 != 0).sum(&ex);
        prop_assert_eq!(
            sum,
            (0..len)
                .map(|x| x * 3)
                .filter(|x| x % 5 != 0)
                .sum::<usize>()
        );
        let spread = pipe(len).flat_map(|x| 0..x % 4).count(&ex);
        prop_assert_eq!(spread, (0..len).flat_map(|x| 0..x % 4).count());
        let head: Vec<usize> = pipe(len).take_while(|&x| x < len / 2 + k).collect(&ex);
        prop_assert_eq!(
            head,
            (0..len)
                .take_while(|&x| x < len / 2 + k)
                .collect::<Vec<_>>()
        );
        let runs: Vec<usize> = pipe(len).map(|x| x / k).dedup().collect(&ex);
        let mut want_runs: Vec<usize> = (0..len).map(|x| x / k).collect();
        want_runs.dedup();
        prop_assert_eq!(runs, want_runs);
        let hit = |x: &usize| x % 97 == k;
        prop_assert_eq!(pipe(len).find_first(&ex, hit), (0..len).find(hit));
        let at = |x: usize| hit(&x);
        prop_assert_eq!(pipe(len).position_first(&ex, at), (0..len).position(at));
        let groups = pipe(len).group_by(&ex, |x| x % k, group::count());
        prop_assert_eq!(groups.len(), len.min(k));
        prop_assert_eq!(groups.values().sum::<usize>(), len);
        let checked = pipe(len).try_for_each(&ex, |x| if x % 101 == k { Err(x) } else { Ok(()) });
        let want_checked = (0..len).try_for_each(|x| if x % 101 == k { Err(x) } else { Ok(()) });
        prop_assert_eq!(checked, want_checked);
        Ok(())
    });
}

/// Every stream check, in turn.
pub fn check_streams<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_streams_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_streams`] through `&dyn Executor`, compiled once.
fn check_streams_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    check_stream_order_dyn(make);
    check_stream_try_fold_dyn(make);
    check_stream_break_stops_pulling_dyn(make);
    #[cfg(panic = "unwind")]
    check_stream_panics_dyn(make);
    check_stream_nesting_dyn(make);
    check_stream_pipelines_dyn(make);
}
