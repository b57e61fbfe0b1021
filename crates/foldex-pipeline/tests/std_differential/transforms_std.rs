//! `flatten`, `while_some`, `positions`, `update`, `intersperse`, the `_with` forms and the
//! `fold_pieces` adapters against `std::iter` (or a sequential model where `std` lacks the
//! method), through `&dyn Executor` on several executors and basesizes, over lengths 0, 1,
//! primes and 10^5; each followed by stages that stop early (`take_while`, `find_first`), and
//! with panics checked by payload.
#![allow(clippy::map_flatten)] // the std side is written as the chain under test

use crate::common::executors;

use foldex_core::{Executor, Stream};
use foldex_pipeline::{from_stream, IntoPipeline};
use foldex_testkit::watchdog;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

const LENGTHS: [usize; 9] = [0, 1, 2, 3, 7, 31, 97, 1009, 100_000];

/// Runs `check` for every executor of the shared list and every length of [`LENGTHS`].
fn each_case(name: &str, check: impl Fn(&dyn Executor, &[u64], &str)) {
    crate::common::each_case(name, &LENGTHS, 58, check)
}

/// The payload of the panic `f` raises (a `u64` or a `usize`, as the tests raise them).
fn payload_of<R>(f: impl FnOnce() -> R) -> u64 {
    let caught = panic::catch_unwind(AssertUnwindSafe(f));
    let payload = caught.err().expect("a panic");
    match (
        payload.downcast_ref::<u64>(),
        payload.downcast_ref::<usize>(),
    ) {
        (Some(&x), _) => x,
        (_, Some(&x)) => x as u64,
        _ => panic!("an unexpected payload"),
    }
}

/// Panics with `at` as the payload where `at` is one of `bad`.
fn boom(at: u64, bad: &[u64]) {
    if bad.contains(&at) {
        panic::panic_any(at);
    }
}

#[test]
fn flatten_and_flat_map_iter_match_std() {
    each_case("flatten", |ex, data, what| {
        let inner = |&x: &u64| (0..x % 5).map(move |j| x * 10 + j).collect::<Vec<u64>>();
        let want: Vec<u64> = data.iter().map(inner).flatten().collect();
        let got: Vec<u64> = data.pipe().map(inner).flatten().collect(ex);
        assert_eq!(got, want, "flatten: {what}");
        let got: Vec<u64> = data.pipe().map(inner).flatten_iter().collect(ex);
        assert_eq!(got, want, "flatten_iter: {what}");
        let got: Vec<u64> = data.pipe().flat_map_iter(inner).collect(ex);
        assert_eq!(got, want, "flat_map_iter: {what}");

        // After a transform, over `Option`s.
        let opt = |&x: &u64| (x % 3 != 0).then_some(x);
        let want: Vec<u64> = data
            .iter()
            .filter(|&&x| x != 7)
            .map(opt)
            .flatten()
            .collect();
        let got: Vec<u64> = data
            .pipe()
            .filter(|&&x| x != 7)
            .map(opt)
            .flatten()
            .collect(ex);
        assert_eq!(got, want, "filter, flatten of options: {what}");

        // Early termination after it.
        let limit = 500;
        let want: Vec<u64> = data
            .iter()
            .map(inner)
            .flatten()
            .take_while(|&y| y < limit)
            .collect();
        let got: Vec<u64> = data
            .pipe()
            .map(inner)
            .flatten()
            .take_while(|&y| y < limit)
            .collect(ex);
        assert_eq!(got, want, "flatten, take_while: {what}");
        let want = data.iter().map(inner).flatten().find(|&y| y % 10 == 3);
        let got = data
            .pipe()
            .map(inner)
            .flatten()
            .find_first(ex, |&y| y % 10 == 3);
        assert_eq!(got, want, "flatten, find_first: {what}");
    });
}

#[test]
fn while_some_matches_std() {
    each_case("while_some", |ex, data, what| {
        let n = data.len() as u64;
        for stop_at in [0, n / 2, n.saturating_sub(1), n] {
            let opt = |(i, &x): (usize, &u64)| (i as u64 != stop_at).then_some(x);
            let want: Vec<u64> = data.iter().enumerate().map(opt).map_while(|x| x).collect();
            let got: Vec<u64> = data.pipe().enumerate().map(opt).while_some().collect(ex);
            assert_eq!(got, want, "while_some, None at {stop_at}: {what}");
            let got: u64 = data
                .pipe()
                .enumerate()
                .filter(|&(i, _)| i % 3 != 1)
                .map(opt)
                .while_some()
                .sum(ex);
            let want_filtered: u64 = data
                .iter()
                .enumerate()
                .filter(|&(i, _)| i % 3 != 1)
                .map(opt)
                .map_while(|x| x)
                .sum();
            assert_eq!(got, want_filtered, "filter, while_some, sum: {what}");

            // Early termination after it.
            let want: Vec<u64> = data
                .iter()
                .enumerate()
                .map(opt)
                .map_while(|x| x)
                .take_while(|&x| x < 60)
                .collect();
            let got: Vec<u64> = data
                .pipe()
                .enumerate()
                .map(opt)
                .while_some()
                .take_while(|&x| x < 60)
                .collect(ex);
            assert_eq!(got, want, "while_some, take_while: {what}");
            let want = data
                .iter()
                .enumerate()
                .map(opt)
                .map_while(|x| x)
                .find(|&x| x > 40);
            let got = data
                .pipe()
                .enumerate()
                .map(opt)
                .while_some()
                .find_first(ex, |&x| x > 40);
            assert_eq!(got, want, "while_some, find_first: {what}");

            // A panic right of the first `None` never happened, as on `std`.
            let late = [stop_at + 1, n + 7];
            let run = || {
                data.pipe()
                    .enumerate()
                    .map(|(i, x)| {
                        boom(i as u64, &late);
                        opt((i, x))
                    })
                    .while_some()
                    .count(ex)
            };
            if stop_at < n {
                assert_eq!(run(), stop_at as usize, "no panic after the stop: {what}");
            }
        }
    });
}

#[test]
fn positions_match_std_on_indexable_and_filtered_pipelines() {
    each_case("positions", |ex, data, what| {
        let pred = |x: u64| x % 4 == 1;
        let want: Vec<usize> = data
            .iter()
            .enumerate()
            .filter(|&(_, &x)| pred(x))
            .map(|(i, _)| i)
            .collect();
        let got: Vec<usize> = data.pipe().positions(|&x| pred(x)).collect(ex);
        assert_eq!(got, want, "positions: {what}");

        let kept = || data.iter().copied().filter(|x| x % 3 != 0);
        let want: Vec<usize> = kept()
            .enumerate()
            .filter(|&(_, x)| pred(x))
            .map(|(i, _)| i)
            .collect();
        let piped = data.pipe().copied().filter(|x| x % 3 != 0).positions(pred);
        assert_eq!(
            piped.collect::<Vec<usize>>(ex),
            want,
            "filter, positions: {what}"
        );
        assert_eq!(
            piped.count(ex),
            want.len(),
            "filter, positions, count: {what}"
        );

        // Stacked on another stage that holds items at a piece's edge.
        let want: Vec<usize> = {
            let mut deduped: Vec<u64> = data.to_vec();
            deduped.dedup();
            deduped
                .into_iter()
                .enumerate()
                .filter(|&(_, x)| pred(x))
                .map(|(i, _)| i)
                .collect()
        };
        let got: Vec<usize> = data.pipe().copied().dedup().positions(pred).collect(ex);
        assert_eq!(got, want, "dedup, positions: {what}");

        // Early termination after it.
        let half = data.len() / 2;
        let want: Vec<usize> = kept()
            .enumerate()
            .filter(|&(_, x)| pred(x))
            .map(|(i, _)| i)
            .take_while(|&i| i < half)
            .collect();
        let got: Vec<usize> = data
            .pipe()
            .copied()
            .filter(|x| x % 3 != 0)
            .positions(pred)
            .take_while(|&i| i < half)
            .collect(ex);
        assert_eq!(got, want, "filter, positions, take_while: {what}");
        let third = data.len() / 3;
        let want = kept()
            .enumerate()
            .filter(|&(_, x)| pred(x))
            .map(|(i, _)| i)
            .find(|&i| i > third);
        let got = data
            .pipe()
            .copied()
            .filter(|x| x % 3 != 0)
            .positions(pred)
            .find_first(ex, |&i| i > third);
        assert_eq!(got, want, "filter, positions, find_first: {what}");
    });
}

#[test]
fn update_after_a_transform_matches_std() {
    each_case("update", |ex, data, what| {
        let want: Vec<u64> = data
            .iter()
            .filter(|&&x| x % 2 == 0)
            .map(|&x| x * 3 + 1)
            .collect();
        let got: Vec<u64> = data
            .pipe()
            .copied()
            .filter(|x| x % 2 == 0)
            .update(|x| *x = *x * 3 + 1)
            .collect(ex);
        assert_eq!(got, want, "filter, update: {what}");
        let want = want.iter().copied().take_while(|&x| x < 100).count();
        let got = data
            .pipe()
            .copied()
            .filter(|x| x % 2 == 0)
            .update(|x| *x = *x * 3 + 1)
            .take_while(|&x| x < 100)
            .count(ex);
        assert_eq!(got, want, "filter, update, take_while: {what}");
    });
}

/// `copied` and `cloned` on pipelines that are not indexable (after a transform, over a
/// stream), as `Iterator::copied` / `cloned`, with stages that stop after them.
#[test]
fn copied_and_cloned_after_a_transform_match_std() {
    each_case("copied, cloned", |ex, data, what| {
        let even = || data.iter().filter(|x| **x % 2 == 0);
        let got: Vec<u64> = data.pipe().filter(|x| **x % 2 == 0).copied().collect(ex);
        assert_eq!(
            got,
            even().copied().collect::<Vec<_>>(),
            "filter, copied: {what}"
        );
        let words: Vec<String> = data.iter().map(|x| format!("w{x}")).collect();
        let got: Vec<String> = words.pipe().filter(|w| w.len() > 2).cloned().collect(ex);
        let want: Vec<String> = words.iter().filter(|w| w.len() > 2).cloned().collect();
        assert_eq!(got, want, "filter, cloned: {what}");
        let nested: Vec<Vec<u64>> = data.chunks(5).map(<[u64]>::to_vec).collect();
        let got: u64 = nested.pipe().flatten().copied().sum(ex);
        assert_eq!(
            got,
            data.iter().sum::<u64>(),
            "flatten, copied, sum: {what}"
        );
        let got = data
            .pipe()
            .filter(|x| **x % 3 != 0)
            .cloned()
            .take_while(|&x| x < 50)
            .map(|x| x + 1)
            .max(ex);
        let want = data
            .iter()
            .filter(|x| **x % 3 != 0)
            .cloned()
            .take_while(|&x| x < 50)
            .map(|x| x + 1)
            .max();
        assert_eq!(got, want, "filter, cloned, take_while, max: {what}");
        let got = data
            .pipe()
            .filter(|x| **x > 5)
            .copied()
            .find_last(ex, |x| x % 7 == 1);
        let want = data
            .iter()
            .filter(|x| **x > 5)
            .copied()
            .rfind(|x| x % 7 == 1);
        assert_eq!(got, want, "filter, copied, find_last: {what}");
        let streamed = from_stream(Stream::new(data.iter())).copied();
        assert_eq!(
            streamed.collect::<Vec<_>>(ex),
            data,
            "stream, copied: {what}"
        );
    });
}

/// `std`'s unstable `intersperse`, as a model.
fn interspersed(items: impl Iterator<Item = u64>, separator: u64) -> Vec<u64> {
    let mut out = Vec::new();
    for (i, x) in items.enumerate() {
        if i > 0 {
            out.push(separator);
        }
        out.push(x);
    }
    out
}

#[test]
fn intersperse_matches_the_sequential_model() {
    each_case("intersperse", |ex, data, what| {
        let sep = 1000;
        let want = interspersed(data.iter().copied(), sep);
        let got: Vec<u64> = data.pipe().copied().intersperse(sep).collect(ex);
        assert_eq!(got, want, "intersperse: {what}");
        let want = interspersed(data.iter().copied().filter(|x| x % 5 != 2), sep);
        let got: Vec<u64> = data
            .pipe()
            .copied()
            .filter(|x| x % 5 != 2)
            .intersperse(sep)
            .collect(ex);
        assert_eq!(got, want, "filter, intersperse: {what}");
        let got: String = data
            .pipe()
            .map(|x| x.to_string())
            .intersperse(",".to_owned())
            .collect(ex);
        let want = data
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(",");
        assert_eq!(got, want, "intersperse into a String: {what}");

        // Early termination after it: the stop may fall on a separator.
        let full = interspersed(data.iter().copied(), sep);
        let want = full.iter().position(|&x| x == sep);
        let got = data
            .pipe()
            .copied()
            .intersperse(sep)
            .position_first(ex, |x| x == sep);
        assert_eq!(got, want, "intersperse, position_first: {what}");
        let want: Vec<u64> = full
            .iter()
            .copied()
            .take_while(|&x| x != sep || data.len() < 3)
            .collect();
        let got: Vec<u64> = data
            .pipe()
            .copied()
            .intersperse(sep)
            .take_while(|&x| x != sep || data.len() < 3)
            .collect(ex);
        assert_eq!(got, want, "intersperse, take_while: {what}");
        let want = full.iter().copied().find(|&x| x > 60);
        let got = data
            .pipe()
            .copied()
            .intersperse(sep)
            .find_first(ex, |&x| x > 60);
        assert_eq!(got, want, "intersperse, find_first: {what}");
    });
}

/// A value whose clones are counted.
struct Counted {
    clones: Arc<AtomicUsize>,
    offset: u64,
}

impl Clone for Counted {
    fn clone(&self) -> Self {
        self.clones.fetch_add(1, Ordering::Relaxed);
        Self {
            clones: Arc::clone(&self.clones),
            offset: self.offset,
        }
    }
}

#[test]
fn the_with_forms_match_std_with_a_clone_per_piece() {
    each_case("map_with", |ex, data, what| {
        let clones = Arc::new(AtomicUsize::new(0));
        let init = Counted {
            clones: Arc::clone(&clones),
            offset: 5,
        };
        let want: Vec<u64> = data.iter().map(|&x| x + 5).collect();
        let got: Vec<u64> = data
            .pipe()
            .map_with(init.clone(), |c, &x| x + c.offset)
            .collect(ex);
        assert_eq!(got, want, "map_with: {what}");
        let made = clones.swap(0, Ordering::Relaxed);
        if !data.is_empty() {
            assert!(made >= 2, "a clone per piece ({made}): {what}");
        }
        if !data.is_empty() && what.contains("SequentialEx") {
            assert_eq!(
                made, 2,
                "one clone for the one piece, one for the call: {what}"
            );
        }
        // The call's clone, and at most one per piece (a piece holds at least one item, or is
        // the only one).
        assert!(
            made <= data.len().max(1) + 1,
            "no more clones than pieces ({made}): {what}"
        );

        // After a transform, then stopped early.
        let want: Vec<u64> = data
            .iter()
            .filter(|&&x| x % 2 == 1)
            .map(|&x| x + 5)
            .take_while(|&x| x < 60)
            .collect();
        let got: Vec<u64> = data
            .pipe()
            .filter(|&&x| x % 2 == 1)
            .map_with(init.clone(), |c, &x| x + c.offset)
            .take_while(|&x| x < 60)
            .collect(ex);
        assert_eq!(got, want, "filter, map_with, take_while: {what}");
        let want = data.iter().map(|&x| x + 5).find(|x| x % 7 == 0);
        let got = data
            .pipe()
            .map_with(init.clone(), |c, &x| x + c.offset)
            .find_first(ex, |x| x % 7 == 0);
        assert_eq!(got, want, "map_with, find_first: {what}");

        let total = AtomicU64::new(0);
        data.pipe().for_each_with(ex, init.clone(), |c, &x| {
            total.fetch_add(x + c.offset, Ordering::Relaxed);
        });
        let want: u64 = data.iter().map(|&x| x + 5).sum();
        assert_eq!(total.into_inner(), want, "for_each_with: {what}");

        let check = |x: u64, i: usize| if x == 61 { Err(i) } else { Ok(()) };
        let want = data.iter().enumerate().try_for_each(|(i, &x)| check(x, i));
        let got = data
            .pipe()
            .enumerate()
            .try_for_each_with(ex, init.clone(), |c, (i, &x)| check(x + c.offset - 5, i));
        assert_eq!(got, want, "try_for_each_with: {what}");
        let got = data
            .pipe()
            .enumerate()
            .try_for_each_init(ex, String::new, |buf, (i, &x)| {
                buf.clear();
                buf.push_str(&x.to_string());
                check(buf.parse().unwrap(), i)
            });
        assert_eq!(got, want, "try_for_each_init: {what}");
        let want = data
            .iter()
            .filter(|&&x| x > 3)
            .try_for_each(|&x| (x != 50).then_some(()));
        let got = data.pipe().filter(|&&x| x > 3).try_for_each_init(
            ex,
            || 0u64,
            |_, &x| (x != 50).then_some(()),
        );
        assert_eq!(got, want, "filter, try_for_each_init over Option: {what}");
    });
}

/// Pushes `x` onto `v`: the fold of `fold_pieces(Vec::new, push)`.
fn push(mut v: Vec<u64>, x: u64) -> Vec<u64> {
    v.push(x);
    v
}

#[test]
fn fold_pieces_covers_every_item_once_in_order() {
    each_case("fold_pieces", |ex, data, what| {
        let sequential = what.contains("SequentialEx");
        let want: u64 = data.iter().sum();
        let got: u64 = data.pipe().copied().fold_pieces(|| 0, |a, x| a + x).sum(ex);
        assert_eq!(got, want, "fold_pieces, sum: {what}");
        let got: u64 = data
            .pipe()
            .copied()
            .fold_pieces_with(0, |a, x| a + x)
            .sum(ex);
        assert_eq!(got, want, "fold_pieces_with, sum: {what}");
        let max = data.pipe().copied().fold_pieces(|| 0, u64::max).max(ex);
        assert_eq!(
            max,
            Some(data.iter().copied().max().unwrap_or(0)),
            "fold_pieces, max: {what}"
        );

        // One accumulator per piece, in order; exactly one on one piece or no items.
        let pieces: Vec<Vec<u64>> = data.pipe().copied().fold_pieces(Vec::new, push).collect(ex);
        assert_eq!(pieces.concat(), data, "fold_pieces, concat: {what}");
        assert!(!pieces.is_empty(), "{what}");
        if data.is_empty() || sequential {
            assert_eq!(pieces.len(), 1, "{what}");
        } else {
            assert!(
                pieces.iter().all(|p| !p.is_empty()),
                "no empty piece: {what}"
            );
        }

        // After a transform, and after a stage that holds items at a piece's edge.
        let kept = || data.iter().copied().filter(|x| x % 4 != 0);
        let got: Vec<Vec<u64>> = data
            .pipe()
            .copied()
            .filter(|x| x % 4 != 0)
            .fold_pieces_with(Vec::new(), push)
            .collect(ex);
        assert_eq!(
            got.concat(),
            kept().collect::<Vec<_>>(),
            "filter, fold_pieces_with: {what}"
        );
        let mut deduped = data.to_vec();
        deduped.dedup();
        let got: Vec<u64> = data
            .pipe()
            .copied()
            .dedup()
            .fold_pieces(Vec::new, push)
            .flatten()
            .collect(ex);
        assert_eq!(got, deduped, "dedup, fold_pieces, flatten: {what}");

        // Early termination after it.
        let want: Vec<u64> = kept().take_while(|&x| x < 60).collect();
        let got: Vec<u64> = data
            .pipe()
            .copied()
            .filter(|x| x % 4 != 0)
            .fold_pieces(Vec::new, push)
            .flatten()
            .take_while(|&x| x < 60)
            .collect(ex);
        assert_eq!(got, want, "fold_pieces, flatten, take_while: {what}");
        let want = kept().find(|x| x % 9 == 8);
        let got = data
            .pipe()
            .copied()
            .filter(|x| x % 4 != 0)
            .fold_pieces(Vec::new, push)
            .flatten()
            .find_first(ex, |x| x % 9 == 8);
        assert_eq!(got, want, "fold_pieces, flatten, find_first: {what}");
        let first_piece = data
            .pipe()
            .copied()
            .fold_pieces(Vec::new, push)
            .find_first(ex, |_| true);
        let first_len = first_piece.as_ref().map_or(0, Vec::len);
        assert_eq!(
            first_piece,
            Some(data[..first_len].to_vec()),
            "fold_pieces, find_first: {what}"
        );
    });
}

#[test]
fn try_fold_pieces_gives_the_first_failure_by_index() {
    each_case("try_fold_pieces", |ex, data, what| {
        // A sum that fails at the items over 60, with the failing item's index.
        let step = |a: u64, (i, x): (usize, u64)| if x > 60 { Err(i) } else { Ok(a + x) };
        let items = || data.iter().copied().enumerate();
        let want = items().try_fold(0, step);
        let got = data
            .pipe()
            .copied()
            .enumerate()
            .try_fold_pieces(|| 0, step)
            .try_reduce(ex, || 0, |a, b| Ok(a + b));
        assert_eq!(got, want, "try_fold_pieces, try_reduce: {what}");
        let got: Result<Vec<u64>, usize> = data
            .pipe()
            .copied()
            .enumerate()
            .filter(|&(i, _)| i % 5 != 3)
            .try_fold_pieces_with(0, step)
            .collect(ex);
        let want = items().filter(|&(i, _)| i % 5 != 3).try_fold(0, step);
        assert_eq!(
            got.map(|v| v.iter().sum::<u64>()),
            want,
            "filter, try_fold_pieces_with, collect: {what}"
        );

        // Over `Option`: a checked sum of small numbers.
        let small = |a: u8, x: u64| a.checked_add(x as u8 & 3);
        let want = data.iter().try_fold(0u8, |a, &x| small(a, x));
        let got = data
            .pipe()
            .copied()
            .try_fold_pieces(|| 0u8, small)
            .try_reduce(ex, || 0, |a, b| a.checked_add(b));
        assert_eq!(got, want, "try_fold_pieces over Option: {what}");

        // Early termination after it.
        let got = data
            .pipe()
            .copied()
            .enumerate()
            .try_fold_pieces(|| 0, step)
            .find_first(ex, Result::is_err);
        assert_eq!(
            got,
            want_err(items().try_fold(0, step)),
            "try_fold_pieces, find_first: {what}"
        );
    });
}

/// The failure of `r`, as `find_first(Result::is_err)` over the pieces finds it.
fn want_err(r: Result<u64, usize>) -> Option<Result<u64, usize>> {
    r.err().map(Err)
}

/// After a stage that stops the run, `fold_pieces` passes on accumulators that cover, in
/// order, exactly the items before the stop; nothing right of the stop is folded into them.
#[test]
fn fold_pieces_after_a_stop_covers_the_items_before_it() {
    each_case("fold_pieces after a stop", |ex, data, what| {
        let sequential = what.contains("SequentialEx");
        for limit in [0, 1, 20, 63, 64] {
            let want: Vec<u64> = data.iter().copied().take_while(|&x| x < limit).collect();
            let pieces: Vec<Vec<u64>> = data
                .pipe()
                .copied()
                .take_while(|&x| x < limit)
                .fold_pieces(Vec::new, push)
                .collect(ex);
            assert_eq!(
                pieces.concat(),
                want,
                "take_while({limit}), fold_pieces: {what}"
            );
            if want.is_empty() || sequential {
                assert_eq!(pieces.len(), 1, "take_while({limit}): one piece: {what}");
            } else {
                assert!(pieces.iter().all(|p| !p.is_empty()), "{what}");
            }
            let got: u64 = data
                .pipe()
                .copied()
                .take_while(|&x| x < limit)
                .fold_pieces_with(0, |a, x| a + x)
                .sum(ex);
            assert_eq!(got, want.iter().sum(), "take_while({limit}), sum: {what}");

            let small = |x: u64| (x < limit).then_some(x * 2);
            let want2: Vec<u64> = data.iter().copied().map_while(small).collect();
            let got: Vec<u64> = data
                .pipe()
                .copied()
                .map_while(small)
                .fold_pieces(Vec::new, push)
                .flatten()
                .collect(ex);
            assert_eq!(got, want2, "map_while, fold_pieces: {what}");
            let got: Vec<u64> = data
                .pipe()
                .copied()
                .map(small)
                .while_some()
                .fold_pieces(Vec::new, push)
                .flatten()
                .collect(ex);
            assert_eq!(got, want2, "while_some, fold_pieces: {what}");

            // A stop before and after, a stage that holds items before, and a second fold.
            let mut deduped: Vec<u64> = data.to_vec();
            deduped.dedup();
            let want3: Vec<u64> = deduped
                .iter()
                .copied()
                .filter(|x| x % 3 != 0)
                .take_while(|&x| x < limit)
                .take_while(|&x| x != 50)
                .collect();
            let got: Vec<Vec<u64>> = data
                .pipe()
                .copied()
                .dedup()
                .filter(|x| x % 3 != 0)
                .take_while(|&x| x < limit)
                .fold_pieces(Vec::new, push)
                .flatten()
                .take_while(|&x| x != 50)
                .fold_pieces(Vec::new, push)
                .collect(ex);
            assert_eq!(
                got.concat(),
                want3,
                "dedup, take_while, fold_pieces x2: {what}"
            );
            let want4 = want3.iter().copied().find(|x| x % 7 == 6);
            let got = data
                .pipe()
                .copied()
                .dedup()
                .filter(|x| x % 3 != 0)
                .take_while(|&x| x < limit)
                .fold_pieces(Vec::new, push)
                .flatten()
                .take_while(|&x| x != 50)
                .find_first(ex, |x| x % 7 == 6);
            assert_eq!(got, want4, "... find_first: {what}");

            // try_fold_pieces: the first failure among the items before the stop.
            let step = |a: u64, (i, x): (usize, u64)| if x > 60 { Err(i) } else { Ok(a + x) };
            let want5 = data
                .iter()
                .copied()
                .enumerate()
                .take_while(|&(_, x)| x < limit)
                .try_fold(0, step);
            let got = data
                .pipe()
                .copied()
                .enumerate()
                .take_while(|&(_, x)| x < limit)
                .try_fold_pieces(|| 0, step)
                .try_reduce(ex, || 0, |a, b| Ok(a + b));
            assert_eq!(got, want5, "take_while, try_fold_pieces: {what}");

            // Through a boxed chain.
            let got: u64 = data
                .pipe()
                .copied()
                .take_while(move |&x| x < limit)
                .boxed()
                .fold_pieces(|| 0, |a, x| a + x)
                .sum(ex);
            assert_eq!(
                got,
                want.iter().sum(),
                "take_while, boxed, fold_pieces: {what}"
            );
        }
    });
}

#[test]
fn the_first_panic_by_index_is_raised_through_each_new_stage() {
    each_case("panics", |ex, data, what| {
        let n = data.len() as u64;
        if n < 3 {
            return;
        }
        // Two panics; `std` raises the first, and so must every executor.
        let bad = [n / 2, n - 1];
        let first = n / 2;
        let idx = || data.pipe().enumerate().map(|(i, &x)| (i as u64, x));
        let got = payload_of(|| {
            idx()
                .map(|(i, x)| {
                    boom(i, &bad);
                    vec![x]
                })
                .flatten()
                .count(ex)
        });
        assert_eq!(got, first, "flatten: {what}");
        let got = payload_of(|| {
            idx()
                .filter(|_| true)
                .update(|(i, _)| boom(*i, &bad))
                .count(ex)
        });
        assert_eq!(got, first, "update: {what}");
        let got = payload_of(|| {
            idx()
                .map_with(7u64, |_, (i, x)| {
                    boom(i, &bad);
                    x
                })
                .count(ex)
        });
        assert_eq!(got, first, "map_with: {what}");
        let got = payload_of(|| idx().for_each_with(ex, 7u64, |_, (i, _)| boom(i, &bad)));
        assert_eq!(got, first, "for_each_with: {what}");
        let got = payload_of(|| {
            idx().try_for_each_with(ex, 7u64, |_, (i, _)| {
                boom(i, &bad);
                Ok::<(), ()>(())
            })
        });
        assert_eq!(got, first, "try_for_each_with: {what}");
        let got = payload_of(|| {
            idx()
                .map(|(i, x)| {
                    boom(i, &bad);
                    Some(x)
                })
                .while_some()
                .count(ex)
        });
        assert_eq!(got, first, "while_some: {what}");
        let got = payload_of(|| {
            idx()
                .filter(|_| true)
                .positions(|(i, _)| {
                    boom(i, &bad);
                    true
                })
                .count(ex)
        });
        assert_eq!(got, first, "positions: {what}");
        let got = payload_of(|| {
            idx()
                .filter(|_| true)
                .intersperse((u64::MAX, 0))
                .inspect(|(i, _)| boom(*i, &bad))
                .count(ex)
        });
        assert_eq!(got, first, "intersperse: {what}");
        let got = payload_of(|| {
            idx()
                .fold_pieces(
                    || 0,
                    |a, (i, x)| {
                        boom(i, &bad);
                        a + x
                    },
                )
                .sum::<u64>(ex)
        });
        assert_eq!(got, first, "fold_pieces: {what}");
        let got = payload_of(|| {
            idx()
                .fold_pieces(Vec::new, |mut v, (i, _)| {
                    v.push(i);
                    v
                })
                .flatten()
                .inspect(|&i| boom(i, &bad))
                .count(ex)
        });
        assert_eq!(got, first, "after fold_pieces: {what}");
        let got = payload_of(|| {
            idx()
                .try_fold_pieces(
                    || 0,
                    |a, (i, x)| {
                        boom(i, &bad);
                        Some(a + x)
                    },
                )
                .count(ex)
        });
        assert_eq!(got, first, "try_fold_pieces: {what}");

        // A panic right of where `take_while` stops after the new stage never happened.
        let stop = n / 3;
        let late = [stop + 1, n - 1];
        let got = idx()
            .fold_pieces(Vec::new, |mut v, (i, _)| {
                v.push(i);
                v
            })
            .flatten()
            .take_while(|&i| i < stop)
            .inspect(|&i| boom(i, &late))
            .count(ex);
        assert_eq!(got as u64, stop, "fold_pieces, take_while: {what}");
        let got = idx()
            .filter(|_| true)
            .intersperse((u64::MAX, 0))
            .take_while(|&(i, _)| i == u64::MAX || i < stop)
            .filter(|&(i, _)| i != u64::MAX)
            .inspect(|&(i, _)| boom(i, &late))
            .count(ex);
        assert_eq!(got as u64, stop, "intersperse, take_while: {what}");
    });
}

#[test]
fn the_new_stages_run_the_same_behind_boxed() {
    each_case("boxed", |ex, data, what| {
        let sep = 1000;
        let want = interspersed(data.iter().copied().filter(|x| x % 3 != 0), sep);
        let got: Vec<u64> = data
            .pipe()
            .copied()
            .filter(|x| x % 3 != 0)
            .boxed()
            .fold_pieces(Vec::new, push)
            .boxed()
            .flatten()
            .intersperse(sep)
            .boxed()
            .collect(ex);
        assert_eq!(got, want, "boxed fold_pieces, intersperse: {what}");
        let want: Vec<usize> = data
            .iter()
            .filter(|&&x| x % 3 != 0)
            .enumerate()
            .filter(|&(_, &x)| x % 2 == 0)
            .map(|(i, _)| i)
            .collect();
        let got: Vec<usize> = data
            .pipe()
            .copied()
            .filter(|x| x % 3 != 0)
            .boxed()
            .positions(|x| x % 2 == 0)
            .boxed()
            .collect(ex);
        assert_eq!(got, want, "boxed positions: {what}");
    });
}

#[test]
fn fold_pieces_and_intersperse_over_streams_keep_the_order() {
    watchdog("streams", || {
        let items: Vec<u64> = (0..500u64).map(|i| (i * 7919) % 13).collect();
        for (ex_name, ex) in executors() {
            for batch in [1, 2, 5, 64] {
                let what = format!("{ex_name}, batch {batch}");
                let stream = || from_stream(Stream::new(items.clone()).batch_size(batch));
                let got: Vec<u64> = stream().fold_pieces(Vec::new, push).flatten().collect(&*ex);
                assert_eq!(got, items, "stream, fold_pieces, flatten: {what}");
                let got: u64 = stream().fold_pieces_with(0, |a, x| a + x).sum(&*ex);
                assert_eq!(
                    got,
                    items.iter().sum::<u64>(),
                    "stream, fold_pieces_with, sum: {what}"
                );
                let got: Vec<u64> = stream()
                    .filter(|x| x % 3 != 0)
                    .intersperse(99)
                    .collect(&*ex);
                let want = interspersed(items.iter().copied().filter(|x| x % 3 != 0), 99);
                assert_eq!(got, want, "stream, filter, intersperse: {what}");
                let got: Vec<usize> = stream()
                    .filter(|x| x % 3 != 0)
                    .positions(|x| x == 5)
                    .collect(&*ex);
                let want: Vec<usize> = items
                    .iter()
                    .filter(|&&x| x % 3 != 0)
                    .enumerate()
                    .filter(|&(_, &x)| x == 5)
                    .map(|(i, _)| i)
                    .collect();
                assert_eq!(got, want, "stream, filter, positions: {what}");
            }
        }
    });
}
