//! The index-preserving adapters that rayon has (`zip_eq`, `interleave`, `chunks` of any
//! pipeline, `update`, `panic_fuse`, `with_min_len` / `with_max_len`), `chain` after a
//! transform, `Debug` of pipelines, and the side effects of the items `skip` and `step_by`
//! drop, against `std::iter` (or a sequential model where std lacks the method), on several
//! executors through `&dyn Executor`, over lengths 0, 1, primes and 10^5.

use foldex_core::{Basesize, Executor};
use foldex_pipeline::IntoPipeline;
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

const LENGTHS: [usize; 8] = [0, 1, 2, 3, 7, 31, 1009, 20_011];

fn executors() -> Vec<(String, Box<dyn Executor>)> {
    let fixed = |n| Basesize::Fixed(NonZeroUsize::new(n).unwrap());
    let mut all: Vec<(String, Box<dyn Executor>)> =
        vec![("SequentialEx".into(), Box::new(SequentialEx))];
    for basesize in [Basesize::Auto, fixed(1), fixed(7)] {
        all.push((
            format!("ThreadedEx(2, {basesize})"),
            Box::new(ThreadedEx::new().threads(2).with_basesize(basesize)),
        ));
    }
    for basesize in [fixed(1), fixed(7)] {
        all.push((
            format!("TaskPoolEx(3, {basesize})"),
            Box::new(TaskPoolEx::new().ntasks(3).with_basesize(basesize)),
        ));
    }
    all
}

/// Runs `check` for every executor and length, with the data `0..len` as `u64`s (scrambled but
/// fixed).
fn each_case(name: &str, check: impl Fn(&dyn Executor, &[u64], &str)) {
    watchdog(name, || {
        let executors = executors();
        for &len in &LENGTHS {
            let data: Vec<u64> = (0..len as u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54)
                .collect();
            for (ex_name, ex) in &executors {
                check(&**ex, &data, &format!("{name}, {ex_name}, len {len}"));
            }
        }
    });
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
                data.pipe().map(f).enumerate().skip(k).step_by(3).collect(ex)
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
