//! Every adapter, transform and reduction against the same chain on `std::iter`, on every
//! executor configuration, over lengths 0, 1, primes and 10^5.

use foldex_core::Executor;
use foldex_pipeline::IntoPipeline;
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::ControlFlow;

const LENGTHS: [usize; 9] = [0, 1, 2, 3, 7, 31, 97, 1009, 100_000];

const BASESIZES: [usize; 4] = [0, 1, 7, 4096];

fn executors() -> Vec<(String, Box<dyn Executor>)> {
    super::common::executors_with_basesizes(&BASESIZES)
}

/// Runs `check` for every executor and length, with the data `0..len` as `u64`s (pseudo-random
/// but fixed, so that min/max and ties are exercised).
fn each_case(name: &str, check: impl Fn(&dyn Executor, &[u64], &str)) {
    super::common::each_case_with_basesizes(name, &BASESIZES, &LENGTHS, 54, check);
}

#[test]
fn index_preserving_adapters_match_std() {
    each_case("adapters", |ex, data, what| {
        let n = data.len();
        let got: Vec<(usize, u64)> = data.pipe().copied().enumerate().collect(ex);
        let want: Vec<(usize, u64)> = data.iter().copied().enumerate().collect();
        assert_eq!(got, want, "enumerate: {what}");

        let other: Vec<u64> = (0..n as u64 / 2 + 3).collect();
        let got: Vec<u64> = data
            .pipe()
            .zip(&other)
            .map(|(a, b)| a * 1000 + b)
            .collect(ex);
        let want: Vec<u64> = data.iter().zip(&other).map(|(a, b)| a * 1000 + b).collect();
        assert_eq!(got, want, "zip: {what}");

        for (skip, take) in [(0, 0), (1, 5), (n / 3, n / 2), (n, 1), (n + 5, 3)] {
            let got: Vec<u64> = data.pipe().skip(skip).take(take).copied().collect(ex);
            let want: Vec<u64> = data.iter().skip(skip).take(take).copied().collect();
            assert_eq!(got, want, "skip {skip} take {take}: {what}");
        }
        for step in [1, 2, 3, 1000] {
            let got: Vec<u64> = data.pipe().step_by(step).copied().collect(ex);
            let want: Vec<u64> = data.iter().step_by(step).copied().collect();
            assert_eq!(got, want, "step_by {step}: {what}");
        }
        let got: Vec<u64> = data.pipe().rev().copied().collect(ex);
        let want: Vec<u64> = data.iter().rev().copied().collect();
        assert_eq!(got, want, "rev: {what}");

        let got: Vec<u64> = data.pipe().chain(&other).copied().collect(ex);
        let want: Vec<u64> = data.iter().chain(&other).copied().collect();
        assert_eq!(got, want, "chain: {what}");

        for size in [1, 2, 5, 64] {
            let got: Vec<u64> = data
                .pipe()
                .chunks(size)
                .map(|c| c.iter().sum::<u64>())
                .collect(ex);
            let want: Vec<u64> = data.chunks(size).map(|c| c.iter().sum::<u64>()).collect();
            assert_eq!(got, want, "chunks {size}: {what}");
            let got: Vec<u64> = data
                .pipe()
                .windows(size)
                .map(|w| w[0] + w[w.len() - 1])
                .collect(ex);
            let want: Vec<u64> = data.windows(size).map(|w| w[0] + w[w.len() - 1]).collect();
            assert_eq!(got, want, "windows {size}: {what}");
        }
    });
}

#[test]
fn transforms_match_std() {
    each_case("transforms", |ex, data, what| {
        let got: Vec<u64> = data
            .pipe()
            .copied()
            .filter(|x| x % 3 == 0)
            .map(|x| x + 1)
            .collect(ex);
        let want: Vec<u64> = data
            .iter()
            .copied()
            .filter(|x| x % 3 == 0)
            .map(|x| x + 1)
            .collect();
        assert_eq!(got, want, "filter map: {what}");

        let got: Vec<u64> = data
            .pipe()
            .filter_map(|&x| (x % 5 != 0).then_some(x * 2))
            .collect(ex);
        let want: Vec<u64> = data
            .iter()
            .filter_map(|&x| (x % 5 != 0).then_some(x * 2))
            .collect();
        assert_eq!(got, want, "filter_map: {what}");

        let got: Vec<u64> = data.pipe().flat_map(|&x| 0..x % 4).collect(ex);
        let want: Vec<u64> = data.iter().flat_map(|&x| 0..x % 4).collect();
        assert_eq!(got, want, "flat_map: {what}");

        for limit in [0, 100, 900, 1024] {
            let got: Vec<u64> = data.pipe().copied().take_while(|&x| x < limit).collect(ex);
            let want: Vec<u64> = data.iter().copied().take_while(|&x| x < limit).collect();
            assert_eq!(got, want, "take_while < {limit}: {what}");
            let got: u64 = data.pipe().map_while(|&x| (x < limit).then_some(x)).sum(ex);
            let want: u64 = data.iter().map_while(|&x| (x < limit).then_some(x)).sum();
            assert_eq!(got, want, "map_while < {limit}: {what}");
        }

        let seen = std::sync::atomic::AtomicU64::new(0);
        let total: u64 = data
            .pipe()
            .copied()
            .inspect(|&x| {
                seen.fetch_add(x, std::sync::atomic::Ordering::Relaxed);
            })
            .sum(ex);
        assert_eq!(total, seen.into_inner(), "inspect: {what}");

        let got: Vec<usize> = data
            .pipe()
            .map_init(String::new, |buf, &x| {
                buf.clear();
                buf.push_str(&x.to_string());
                buf.len()
            })
            .collect(ex);
        let want: Vec<usize> = data.iter().map(|x| x.to_string().len()).collect();
        assert_eq!(got, want, "map_init: {what}");

        let digits = std::sync::atomic::AtomicUsize::new(0);
        data.pipe().for_each_init(ex, String::new, |buf, &x| {
            buf.clear();
            buf.push_str(&x.to_string());
            digits.fetch_add(buf.len(), std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(
            digits.into_inner(),
            want.iter().sum::<usize>(),
            "for_each_init: {what}"
        );
    });
}

#[test]
fn reductions_match_std() {
    each_case("reductions", |ex, data, what| {
        let items = || data.iter().copied();
        let p = data.pipe().copied();
        assert_eq!(p.count(ex), data.len(), "count: {what}");
        assert_eq!(p.sum::<u64>(ex), items().sum::<u64>(), "sum: {what}");
        assert_eq!(
            p.take(30).map(|x| x % 3 + 1).product::<u64>(ex),
            items().take(30).map(|x| x % 3 + 1).product::<u64>(),
            "product: {what}"
        );
        assert_eq!(p.min(ex), items().min(), "min: {what}");
        assert_eq!(p.max(ex), items().max(), "max: {what}");
        // Ties: items are (key, index); std keeps the first minimum and the last maximum.
        let keyed = data.pipe().copied().enumerate();
        let std_keyed = || items().enumerate();
        assert_eq!(
            keyed.min_by_key(ex, |(_, x)| x % 7),
            std_keyed().min_by_key(|(_, x)| x % 7),
            "min_by_key: {what}"
        );
        assert_eq!(
            keyed.max_by_key(ex, |(_, x)| x % 7),
            std_keyed().max_by_key(|(_, x)| x % 7),
            "max_by_key: {what}"
        );
        assert_eq!(
            keyed.min_by(ex, |a, b| (a.1 % 5).cmp(&(b.1 % 5))),
            std_keyed().min_by(|a, b| (a.1 % 5).cmp(&(b.1 % 5))),
            "min_by: {what}"
        );
        assert_eq!(
            keyed.max_by(ex, |a, b| (a.1 % 5).cmp(&(b.1 % 5))),
            std_keyed().max_by(|a, b| (a.1 % 5).cmp(&(b.1 % 5))),
            "max_by: {what}"
        );
        assert_eq!(
            p.reduce(ex, || 0, u64::max),
            items().fold(0, u64::max),
            "reduce: {what}"
        );
        assert_eq!(
            p.reduce_with(ex, |a, b| a ^ b),
            items().reduce(|a, b| a ^ b),
            "reduce_with: {what}"
        );
        for target in [0, 7, 500, 1023, 5000] {
            assert_eq!(
                p.any(ex, |x| x == target),
                items().any(|x| x == target),
                "any {target}: {what}"
            );
            assert_eq!(
                p.all(ex, |x| x != target),
                items().all(|x| x != target),
                "all {target}: {what}"
            );
            let hit = |x: &(usize, u64)| x.1 == target;
            assert_eq!(
                keyed.find_first(ex, hit),
                std_keyed().find(hit),
                "find_first {target}: {what}"
            );
            assert_eq!(
                keyed.find_any(ex, hit),
                std_keyed().find(hit),
                "find_any {target}: {what}"
            );
            assert_eq!(
                keyed.find_last(ex, hit),
                std_keyed().rfind(hit),
                "find_last {target}: {what}"
            );
            let odd = p.filter(|x| x % 2 == 1);
            let std_odd = || items().filter(|x| x % 2 == 1);
            assert_eq!(
                odd.position_first(ex, |x| x > target),
                std_odd().position(|x| x > target),
                "position_first {target}: {what}"
            );
            assert_eq!(
                odd.position_last(ex, |x| x > target),
                std_odd()
                    .collect::<Vec<_>>()
                    .iter()
                    .rposition(|&x| x > target),
                "position_last {target}: {what}"
            );
        }
        let got = p.try_fold(
            ex,
            || 0u64,
            |acc, x| {
                if x == 1000 {
                    ControlFlow::Break(acc)
                } else {
                    ControlFlow::Continue(acc + x)
                }
            },
            |a, b| a + b,
        );
        let want = items().try_fold(0u64, |acc, x| {
            if x == 1000 {
                ControlFlow::Break(acc)
            } else {
                ControlFlow::Continue(acc + x)
            }
        });
        assert_eq!(got, want, "try_fold: {what}");
    });
}

#[test]
fn collections_match_std() {
    each_case("collect", |ex, data, what| {
        let items = || data.iter().copied();
        let p = data.pipe().copied();
        let got: HashMap<u64, usize> = p.enumerate().map(|(i, x)| (x, i)).collect(ex);
        let want: HashMap<u64, usize> = items().enumerate().map(|(i, x)| (x, i)).collect();
        assert_eq!(got, want, "HashMap (later keys win): {what}");
        let got: BTreeMap<u64, usize> = p.enumerate().map(|(i, x)| (x % 17, i)).collect(ex);
        let want: BTreeMap<u64, usize> = items().enumerate().map(|(i, x)| (x % 17, i)).collect();
        assert_eq!(got, want, "BTreeMap: {what}");
        let got: HashSet<u64> = p.map(|x| x % 13).collect(ex);
        assert_eq!(
            got,
            items().map(|x| x % 13).collect::<HashSet<_>>(),
            "HashSet: {what}"
        );
        let got: String = p.map(|x| char::from(b'a' + (x % 26) as u8)).collect(ex);
        let want: String = items().map(|x| char::from(b'a' + (x % 26) as u8)).collect();
        assert_eq!(got, want, "String: {what}");
        for bad in [0, 3, 1000] {
            let parse = |x: u64| if x == bad { Err(x) } else { Ok(x * 2) };
            let got: Result<Vec<u64>, u64> = p.map(parse).collect(ex);
            let want: Result<Vec<u64>, u64> = items().map(parse).collect();
            assert_eq!(got, want, "Result, Err at {bad}: {what}");
            let got: Option<Vec<u64>> = p.map(|x| (x != bad).then_some(x)).collect(ex);
            let want: Option<Vec<u64>> = items().map(|x| (x != bad).then_some(x)).collect();
            assert_eq!(got, want, "Option, None at {bad}: {what}");
        }
    });
}

#[test]
fn a_pipeline_runs_twice_on_two_executors_with_one_answer() {
    let data: Vec<u32> = (0..10_000).collect();
    let p = data.pipe().map(|&x| x as u64 * 3).filter(|x| x % 7 == 1);
    let on_threads: u64 = p.sum(&ThreadedEx::new());
    let on_tasks: u64 = p.sum(&TaskPoolEx::new().ntasks(3));
    let dynamic: &dyn Executor = &SequentialEx;
    assert_eq!(on_threads, on_tasks);
    assert_eq!(on_threads, p.sum::<u64>(dynamic));
}

#[test]
fn bad_sizes_panic_naming_the_argument() {
    let v = [1, 2, 3];
    let message = |f: fn()| {
        let payload = std::panic::catch_unwind(f).unwrap_err();
        payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(
        message(|| {
            let _ = [1, 2].pipe().chunks(0);
        }),
        "chunk size must be at least 1, got 0"
    );
    assert_eq!(
        message(|| {
            let _ = [1, 2].pipe().windows(0);
        }),
        "window size must be at least 1, got 0"
    );
    assert_eq!(
        message(|| {
            let _ = (0..3).pipe().step_by(0);
        }),
        "step must be at least 1, got 0"
    );
    // Windows longer than the slice: none, as `slice::windows`.
    assert_eq!(v.pipe().windows(4).count(&SequentialEx), 0);
}

#[test]
fn a_panicking_closure_reraises_its_payload_and_the_pool_lives_on() {
    let ex = ThreadedEx::new().threads(2).basesize(1);
    for at in [0u64, 17, 999] {
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            (0..1000usize)
                .pipe()
                .filter(|&x| {
                    if x as u64 == at {
                        std::panic::panic_any(at);
                    }
                    true
                })
                .count(&ex)
        }));
        assert_eq!(caught.unwrap_err().downcast_ref::<u64>(), Some(&at));
    }
    assert_eq!((0..1000usize).pipe().filter(|x| x % 2 == 0).count(&ex), 500);
}

#[test]
#[allow(clippy::reversed_empty_ranges)] // empty ranges whose end is below the start, on purpose
fn integer_ranges_of_every_type_match_std() {
    let ex = ThreadedEx::new().threads(2).basesize(3);
    macro_rules! check {
        ($($range:expr),* $(,)?) => {$(
            let got: Vec<_> = $range.pipe().collect(&ex);
            let want: Vec<_> = $range.collect();
            assert_eq!(got, want, "{:?}", $range);
            assert_eq!($range.pipe().count(&ex), want.len(), "{:?}", $range);
            let tail: Vec<_> = $range.pipe().skip(2).step_by(3).collect(&ex);
            assert_eq!(tail, $range.skip(2).step_by(3).collect::<Vec<_>>(), "{:?}", $range);
        )*};
    }
    check!(
        0u8..0,
        250u8..=255,
        0u8..=255,
        i8::MIN..=i8::MAX,
        -5i8..5,
        3u16..900,
        -300i16..=300,
        0u32..10_000,
        i32::MAX - 5..=i32::MAX,
        u64::MAX - 10..u64::MAX,
        -7i64..7,
        -4isize..4,
        10usize..20,
        7u32..3,
    );
    // Ranges of u128 and i128, and inclusive ones of u64, i64, usize and isize, are not
    // indexable (no skip, no step_by).
    macro_rules! check_wide {
        ($($range:expr),* $(,)?) => {$(
            let got: Vec<_> = $range.pipe().collect(&ex);
            let want: Vec<_> = $range.collect();
            assert_eq!(got, want, "{:?}", $range);
            assert_eq!($range.pipe().count(&ex), want.len(), "{:?}", $range);
            let tail: Vec<_> = $range.pipe().skip_while(|x| x % 3 != 0).collect(&ex);
            let want: Vec<_> = $range.skip_while(|x| x % 3 != 0).collect();
            assert_eq!(tail, want, "{:?}", $range);
        )*};
    }
    check_wide!(
        u64::MAX - 10..=u64::MAX,
        i64::MIN..=i64::MIN + 4,
        -4isize..=4,
        10usize..=20,
        5usize..=4,
        u128::MAX - 3..=u128::MAX,
        i128::MIN..i128::MIN + 9,
        5u128..3,
    );
}

#[test]
fn a_range_longer_than_usize_is_searched() {
    // `0..=u64::MAX` and a range of i128 may be longer: they are not indexable, and searched.
    let ex = ThreadedEx::new().threads(2);
    assert_eq!(
        (0..=u64::MAX).pipe().find_last(&ex, |_| true),
        Some(u64::MAX)
    );
    assert_eq!((i128::MIN..0).pipe().find_last(&ex, |_| true), Some(-1));
}

#[test]
fn group_by_matches_a_sequential_grouping() {
    each_case("group_by", |ex, data, what| {
        let counts = data
            .pipe()
            .group_by(ex, |x| *x % 37, foldex_pipeline::group::count());
        let mut want: HashMap<u64, usize> = HashMap::new();
        for x in data {
            *want.entry(x % 37).or_default() += 1;
        }
        assert_eq!(counts, want, "count: {what}");
        let sums =
            data.pipe()
                .copied()
                .group_by(ex, |x| x % 5, foldex_pipeline::group::sum::<u64>());
        let mut want: HashMap<u64, u64> = HashMap::new();
        for x in data {
            *want.entry(x % 5).or_default() += x;
        }
        assert_eq!(sums, want, "sum: {what}");
        // Non-commutative: each group's items in index order.
        let lists = data.pipe().copied().enumerate().group_by(
            ex,
            |(_, x)| x % 3,
            foldex_pipeline::group::fold(
                Vec::new,
                |v: &mut Vec<usize>, (i, _): (usize, u64)| v.push(i),
                |a: &mut Vec<usize>, mut b: Vec<usize>| a.append(&mut b),
            ),
        );
        let mut want: HashMap<u64, Vec<usize>> = HashMap::new();
        for (i, x) in data.iter().enumerate() {
            want.entry(x % 3).or_default().push(i);
        }
        assert_eq!(lists, want, "fold in order: {what}");
    });
}

#[test]
fn unzip_partition_and_fallible_reductions_match_std() {
    each_case("unzip, partition, try_*", |ex, data, what| {
        let items = || data.iter().copied();
        let (a, b): (Vec<u64>, Vec<u64>) = data.pipe().map(|&x| (x, x * 2)).unzip(ex);
        assert_eq!((a, b), items().map(|x| (x, x * 2)).unzip(), "unzip: {what}");
        let (even, odd): (Vec<u64>, Vec<u64>) = data.pipe().copied().partition(ex, |x| x % 2 == 0);
        assert_eq!(
            (even, odd),
            items().partition(|x| x % 2 == 0),
            "partition: {what}"
        );
        for bad in [0, 5, 1000] {
            let check = |x: u64| if x == bad { Err(x) } else { Ok(()) };
            assert_eq!(
                data.pipe().copied().try_for_each(ex, check),
                items().try_for_each(check),
                "try_for_each: {what}"
            );
            let some = |x: u64| (x != bad).then_some(());
            assert_eq!(
                data.pipe().copied().try_for_each(ex, some),
                items().try_for_each(some),
                "try_for_each Option: {what}"
            );
            let parsed = data
                .pipe()
                .copied()
                .map(|x| if x == bad { Err(x) } else { Ok(x) });
            let want = items()
                .map(|x| if x == bad { Err(x) } else { Ok(x) })
                .try_fold(0u64, |a, x| x.map(|x| a + x));
            assert_eq!(
                parsed.try_reduce(ex, || 0, |a, b| Ok(a + b)),
                want,
                "try_reduce: {what}"
            );
        }
    });
}

/// The inner loop of a `flat_map` stops once its block no longer matters: an item to the right
/// of a hit expands into an endless iterator, and the search still ends (sequentially it is
/// never reached).
#[test]
fn flat_map_inner_loops_stop_once_their_block_no_longer_matters() {
    watchdog("flat_map inner stop", || {
        for (name, ex) in executors() {
            for hit in [0usize, 3, 40] {
                let found = (0..64usize)
                    .pipe()
                    .flat_map(|i| {
                        let len = if i > hit { usize::MAX } else { 10 };
                        (0..len).map(move |j| (i, j))
                    })
                    .find_first(&*ex, |&(i, j)| i == hit && j == 7);
                assert_eq!(found, Some((hit, 7)), "{name}, hit at {hit}");
            }
        }
    });
}

#[test]
fn stateful_stages_and_scan_match_std() {
    each_case("stateful", |ex, data, what| {
        let small = || data.iter().map(|x| x % 5);
        let mut want: Vec<u64> = small().collect();
        want.dedup();
        let got: Vec<u64> = data.pipe().map(|x| x % 5).dedup().collect(ex);
        assert_eq!(got, want, "dedup: {what}");
        let mut seen = HashSet::new();
        let want: Vec<u64> = small().filter(|&x| seen.insert(x)).collect();
        assert_eq!(
            data.pipe().map(|x| x % 5).unique().collect::<Vec<_>>(ex),
            want,
            "unique: {what}"
        );
        for limit in [0, 4, 1000, 1024] {
            let want: u64 = data.iter().skip_while(|&&x| x < limit).sum();
            let got: u64 = data.pipe().copied().skip_while(|&x| x < limit).sum(ex);
            assert_eq!(got, want, "skip_while < {limit}: {what}");
        }
        let want: Vec<u64> = data
            .iter()
            .scan(0u64, |acc, &x| {
                *acc = acc.wrapping_mul(3).wrapping_add(x);
                Some(*acc)
            })
            .collect();
        // `x -> 3x + item` composed: (a, b) stands for `x -> a * x + b`.
        let compose = |f: &(u64, u64), g: &(u64, u64)| {
            (
                g.0.wrapping_mul(f.0),
                g.0.wrapping_mul(f.1).wrapping_add(g.1),
            )
        };
        let got: Vec<u64> = data
            .pipe()
            .map(|&x| (3, x))
            .scan(ex, (1, 0), compose)
            .into_iter()
            .map(|(_, b)| b)
            .collect();
        assert_eq!(got, want, "scan: {what}");
    });
}
