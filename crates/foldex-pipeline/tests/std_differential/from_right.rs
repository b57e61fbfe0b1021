//! Searches that stop from the right (`find_last`, `position_last`) against `std`'s `rfind` and
//! `rposition`, and ranges of wide integer types longer than `usize::MAX`, on several
//! executors through `&dyn Executor`.

use crate::common::executors;

use foldex_core::{Executor, Stream};
use foldex_pipeline::adapters::WideMap;
use foldex_pipeline::{from_stream, IntoPipeline};
use foldex_testkit::watchdog;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

const LENGTHS: [usize; 8] = [0, 1, 2, 3, 7, 31, 97, 1009];

/// Runs `check` for every executor of the shared list and every length of [`LENGTHS`].
fn each_case(name: &str, check: impl Fn(&dyn Executor, &[u64], &str)) {
    crate::common::each_case(name, &LENGTHS, 58, check)
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
            let half = |x: u64| (!x.is_multiple_of(3)).then_some(x / 2);
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
            let streamed = from_stream(Stream::new(data.iter().copied()));
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
            let got = all.find_map_last(&*ex, |x| (x % 3 == 0).then_some(x / 3));
            assert_eq!(got, Some(usize::MAX / 3 - 1), "find_map_last: {name}");
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

/// Ranges of `u128` and `i128` longer than `usize::MAX`: searches stop at the decisive item
/// from either end; `take_while` ends a count.
#[test]
fn ranges_longer_than_usize_are_searched() {
    watchdog("long ranges", || {
        let big = 10u128.pow(27);
        for (name, ex) in executors() {
            let ex = &*ex;
            let all = || (0..big).pipe();
            let hit = |x: &u128| x % 1_000_003 == 17;
            assert_eq!(all().find_first(ex, hit), Some(17), "{name}");
            assert_eq!(all().find_any(ex, hit), Some(17), "{name}");
            let last = 999_999_999_999_999_999_999_919_017;
            assert_eq!(all().find_last(ex, hit), Some(last), "{name}");
            assert!(all().any(ex, |x| x == 5000), "{name}");
            assert!(!all().all(ex, |x| x < 5000), "{name}");
            let odd_pairs = all().filter(|x| x % 2 == 1).flat_map(|x| [x, x + big]);
            let got = odd_pairs.find_last(ex, |y| y % 10 == 3);
            assert_eq!(got, Some(2 * big - 7), "{name}");
            let past = usize::MAX as u128;
            let want: u128 = (past..past + 10).sum();
            assert_eq!((past..past + 10).pipe().sum::<u128>(ex), want, "{name}");
            let small = all().take_while(|&x| x < 1000).filter(|x| x % 7 == 0);
            assert_eq!(small.count(ex), 143, "{name}");
            let got = all().dedup().find_first(ex, |x| *x == 12_345);
            assert_eq!(got, Some(12_345), "{name}");
            let signed = || (i128::MIN..=i128::MAX).pipe();
            let seventh = |x: &i128| x % 7 == 0;
            assert_eq!(
                signed().find_first(ex, seventh),
                Some(i128::MIN + 2),
                "{name}"
            );
            assert_eq!(
                signed().find_last(ex, seventh),
                Some(i128::MAX - 1),
                "{name}"
            );
            let near_min = (i128::MIN..i128::MIN + 10).pipe();
            assert_eq!(near_min.count(ex), 10, "{name}");
            // The full u64 range (2^64 items) through u128, filtered back to u64.
            let full = || {
                (0..=u64::MAX as u128)
                    .pipe()
                    .filter_map(|x| u64::try_from(x).ok())
            };
            assert_eq!(full().find_last(ex, |x| x % 10 == 3), Some(u64::MAX - 2));
            assert_eq!(full().find_first(ex, |x| *x > 5), Some(6), "{name}");
            assert!(full().any(ex, |x| x == 1000), "{name}");
            // ... and with `map` as the first stage (and a second `map`).
            let mapped = || (0..=u64::MAX).pipe().map(|x| x ^ 1);
            assert_eq!(mapped().find_last(ex, |x| x % 10 == 3), Some(u64::MAX - 2));
            // The items 1, 0, 3, 2, ..., u64::MAX, u64::MAX - 1.
            assert_eq!(mapped().find_first(ex, |x| *x > 5), Some(7), "{name}");
            assert_eq!(mapped().find_any(ex, |x| *x > 5), Some(7), "{name}");
            assert!(mapped().any(ex, |x| x == 1000), "{name}");
            assert!(!mapped().all(ex, |x| x < 1000), "{name}");
            let small = mapped().take_while(|&x| x < 1000).filter(|x| x % 7 == 0);
            assert_eq!(small.count(ex), 143, "{name}");
            let halves = || all().map(|x| x / 2).map(|x| x + 1);
            assert_eq!(
                halves().find_first(ex, |x| x % 1000 == 7),
                Some(7),
                "{name}"
            );
            let got = halves().find_last(ex, |x| x % 1000 == 7);
            assert_eq!(got, Some(big / 2 - 993), "{name}");
            let got = mapped().position_any(ex, |x| x == 77);
            assert_eq!(got, Some(76), "{name}");
        }
    });
}

/// A range of `u128` or `i128` of every small length gives what `std` gives.
#[test]
fn small_wide_ranges_match_std() {
    each_case("small wide ranges", |ex, data, what| {
        let n = data.len() as i128;
        for first in [i128::MIN, -3, u64::MAX as i128, i128::MAX - n] {
            let std = || first..first + n;
            let wide = || (first..first + n).pipe();
            let hit = |x: &i128| x.rem_euclid(3) == 1;
            assert_eq!(wide().find_first(ex, hit), std().find(hit), "{what}");
            assert_eq!(wide().find_last(ex, hit), std().rfind(hit), "{what}");
            assert_eq!(wide().count(ex), std().count(), "{what}");
            let thrice = |x: i128| Some(x.wrapping_mul(3));
            let got: Vec<i128> = wide().filter_map(thrice).collect(ex);
            assert_eq!(got, std().filter_map(thrice).collect::<Vec<_>>(), "{what}");
            // `map` as the first stage, and a second one, over a range that is not indexable.
            let shifted = |x: i128| x.wrapping_sub(first);
            let got: Vec<i128> = wide().map(shifted).collect(ex);
            assert_eq!(got, std().map(shifted).collect::<Vec<_>>(), "map: {what}");
            let got = wide()
                .map(shifted)
                .map(|x| x * 2)
                .find_last(ex, |x| x % 3 == 1);
            let want = std().map(shifted).map(|x| x * 2).rfind(|x| x % 3 == 1);
            assert_eq!(got, want, "map, map, find_last: {what}");
            let got: Vec<i128> = wide()
                .map(shifted)
                .dedup()
                .skip_while(|x| x % 5 != 4)
                .collect(ex);
            let want: Vec<i128> = std().map(shifted).skip_while(|x| x % 5 != 4).collect();
            assert_eq!(got, want, "map, dedup, skip_while: {what}");
            let got = wide().map(shifted).filter(|x| x % 2 == 0).sum::<i128>(ex);
            assert_eq!(
                got,
                std().map(shifted).filter(|x| x % 2 == 0).sum(),
                "{what}"
            );
            let got = (first..=first + n).pipe().position_last(ex, |x| hit(&x));
            let inclusive: Vec<i128> = (first..=first + n).collect();
            assert_eq!(got, inclusive.iter().rposition(hit), "{what}");
        }
        let top = u128::MAX - data.len() as u128;
        let got: Vec<u128> = (top..=u128::MAX).pipe().filter(|x| x % 2 == 0).collect(ex);
        let want: Vec<u128> = (top..=u128::MAX).filter(|x| x % 2 == 0).collect();
        assert_eq!(got, want, "{what}");
    });
}

/// The inclusive ranges of the 64-bit types, whose full ranges hold `usize::MAX + 1` items, on
/// every executor: the searches stop at the decisive item from either end, and what needs the
/// whole range is bounded by a `take_while`; each answer is std's over the few items at the
/// range's end that decide it, and the first ones written out.
#[test]
fn inclusive_64_bit_ranges_hold_2_pow_64_items() {
    macro_rules! check {
        ($t:ty, $ex:expr, $name:expr) => {{
            let (ex, name) = ($ex, $name);
            let all = || (<$t>::MIN..=<$t>::MAX).pipe();
            let (min, max) = (<$t>::MIN, <$t>::MAX);
            // std's answers over the first and last 10 000 items.
            let head = || min..min + 10_000;
            let tail = || max - 10_000..=max;
            let hit = |x: &$t| x.rem_euclid(1000) == 1;
            let what = format!("{}, {name}", stringify!($t));
            assert_eq!(all().find_first(ex, hit), head().find(hit), "{what}");
            assert_eq!(all().find_any(ex, hit), head().find(hit), "{what}");
            assert_eq!(all().find_last(ex, hit), tail().rfind(hit), "{what}");
            let thirds = |x: $t| x / 3;
            let got = all().map(thirds).find_last(ex, hit);
            assert_eq!(got, tail().map(thirds).rfind(hit), "{what}");
            let third = |x: &$t| x.rem_euclid(3) != 0;
            let got = all().filter(third).find_first(ex, hit);
            assert_eq!(got, head().filter(third).find(hit), "{what}");
            assert!(all().any(ex, |x| x == min + 5000), "{what}");
            assert!(!all().all(ex, |x| x < min + 5000), "{what}");
            let bounded = || all().take_while(|&x| x < min + 10_000);
            let seventh = |x: &$t| x.rem_euclid(7) == 0;
            let got = bounded().filter(seventh).count(ex);
            assert_eq!(got, head().filter(seventh).count(), "{what}");
            let odd = |x: &$t| x.rem_euclid(97) == 13;
            let got = bounded().filter(odd).min(ex);
            assert_eq!(got, head().filter(odd).min(), "{what}");
            let got = bounded().filter(odd).max(ex);
            assert_eq!(got, head().filter(odd).max(), "{what}");
            let got = bounded().map(|x| x.wrapping_mul(31)).max(ex);
            assert_eq!(got, head().map(|x| x.wrapping_mul(31)).max(), "{what}");
        }};
    }
    watchdog("2^64 items", || {
        for (name, ex) in executors() {
            let ex = &*ex;
            check!(u64, ex, &name);
            check!(i64, ex, &name);
            check!(usize, ex, &name);
            check!(isize, ex, &name);
            // The answers written out: u64::MAX ends in 615, i64::MIN in -808.
            let hit = |x: &u64| x % 1000 == 1;
            let got = (0..=u64::MAX).pipe().find_last(ex, hit);
            assert_eq!(got, Some(u64::MAX - 614), "{name}");
            let hit = |x: &i64| x.rem_euclid(1000) == 1;
            let got = (i64::MIN..=i64::MAX).pipe().find_first(ex, hit);
            assert_eq!(got, Some(i64::MIN + 809), "{name}");
            let got = (i64::MIN..=i64::MAX).pipe().find_last(ex, hit);
            assert_eq!(got, Some(i64::MAX - 806), "{name}");
        }
    });
}

/// Inclusive ranges of the 64-bit types of every small length, anywhere in the type's range,
/// give what `std` gives.
#[test]
fn small_inclusive_64_bit_ranges_match_std() {
    macro_rules! check {
        ($t:ty, $ex:expr, $n:expr, $what:expr) => {{
            let (ex, n, what) = ($ex, $n as $t, $what);
            for first in [<$t>::MIN, <$t>::MIN / 2 + 3, 0, <$t>::MAX - n] {
                // `n + 1` items (fewer at the type's end), and none.
                for (first, last) in [
                    (first, first.saturating_add(n)),
                    (first.saturating_add(1), first),
                ] {
                    let std = || first..=last;
                    let wide = || (first..=last).pipe();
                    let what = format!("{} {first}..={last}: {what}", stringify!($t));
                    let hit = |x: &$t| x.rem_euclid(3) == 1;
                    assert_eq!(wide().find_first(ex, hit), std().find(hit), "{what}");
                    assert_eq!(wide().find_last(ex, hit), std().rfind(hit), "{what}");
                    assert_eq!(
                        wide().any(ex, |x| hit(&x)),
                        std().any(|x| hit(&x)),
                        "{what}"
                    );
                    assert_eq!(
                        wide().all(ex, |x| hit(&x)),
                        std().all(|x| hit(&x)),
                        "{what}"
                    );
                    assert_eq!(wide().count(ex), std().count(), "{what}");
                    assert_eq!(wide().min(ex), std().min(), "{what}");
                    assert_eq!(wide().max(ex), std().max(), "{what}");
                    let low = |x: $t| x.rem_euclid(10);
                    let got: Vec<$t> = wide().map(low).collect(ex);
                    assert_eq!(got, std().map(low).collect::<Vec<_>>(), "{what}");
                    let got = wide().filter(hit).map(low).sum::<$t>(ex);
                    assert_eq!(got, std().filter(hit).map(low).sum::<$t>(), "{what}");
                    let got = wide().position_last(ex, |x| hit(&x));
                    let items: Vec<$t> = std().collect();
                    assert_eq!(got, items.iter().rposition(hit), "{what}");
                }
            }
        }};
    }
    each_case("small inclusive 64-bit ranges", |ex, data, what| {
        let n = data.len();
        check!(u64, ex, n, what);
        check!(i64, ex, n, what);
        check!(usize, ex, n, what);
        check!(isize, ex, n, what);
    });
}
