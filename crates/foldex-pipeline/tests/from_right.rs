//! Searches that stop from the right (`find_last`, `position_last`) against `std`'s `rfind` and
//! `rposition`, and ranges of wide integer types longer than `usize::MAX`, on several
//! executors through `&dyn Executor`.

use foldex_core::{Basesize, Executor, Stream};
use foldex_pipeline::{from_stream, IntoPipeline};
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::num::NonZeroUsize;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

const LENGTHS: [usize; 8] = [0, 1, 2, 3, 7, 31, 97, 1009];

fn executors() -> Vec<(String, Box<dyn Executor>)> {
    let fixed = |n| Basesize::Fixed(NonZeroUsize::new(n).unwrap());
    let mut all: Vec<(String, Box<dyn Executor>)> =
        vec![("SequentialEx".into(), Box::new(SequentialEx))];
    for basesize in [Basesize::Auto, fixed(1), fixed(7)] {
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

/// Runs `check` for every executor and length, with fixed pseudo-random data of that length.
fn each_case(name: &str, check: impl Fn(&dyn Executor, &[u64], &str)) {
    watchdog(name, || {
        let executors = executors();
        for &len in &LENGTHS {
            let data: Vec<u64> = (0..len as u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
                .collect();
            for (ex_name, ex) in &executors {
                check(&**ex, &data, &format!("{name}, {ex_name}, len {len}"));
            }
        }
    });
}

/// The text of a panic's payload.
fn message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(text) => *text,
        Err(payload) => payload
            .downcast::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    }
}

#[test]
fn find_last_matches_rfind() {
    each_case("find_last", |ex, data, what| {
        for target in [0u64, 1, 5, 63, 64] {
            let hit = |x: &u64| *x % 7 == target % 7 && *x >= target / 2;
            let want = data.iter().copied().rfind(hit);
            let got = data.pipe().copied().find_last(ex, hit);
            assert_eq!(got, want, "indexable {target}: {what}");
            let got = data.pipe().map(|&x| x * 3).find_last(ex, |x| hit(&(x / 3)));
            assert_eq!(got, want.map(|x| x * 3), "map {target}: {what}");
            let odd = |x: &u64| x % 2 == 1;
            let want = data.iter().copied().filter(odd).rfind(hit);
            let got = data.pipe().copied().filter(odd).find_last(ex, hit);
            assert_eq!(got, want, "filter {target}: {what}");
            let half = |x: u64| (x % 3 != 0).then_some(x / 2);
            let want = data.iter().copied().filter_map(half).rfind(hit);
            let got = data.pipe().copied().filter_map(half).inspect(|_| ());
            assert_eq!(got.find_last(ex, hit), want, "filter_map {target}: {what}");
            // Each item becomes 0 to 3 pairs; the last match inside one item's outputs wins.
            let pairs = |x: u64| (0..x % 4).map(move |k| (x, k));
            let hit2 = |&(x, k): &(u64, u64)| hit(&x) && k % 2 == target % 2;
            let want = data.iter().copied().flat_map(pairs).rfind(hit2);
            let got = data.pipe().copied().flat_map(pairs).find_last(ex, hit2);
            assert_eq!(got, want, "flat_map {target}: {what}");
            // Stages with state or a stop fold everything, with the same answer.
            let small = |x: &u64| *x < 60;
            let want = data.iter().copied().take_while(small).filter(hit).last();
            let got = data.pipe().copied().take_while(small).find_last(ex, hit);
            assert_eq!(got, want, "take_while {target}: {what}");
            let mut deduped = data.to_vec();
            deduped.dedup();
            let want = deduped.iter().copied().rfind(hit);
            let got = data.pipe().copied().dedup().find_last(ex, hit);
            assert_eq!(got, want, "dedup {target}: {what}");
            let streamed = from_stream(Stream::new(data.to_vec().into_iter()));
            let want = data.iter().copied().rfind(hit);
            assert_eq!(streamed.find_last(ex, hit), want, "stream {target}: {what}");
        }
    });
}

#[test]
fn position_last_matches_rposition() {
    each_case("position_last", |ex, data, what| {
        for target in [0u64, 1, 5, 63, 64] {
            let hit = |x: u64| x % 5 == target % 5 && x >= target / 2;
            let want = data.iter().rposition(|&x| hit(x));
            assert_eq!(data.pipe().position_last(ex, |&x| hit(x)), want, "{what}");
            let got = data
                .pipe()
                .map(|&x| x + 1)
                .position_last(ex, |x| hit(x - 1));
            assert_eq!(got, want, "map {target}: {what}");
            let got = data.pipe().rev().position_last(ex, |&x| hit(x));
            let want = data.iter().rev().rposition(|&x| hit(x));
            assert_eq!(got, want, "rev {target}: {what}");
            // Past a filter the position counts the items that pass it.
            let kept: Vec<u64> = data.iter().copied().filter(|x| x % 3 != 1).collect();
            let want = kept.iter().rposition(|&x| hit(x));
            let got = data
                .pipe()
                .copied()
                .filter(|x| x % 3 != 1)
                .position_last(ex, hit);
            assert_eq!(got, want, "filter {target}: {what}");
        }
    });
}

/// The predicate runs on few items left of the match: pieces left of it are cancelled.
#[test]
fn find_last_stops_early() {
    watchdog("find_last stops early", || {
        let n = 1_000_000usize;
        for (name, ex) in executors() {
            let calls = AtomicUsize::new(0);
            let last_even_seventh = (0..n).pipe().filter(|x| x % 2 == 0).find_last(&*ex, |x| {
                calls.fetch_add(1, Ordering::Relaxed);
                x % 7 == 0
            });
            assert_eq!(last_even_seventh, (0..n).rev().find(|x| x % 14 == 0));
            let calls = calls.into_inner();
            assert!(calls < n / 20, "{name}: {calls} predicate calls of {n}");
            let calls = AtomicUsize::new(0);
            let position = (0..n).pipe().position_last(&*ex, |x| {
                calls.fetch_add(1, Ordering::Relaxed);
                x % 1000 == 3
            });
            assert_eq!(position, Some(n - 997), "{name}");
            let calls = calls.into_inner();
            assert!(calls < n / 20, "{name}: {calls} predicate calls of {n}");
        }
    });
}

/// A search over `0..usize::MAX` returns.
#[test]
fn find_last_over_everything_returns() {
    watchdog("find_last over 0..usize::MAX", || {
        for (name, ex) in executors() {
            let all = (0..usize::MAX).pipe();
            assert_eq!(
                all.find_last(&*ex, |x| x % 3 == 0),
                Some(usize::MAX - 3),
                "{name}"
            );
            let pairs = all
                .clone()
                .filter(|x| x % 2 == 0)
                .flat_map(|x| [x / 2, x / 2 + 1]);
            let got = pairs.find_last(&*ex, |y| y % 5 == 0);
            assert_eq!(got, Some(usize::MAX / 2 - 2), "{name}");
            let got = all.map(|x| x / 2).position_last(&*ex, |y| y % 4 == 0);
            assert_eq!(got, Some(usize::MAX - 6), "{name}");
        }
    });
}

/// A panic right of the match is raised, as `rfind` raises it; one left of it never happens.
#[test]
fn panics_right_of_the_match_are_raised() {
    watchdog("find_last panics", || {
        for (name, ex) in executors() {
            for len in [1usize, 2, 7, 97, 1009] {
                let at = len - 1;
                let raised = catch_unwind(AssertUnwindSafe(|| {
                    (0..len).pipe().filter(|_| true).find_last(&*ex, |&x| {
                        assert!(x != at, "boom at {x}");
                        x == 0
                    })
                }));
                let text = message(raised.expect_err("a panic right of the match"));
                assert_eq!(text, format!("boom at {at}"), "{name}, len {len}");
                // The panic is left of the match, which rfind never reaches.
                let got = (0..len).pipe().find_last(&*ex, |&x| {
                    assert!(x != 0 || len == 1, "boom at 0");
                    len == 1 || x == len - 1
                });
                assert_eq!(got, Some(len - 1), "{name}, len {len}");
                let raised = catch_unwind(AssertUnwindSafe(|| {
                    (0..len).pipe().position_last(&*ex, |x| {
                        assert!(x != at, "position boom at {x}");
                        false
                    })
                }));
                let text = message(raised.expect_err("position_last's panic"));
                assert_eq!(text, format!("position boom at {at}"), "{name}, len {len}");
            }
        }
    });
}

/// A range longer than `usize::MAX` is not a pipeline's source: `pipe()` panics naming it and
/// the way to search it, a stream of its items, which these searches stop early on.
#[test]
fn ranges_longer_than_usize_are_searched_as_streams() {
    watchdog("long ranges", || {
        let big = 10u128.pow(27);
        let refused = catch_unwind(|| (0..big).pipe().len());
        let text = message(refused.expect_err("a range longer than usize::MAX"));
        assert!(text.contains("0..1000000000000000000000000000"), "{text}");
        assert!(text.contains("from_stream(Stream::new(range))"), "{text}");
        let refused = catch_unwind(|| (0..=u64::MAX).pipe().len());
        assert!(refused.is_err(), "0..=u64::MAX has 2^64 items");
        for (name, ex) in executors() {
            let up = || from_stream(Stream::new(0..big));
            let down = || from_stream(Stream::new((0..big).rev()));
            let hit = |x: &u128| x % 1_000_003 == 17;
            assert_eq!(up().find_first(&*ex, hit), Some(17), "{name}");
            assert_eq!(
                down().find_first(&*ex, hit),
                Some(999_999_999_999_999_999_999_919_017),
                "{name}"
            );
            assert!(up().any(&*ex, |x| x == 5000), "{name}");
            assert!(!up().all(&*ex, |x| x < 5000), "{name}");
            let near_min = from_stream(Stream::new(i128::MIN..=i128::MAX));
            assert_eq!(
                near_min.find_first(&*ex, |x| x % 7 == 0),
                Some(i128::MIN + 2)
            );
            let near_max = from_stream(Stream::new((i128::MIN..=i128::MAX).rev()));
            assert_eq!(
                near_max.find_first(&*ex, |x| x % 7 == 0),
                Some(i128::MAX - 1)
            );
            let full = from_stream(Stream::new((0..=u64::MAX).rev()));
            assert_eq!(full.find_first(&*ex, |x| x % 10 == 3), Some(u64::MAX - 2));
        }
    });
}
