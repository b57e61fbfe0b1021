//! The index-preserving adapters that rayon has (`zip_eq`, `interleave`, `chunks` of any
//! pipeline, `update`, `panic_fuse`, `with_min_len` / `with_max_len`), `chain` after a
//! transform, `Debug` of pipelines, and the side effects of the items `skip` and `step_by`
//! drop, and of a `map` before `scan`, against `std::iter` (or a sequential model where std
//! lacks the method), on several executors through `&dyn Executor`, over lengths 0, 1, primes
//! and 10^5.

use crate::common::executors;

use foldex_core::Executor;
use foldex_pipeline::IntoPipeline;
use foldex_seq::SequentialEx;
use foldex_testkit::watchdog;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

const LENGTHS: [usize; 8] = [0, 1, 2, 3, 7, 31, 1009, 20_011];

/// Runs `check` for every executor of the shared list and every length of [`LENGTHS`].
fn each_case(name: &str, check: impl Fn(&dyn Executor, &[u64], &str)) {
    crate::common::each_case(name, &LENGTHS, 54, check)
}

/// Runs the same chain on `std::iter` and on a pipeline, each through a `map` that counts its
/// calls, and compares the items and the number of calls. `$f` is the counting closure,
/// `$std` and `$fx` the two chains, `$reduce` turns a pipeline into a `Vec` on `$ex`.
macro_rules! same_calls {
    ($what:expr, |$f:ident| $std:expr, $fx:expr) => {{
        let calls = AtomicUsize::new(0);
        let calls = &calls;
        let $f = move |x: &u64| {
            calls.fetch_add(1, Relaxed);
            *x
        };
        let want: Vec<_> = $std;
        let want_calls = calls.swap(0, Relaxed);
        let got: Vec<_> = $fx;
        assert_eq!(
            (got, calls.load(Relaxed)),
            (want, want_calls),
            "{} (items, calls of the map)",
            $what
        );
    }};
}

#[test]
fn dropped_items_of_skip_and_step_by_run_their_map_as_std() {
    each_case("effects", |ex, data, what| {
        let n = data.len();
        let other: Vec<u64> = (0..n as u64 / 2 + 1).collect();
        for k in [0, 1, 3, n / 2, n, n + 2] {
            same_calls!(
                format!("map.skip({k}): {what}"),
                |f| data.iter().map(f).skip(k).collect(),
                data.pipe().map(f).skip(k).collect(ex)
            );
            same_calls!(
                format!("map.skip({k}).count: {what}"),
                |f| vec![data.iter().map(f).skip(k).count()],
                vec![data.pipe().map(f).skip(k).count(ex)]
            );
            same_calls!(
                format!("map.take({k}).rev: {what}"),
                |f| data.iter().map(f).take(k).rev().collect(),
                data.pipe().map(f).take(k).rev().collect(ex)
            );
            same_calls!(
                format!("map.enumerate.skip({k}).step_by(3): {what}"),
                |f| data.iter().map(f).enumerate().skip(k).step_by(3).collect(),
                data.pipe()
                    .map(f)
                    .enumerate()
                    .skip(k)
                    .step_by(3)
                    .collect(ex)
            );
            same_calls!(
                format!("map.rev.skip({k}): {what}"),
                |f| data.iter().map(f).rev().skip(k).collect(),
                data.pipe().map(f).rev().skip(k).collect(ex)
            );
            if k < n {
                // std's `rev` and `zip` never pull a skip that leaves no item (effects.rs).
                same_calls!(
                    format!("map.skip({k}).take(2): {what}"),
                    |f| data.iter().map(f).skip(k).take(2).collect(),
                    data.pipe().map(f).skip(k).take(2).collect(ex)
                );
                same_calls!(
                    format!("map.skip({k}).rev: {what}"),
                    |f| data.iter().map(f).skip(k).rev().collect(),
                    data.pipe().map(f).skip(k).rev().collect(ex)
                );
                same_calls!(
                    format!("map.skip({k}).zip: {what}"),
                    |f| data.iter().map(f).skip(k).zip(&other).collect(),
                    data.pipe().map(f).skip(k).zip(&other).collect(ex)
                );
            }
        }
        for step in [1, 2, 3, 7, n.max(1), n + 3] {
            same_calls!(
                format!("map.step_by({step}): {what}"),
                |f| data.iter().map(f).step_by(step).collect(),
                data.pipe().map(f).step_by(step).collect(ex)
            );
            same_calls!(
                format!("map.step_by({step}).sum: {what}"),
                |f| vec![data.iter().map(f).step_by(step).sum::<u64>()],
                vec![data.pipe().map(f).step_by(step).sum::<u64>(ex)]
            );
            same_calls!(
                format!("map.step_by({step}).take(3): {what}"),
                |f| data.iter().map(f).step_by(step).take(3).collect(),
                data.pipe().map(f).step_by(step).take(3).collect(ex)
            );
            same_calls!(
                format!("map.step_by({step}).skip(1): {what}"),
                |f| data.iter().map(f).step_by(step).skip(1).collect(),
                data.pipe().map(f).step_by(step).skip(1).collect(ex)
            );
            same_calls!(
                format!("map.step_by({step}).rev: {what}"),
                |f| data.iter().map(f).step_by(step).rev().collect(),
                data.pipe().map(f).step_by(step).rev().collect(ex)
            );
            same_calls!(
                format!("map.rev.step_by({step}): {what}"),
                |f| data.iter().map(f).rev().step_by(step).collect(),
                data.pipe().map(f).rev().step_by(step).collect(ex)
            );
            same_calls!(
                format!("map.chain(map).step_by({step}): {what}"),
                |f| data
                    .iter()
                    .map(f)
                    .chain(other.iter().map(f))
                    .step_by(step)
                    .collect(),
                data.pipe()
                    .map(f)
                    .chain(other.pipe().map(f))
                    .step_by(step)
                    .collect(ex)
            );
            same_calls!(
                format!("map.zip(map).rev.step_by({step}): {what}"),
                |f| data
                    .iter()
                    .map(f)
                    .zip(other.iter().map(f))
                    .rev()
                    .step_by(step)
                    .collect(),
                data.pipe()
                    .map(f)
                    .zip(other.pipe().map(f))
                    .rev()
                    .step_by(step)
                    .collect(ex)
            );
        }
        same_calls!(
            format!("map.zip(shorter map): {what}"),
            |f| data.iter().map(f).zip(other.iter().map(f)).collect(),
            data.pipe().map(f).zip(other.pipe().map(f)).collect(ex)
        );
    });
}

/// rayon's `check_skip`: every item's `map` runs, skipped or not.
#[test]
fn rayons_check_skip_counts_every_item() {
    for (name, ex) in executors() {
        let v: Vec<usize> = (0..1024).collect();
        let num = AtomicUsize::new(0);
        let n = v
            .pipe()
            .map(|&x| num.fetch_add(x, Relaxed))
            .skip(512)
            .count(&*ex);
        assert_eq!((n, num.into_inner()), (512, v.iter().sum()), "{name}");
    }
}

/// `scan` reads each item once: a `map` (or `update`) before it runs once per item, as
/// `Iterator::scan` runs it, whatever adapters come between, and its values are std's.
#[test]
fn scan_runs_the_map_before_it_once_per_item_as_std() {
    each_case("scan effects", |ex, data, what| {
        let n = data.len();
        let sums = |items: &mut dyn Iterator<Item = u64>| -> Vec<u64> {
            items
                .scan(0u64, |acc, x| {
                    *acc = acc.wrapping_add(x);
                    Some(*acc)
                })
                .collect()
        };
        same_calls!(
            format!("map.scan: {what}"),
            |f| sums(&mut data.iter().map(f)),
            data.pipe().map(f).scan(ex, 0, |a, b| a.wrapping_add(*b))
        );
        // `acc -> 3 acc + x` as the affine map (3, x): `compose` is associative, not
        // commutative, so a scan that groups or orders wrongly shows.
        let compose = |f: &(u64, u64), g: &(u64, u64)| {
            (
                g.0.wrapping_mul(f.0),
                g.0.wrapping_mul(f.1).wrapping_add(g.1),
            )
        };
        let affine_scan = |items: &mut dyn Iterator<Item = u64>| -> Vec<u64> {
            items
                .scan(0u64, |acc, x| {
                    *acc = acc.wrapping_mul(3).wrapping_add(x);
                    Some(*acc)
                })
                .collect()
        };
        let second = |v: Vec<(u64, u64)>| -> Vec<u64> { v.into_iter().map(|p| p.1).collect() };
        same_calls!(
            format!("map.map(affine).scan: {what}"),
            |f| affine_scan(&mut data.iter().map(f)),
            second(data.pipe().map(f).map(|x| (3, x)).scan(ex, (1, 0), compose))
        );
        for k in [0, 1, n / 2, n + 1] {
            // std's `rev` never pulls a skip that leaves no item (as in the test above).
            let k_rev = k.min(n.saturating_sub(1));
            same_calls!(
                format!("map.skip({k_rev}).rev.scan: {what}"),
                |f| affine_scan(&mut data.iter().map(f).skip(k_rev).rev()),
                second(data.pipe().map(f).skip(k_rev).rev().map(|x| (3, x)).scan(
                    ex,
                    (1, 0),
                    compose
                ))
            );
            same_calls!(
                format!("map.step_by({}).enumerate.scan: {what}", k + 1),
                |f| affine_scan(
                    &mut data
                        .iter()
                        .map(f)
                        .step_by(k + 1)
                        .enumerate()
                        .map(|(i, x)| x ^ i as u64)
                ),
                second(
                    data.pipe()
                        .map(f)
                        .step_by(k + 1)
                        .enumerate()
                        .map(|(i, x)| (3, x ^ i as u64))
                        .scan(ex, (1, 0), compose)
                )
            );
        }
        let other: Vec<u64> = (0..n as u64 / 2 + 1).collect();
        same_calls!(
            format!("map.zip(map).scan: {what}"),
            |f| affine_scan(
                &mut data
                    .iter()
                    .map(f)
                    .zip(other.iter().map(f))
                    .map(|(a, b)| a ^ b)
            ),
            second(
                data.pipe()
                    .map(f)
                    .zip(other.pipe().map(f))
                    .map(|(a, b)| (3, a ^ b))
                    .scan(ex, (1, 0), compose)
            )
        );
        let updates = AtomicUsize::new(0);
        let got = data
            .pipe()
            .copied()
            .update(|x| {
                updates.fetch_add(1, Relaxed);
                *x %= 1000;
            })
            .scan(ex, 0, |a, b| a + b);
        let want = sums(&mut data.iter().map(|x| x % 1000));
        assert_eq!(
            (got, updates.into_inner()),
            (want, n),
            "update.scan: {what}"
        );
    });
}

/// A panic in a `map` before `scan` reaches the caller with the payload of the first item (by
/// index) that panics, as `Iterator::scan` raises it.
#[test]
fn a_panic_before_scan_is_the_first_by_index() {
    for (name, ex) in executors() {
        for at in [0usize, 3, 700] {
            let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                (0..1000usize)
                    .pipe()
                    .map(|x| {
                        assert!(x < at || x % 7 != at % 7, "item {x}");
                        x
                    })
                    .scan(&*ex, 0, |a, b| a + b)
            }))
            .unwrap_err();
            let message = payload.downcast_ref::<String>().unwrap().clone();
            assert_eq!(message, format!("item {at}"), "{name}");
        }
    }
}

/// A plain range or slice keeps its fast path: `skip` and `step_by` cost what they cost before.
/// Timing only, run with `--release -- --ignored --nocapture`.
#[test]
#[ignore = "a timing, not a check: run with --release"]
fn skip_and_step_by_timings() {
    use std::time::Instant;
    let n = 50_000_000usize;
    let data: Vec<u64> = (0..n as u64).collect();
    for _ in 0..3 {
        let t = Instant::now();
        let s: usize = (0..n).pipe().skip(1000).sum(&SequentialEx);
        let range_skip = t.elapsed();
        let t = Instant::now();
        let s2: u64 = data.pipe().step_by(3).copied().sum(&SequentialEx);
        let slice_step = t.elapsed();
        let t = Instant::now();
        let s3: u64 = data.pipe().step_by(3).map(|&x| x).sum(&SequentialEx);
        let map_step = t.elapsed();
        eprintln!(
            "n = {n}: range skip sum {range_skip:?}, slice step_by(3) sum {slice_step:?}, \
             map step_by(3) sum {map_step:?} ({s} {s2} {s3})"
        );
    }
}

/// The items of `interleave` on a sequential model: in turn, then the rest of the longer.
fn interleaved(a: &[u64], b: &[u64], shortest: bool) -> Vec<u64> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    loop {
        let turn_a = out.len() % 2 == 0 || j >= b.len();
        let turn_a = if shortest {
            out.len() % 2 == 0
        } else {
            turn_a && i < a.len()
        };
        if turn_a {
            match a.get(i) {
                Some(&x) => out.push(x),
                None => break,
            }
            i += 1;
        } else {
            match b.get(j) {
                Some(&y) => out.push(y),
                None if shortest => break,
                None => match a.get(i) {
                    Some(&x) => {
                        out.push(x);
                        i += 1;
                        continue;
                    }
                    None => break,
                },
            }
            j += 1;
        }
    }
    out
}

#[test]
fn zip_eq_interleave_and_interleave_shortest_match_the_model() {
    each_case("pairs", |ex, data, what| {
        let n = data.len();
        let twice: Vec<u64> = data.iter().map(|x| x * 2).collect();
        let got: Vec<(u64, u64)> = data
            .pipe()
            .copied()
            .zip_eq(&twice)
            .map(|(a, &b)| (a, b))
            .collect(ex);
        let want: Vec<(u64, u64)> = data.iter().copied().zip(twice.iter().copied()).collect();
        assert_eq!(got, want, "zip_eq: {what}");
        for m in [0, 1, n / 2, n, n + 3] {
            let other: Vec<u64> = (1000..1000 + m as u64).collect();
            for shortest in [false, true] {
                let want = interleaved(data, &other, shortest);
                let got: Vec<u64> = if shortest {
                    data.pipe().interleave_shortest(&other).copied().collect(ex)
                } else {
                    data.pipe().interleave(&other).copied().collect(ex)
                };
                assert_eq!(
                    got, want,
                    "interleave (shortest {shortest}) with {m}: {what}"
                );
                // Reading by index (rev) gives the same items backwards.
                let back: Vec<u64> = if shortest {
                    data.pipe()
                        .interleave_shortest(&other)
                        .rev()
                        .copied()
                        .collect(ex)
                } else {
                    data.pipe().interleave(&other).rev().copied().collect(ex)
                };
                assert_eq!(
                    back,
                    want.iter().rev().copied().collect::<Vec<_>>(),
                    "rev: {what}"
                );
            }
        }
    });
    // itertools' and rayon's examples.
    let ex = SequentialEx;
    let v: Vec<i32> = [1, 2, 3, 4]
        .pipe()
        .interleave(&[5, 6])
        .copied()
        .collect(&ex);
    assert_eq!(v, [1, 5, 2, 6, 3, 4]);
    let v: Vec<i32> = [1, 2, 3, 4]
        .pipe()
        .interleave_shortest(&[5, 6])
        .copied()
        .collect(&ex);
    assert_eq!(v, [1, 5, 2, 6, 3]);
}

#[test]
fn zip_eq_of_different_lengths_panics_naming_both() {
    let payload = std::panic::catch_unwind(|| (0..3).pipe().zip_eq(0..4)).unwrap_err();
    let message = payload.downcast_ref::<String>().unwrap();
    assert_eq!(message, "zip_eq: this pipeline has 3 items and the other 4");
}

#[test]
fn chunks_of_any_indexable_pipeline_match_slice_chunks() {
    each_case("chunks", |ex, data, what| {
        for size in [1, 2, 3, 7, data.len().max(1), data.len() + 5] {
            let want: Vec<Vec<u64>> = data.chunks(size).map(|c| c.to_vec()).collect();
            let got: Vec<Vec<u64>> = data.pipe().copied().chunks(size).collect(ex);
            assert_eq!(got, want, "copied.chunks({size}): {what}");
            // A slice still gives sub-slices.
            let got: Vec<&[u64]> = data.pipe().chunks(size).collect(ex);
            assert_eq!(
                got,
                data.chunks(size).collect::<Vec<_>>(),
                "slice chunks: {what}"
            );
            let want: Vec<Vec<usize>> = (0..data.len())
                .rev()
                .collect::<Vec<_>>()
                .chunks(size)
                .map(|c| c.to_vec())
                .collect();
            let got: Vec<Vec<usize>> = (0..data.len()).pipe().rev().chunks(size).collect(ex);
            assert_eq!(got, want, "range.rev.chunks({size}): {what}");
            let back: Vec<Vec<usize>> = (0..data.len()).pipe().chunks(size).rev().collect(ex);
            let mut want: Vec<Vec<usize>> = (0..data.len())
                .collect::<Vec<_>>()
                .chunks(size)
                .map(|c| c.to_vec())
                .collect();
            want.reverse();
            assert_eq!(back, want, "range.chunks({size}).rev: {what}");
        }
    });
    let payload = std::panic::catch_unwind(|| (0..3).pipe().chunks(0)).unwrap_err();
    let message = payload.downcast_ref::<String>().unwrap();
    assert_eq!(message, "chunk size must be at least 1, got 0");
}

#[test]
fn update_matches_a_map_that_mutates() {
    each_case("update", |ex, data, what| {
        let got: Vec<(usize, u64)> = data
            .pipe()
            .copied()
            .update(|x| *x += 1)
            .enumerate()
            .collect(ex);
        let want: Vec<(usize, u64)> = data.iter().map(|x| x + 1).enumerate().collect();
        assert_eq!(got, want, "update.enumerate: {what}");
        let got: Vec<u64> = data
            .pipe()
            .filter(|x| **x % 3 == 0)
            .map(|x| *x)
            .update(|x| *x *= 7)
            .collect(ex);
        let want: Vec<u64> = data
            .iter()
            .filter(|x| **x % 3 == 0)
            .map(|x| x * 7)
            .collect();
        assert_eq!(got, want, "filter.update: {what}");
    });
}

/// `panic_fuse` is the identity: a panic already stops the work to its right, so a panic at
/// the first item of a huge range ends the fold long before the range does, on every executor,
/// with or without it, and the payload is the sequential one.
#[test]
fn panic_fuse_is_the_identity_a_panic_already_stops_the_rest() {
    let n = 1usize << 40;
    for (name, ex) in executors() {
        for fused in [false, true] {
            let seen = AtomicUsize::new(0);
            let run = || {
                let step = |x: usize| {
                    seen.fetch_add(1, Relaxed);
                    assert!(x >= 5, "item {x}");
                };
                let pipeline = (0..n).pipe();
                if fused {
                    pipeline.panic_fuse().for_each(&*ex, step)
                } else {
                    pipeline.for_each(&*ex, step)
                }
            };
            let payload = watchdog(&name, || {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_err()
            });
            assert_eq!(
                payload.downcast_ref::<String>().unwrap(),
                "item 0",
                "{name}"
            );
            assert!(
                seen.into_inner() < 1 << 30,
                "{name}: the panic did not stop the fold"
            );
        }
    }
}

#[test]
fn debug_of_pipelines_with_closures_names_the_stages() {
    let p = (0..3).pipe().map(|x| x + 1).filter(|x| x % 2 == 0);
    assert_eq!(
        format!("{p:?}"),
        "Pipeline { source: Map { inner: Ints { start: 0, len: 3 }, .. }, \
         transform: Xf(Filter { .. }), codec: None }"
    );
    let q = [1u8, 2]
        .pipe()
        .map(|x| *x)
        .update(|x| *x += 1)
        .skip(1)
        .inspect(|_| ())
        .map_init(Vec::<u8>::new, |_, x| x)
        .skip_while(|x| *x > 9)
        .update(|x| *x += 1);
    let shown = format!("{q:?}");
    for stage in [
        "Map",
        "Update",
        "Window",
        "Inspect",
        "MapInit",
        "SkipWhile",
        "UpdateStage",
    ] {
        assert!(shown.contains(stage), "{shown} names {stage}");
    }
}

#[test]
fn chain_after_a_transform_matches_std() {
    each_case("chain after filter", |ex, data, what| {
        let other: Vec<u64> = data.iter().rev().map(|x| x + 7).collect();
        let chained = || {
            data.pipe()
                .filter(|x| **x % 2 == 0)
                .map(|x| *x)
                .chain(other.pipe().map(|x| x * 3).filter(|x| x % 5 != 0))
        };
        let std_chained = || {
            data.iter()
                .filter(|x| **x % 2 == 0)
                .copied()
                .chain(other.iter().map(|x| x * 3).filter(|x| x % 5 != 0))
        };
        let got: Vec<u64> = chained().collect(ex);
        assert_eq!(got, std_chained().collect::<Vec<_>>(), "collect: {what}");
        assert_eq!(chained().count(ex), std_chained().count(), "count: {what}");
        for bound in [0, 100, 500, 1000] {
            let got = chained().find_first(ex, |x| *x > bound);
            assert_eq!(
                got,
                std_chained().find(|x| *x > bound),
                "find_first > {bound}: {what}"
            );
            let got: Vec<u64> = chained().take_while(|x| *x < bound).collect(ex);
            let want: Vec<u64> = std_chained().take_while(|x| *x < bound).collect();
            assert_eq!(got, want, "take_while < {bound}: {what}");
        }
        let got: Vec<(u64, u64)> = chained().flat_map(|x| [(x, 0), (x, 1)]).collect(ex);
        let want: Vec<(u64, u64)> = std_chained().flat_map(|x| [(x, 0), (x, 1)]).collect();
        assert_eq!(got, want, "flat_map after: {what}");
    });
}

#[test]
fn chain_after_a_transform_stops_early_across_the_join() {
    let first = (0..10usize).pipe().filter(|x| x % 2 == 0);
    let second = (0..usize::MAX / 2).pipe().map(|x| x + 10).filter(|_| true);
    let both = first.chain(second);
    for (name, ex) in executors() {
        let found = watchdog(&name, || both.find_first(&*ex, |x| *x == 12));
        assert_eq!(found, Some(12), "{name}");
    }
}

#[test]
fn chain_after_a_stage_that_stops_is_refused() {
    let payload = std::panic::catch_unwind(|| {
        let _ = (0..3)
            .pipe()
            .take_while(|x| *x < 2)
            .chain((0..3).pipe().filter(|_| true));
    })
    .unwrap_err();
    let message = payload.downcast_ref::<&str>().unwrap();
    assert!(
        message.starts_with("chain: a side with take_while"),
        "{message}"
    );
}

/// A panic in a `map` on an item that `skip` or `step_by` drops is raised, with its payload,
/// as std raises it; so is the first panic of an `update`.
#[test]
fn panics_on_dropped_items_reach_the_caller_with_their_payload() {
    for (name, ex) in executors() {
        let boom = |x: usize| {
            assert!(x != 2 && x != 40, "item {x}");
            x
        };
        let message = |run: &dyn Fn()| {
            let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_err();
            payload.downcast_ref::<String>().unwrap().clone()
        };
        let skipped = message(&|| {
            (0..100usize).pipe().map(boom).skip(5).count(&*ex);
        });
        assert_eq!(skipped, "item 2", "skip: {name}");
        let stepped = message(&|| {
            (10..100usize).pipe().map(boom).step_by(7).count(&*ex);
        });
        assert_eq!(stepped, "item 40", "step_by: {name}");
        let updated = message(&|| {
            (0..100usize)
                .pipe()
                .update(|x| assert!(*x < 60 || *x % 2 == 1, "update {x}"))
                .count(&*ex);
        });
        assert_eq!(updated, "update 60", "update: {name}");
    }
}
