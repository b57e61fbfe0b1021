//! Chains of stages that each keep their promise alone, composed: stateful stages stacked, a
//! stage's stop under `try_fold`, panics after a stage that holds items, and the predicate of
//! `skip_while` where the sequential run never calls it. Each case on `SequentialEx` and on
//! parallel executors split as finely as they go.

use foldex_core::{Executor, Stream};
use foldex_pipeline::{from_stream, from_vec, IntoPipeline};
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::collections::HashSet;
use std::hash::Hash;
use std::ops::ControlFlow::{self, Break, Continue};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

fn executors() -> Vec<(&'static str, Box<dyn Executor>)> {
    vec![
        ("SequentialEx", Box::new(SequentialEx)),
        (
            "ThreadedEx(basesize 1)",
            Box::new(ThreadedEx::new().threads(2).basesize(1)),
        ),
        (
            "ThreadedEx(basesize 3)",
            Box::new(ThreadedEx::new().threads(2).basesize(3)),
        ),
        (
            "TaskPoolEx(basesize 1)",
            Box::new(TaskPoolEx::new().ntasks(3).basesize(1)),
        ),
    ]
}

fn each(name: &str, check: impl Fn(&dyn Executor, &str)) {
    watchdog(name, || {
        for (what, ex) in executors() {
            // A parallel split is timing-dependent: repeat it.
            for _ in 0..20 {
                check(&*ex, what);
            }
        }
    });
}

/// The panic message of `f`, or its value.
fn outcome<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

fn std_unique<T: Clone + Eq + Hash>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut seen = HashSet::new();
    items
        .into_iter()
        .filter(|x| seen.insert(x.clone()))
        .collect()
}

fn std_dedup<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = items.into_iter().collect();
    v.dedup();
    v
}

#[test]
fn stacked_stateful_stages_keep_the_order() {
    each("stacked", |ex, what| {
        let v = [5, 3, 5, 7];
        let got: Vec<i32> = v.pipe().copied().unique().dedup().collect(ex);
        assert_eq!(got, std_dedup(std_unique(v)), "unique.dedup on {what}");
        let got: Vec<i32> = v.pipe().copied().dedup().dedup().collect(ex);
        assert_eq!(got, [5, 3, 5, 7], "dedup.dedup on {what}");
        let got: Vec<i32> = v
            .pipe()
            .copied()
            .filter(|x| *x != 7)
            .unique()
            .dedup()
            .collect(ex);
        assert_eq!(got, [5, 3], "filter.unique.dedup on {what}");
        let got: Vec<i32> = v
            .pipe()
            .copied()
            .unique()
            .map(|x| x / 2)
            .dedup()
            .collect(ex);
        assert_eq!(
            got,
            std_dedup(std_unique(v).into_iter().map(|x| x / 2)),
            "unique.map.dedup on {what}"
        );
        let long: Vec<u32> = (0..500u32).map(|i| (i * 7919) % 13 / 3).collect();
        let got: Vec<u32> = long.pipe().copied().dedup().unique().dedup().collect(ex);
        assert_eq!(
            got,
            std_dedup(std_unique(std_dedup(long.iter().copied()))),
            "dedup.unique.dedup on {what}"
        );
        let got: Vec<u32> = long
            .pipe()
            .copied()
            .skip_while(|x| *x < 3)
            .dedup()
            .unique()
            .collect(ex);
        let want = std_unique(std_dedup(long.iter().copied().skip_while(|x| *x < 3)));
        assert_eq!(got, want, "skip_while.dedup.unique on {what}");
    });
}

#[test]
fn stacked_stateful_stages_over_streams_keep_the_order() {
    each("stacked streams", |ex, what| {
        let long: Vec<u32> = (0..300u32).map(|i| (i * 7919) % 11 / 2).collect();
        for batch in [1, 2, 5, 64] {
            let got: Vec<u32> = from_stream(Stream::new(long.clone()).batch_size(batch))
                .unique()
                .skip_while(|x| *x < 2)
                .dedup()
                .collect(ex);
            let want = std_dedup(
                std_unique(long.iter().copied())
                    .into_iter()
                    .skip_while(|x| *x < 2),
            );
            assert_eq!(
                got, want,
                "unique.skip_while.dedup over a stream of batch {batch} on {what}"
            );
        }
    });
}

#[test]
fn a_stages_stop_is_not_the_callers_break() {
    each("stage stop", |ex, what| {
        let add = |a: i32, x: i32| Continue(a + x);
        let r =
            [1, 2, 3]
                .pipe()
                .copied()
                .take_while(|x| *x < 2)
                .try_fold(ex, || 0, add, |a, b| a + b);
        assert_eq!(r, Continue(1), "take_while on {what}");
        let r = [1, 2, 3]
            .pipe()
            .copied()
            .map_while(|x| (x < 3).then_some(x))
            .try_fold(ex, || 0, add, |a, b| a + b);
        assert_eq!(r, Continue(3), "map_while on {what}");
        let r = from_stream(Stream::new([1, 2, 3]).batch_size(1))
            .take_while(|x| *x < 2)
            .try_fold(ex, || 0, add, |a, b| a + b);
        assert_eq!(r, Continue(1), "take_while over a stream on {what}");
        let r = [1, 2, 3]
            .pipe()
            .copied()
            .dedup()
            .take_while(|x| *x < 3)
            .try_fold(ex, || 0, add, |a, b| a + b);
        assert_eq!(r, Continue(3), "dedup.take_while on {what}");
        // The caller's own Break is still a Break, whichever comes first.
        let stop_at_2 = |a: i32, x: i32| if x == 2 { Break(a) } else { Continue(a + x) };
        let r = (1..10)
            .pipe()
            .take_while(|x| *x < 5)
            .try_fold(ex, || 0, stop_at_2, |a, b| a + b);
        assert_eq!(r, Break(1), "a Break before the stop on {what}");
        let r = (1..10).pipe().dedup().take_while(|x| *x < 5).try_fold(
            ex,
            || 0,
            stop_at_2,
            |a, b| a + b,
        );
        assert_eq!(
            r,
            Break(1),
            "a Break before the stop, through dedup, on {what}"
        );
        let late = |a: i32, x: i32| if x == 7 { Break(a) } else { Continue(a + x) };
        let r = (1..10)
            .pipe()
            .take_while(|x| *x < 5)
            .try_fold(ex, || 0, late, |a, b| a + b);
        assert_eq!(r, Continue(10), "a Break after the stop on {what}");
    });
}

#[test]
fn a_panic_after_a_stage_that_holds_comes_from_the_sequential_item() {
    each("held panics", |ex, what| {
        let r = outcome(|| {
            [0, 1]
                .pipe()
                .copied()
                .dedup()
                .map(|x| -> i64 { panic!("map saw {x}") })
                .count(ex)
        });
        assert_eq!(r, Err("map saw 0".into()), "dedup.map on {what}");
        let long: Vec<u32> = (0..200).collect();
        let r = outcome(|| {
            long.pipe()
                .copied()
                .unique()
                .map(|x| if x >= 50 { panic!("map saw {x}") } else { x })
                .count(ex)
        });
        assert_eq!(r, Err("map saw 50".into()), "unique.map on {what}");
        let r = outcome(|| {
            long.pipe()
                .copied()
                .dedup()
                .inspect(|x| {
                    if *x >= 50 {
                        panic!("inspect saw {x}")
                    }
                })
                .count(ex)
        });
        assert_eq!(r, Err("inspect saw 50".into()), "dedup.inspect on {what}");
        // A match before the panic wins.
        let panics_on_150 = |x: u32| {
            if x == 150 {
                panic!("source saw 150")
            } else {
                x
            }
        };
        let panics_on_9 = |x: &i32| {
            if *x == 9 {
                panic!("filter saw 9")
            } else {
                true
            }
        };
        let r = outcome(|| {
            [1, 9]
                .pipe()
                .copied()
                .filter(panics_on_9)
                .unique()
                .find_first(ex, |x| *x == 1)
        });
        assert_eq!(r, Ok(Some(1)), "filter.unique.find_first on {what}");
        let r = outcome(|| {
            [1, 9]
                .pipe()
                .copied()
                .filter(panics_on_9)
                .dedup()
                .find_first(ex, |x| *x == 1)
        });
        assert_eq!(r, Ok(Some(1)), "filter.dedup.find_first on {what}");
        let r = outcome(|| {
            long.pipe()
                .copied()
                .map(panics_on_150)
                .dedup()
                .find_first(ex, |x| *x == 100)
        });
        assert_eq!(
            r,
            Ok(Some(100)),
            "a panicking source after the match on {what}"
        );
        let r = outcome(|| {
            long.pipe()
                .copied()
                .map(panics_on_150)
                .unique()
                .find_first(ex, |x| *x == 160)
        });
        assert_eq!(
            r,
            Err("source saw 150".into()),
            "a panicking source before the match on {what}"
        );
        let r = outcome(|| {
            from_stream(Stream::new([1, 9]).batch_size(1))
                .filter(|x| {
                    if *x == 9 {
                        panic!("filter saw 9")
                    } else {
                        true
                    }
                })
                .unique()
                .find_first(ex, |x| *x == 1)
        });
        assert_eq!(
            r,
            Ok(Some(1)),
            "a stream's filter.unique.find_first on {what}"
        );
        let r = outcome(|| {
            from_stream(Stream::new(0..200u32).batch_size(1))
                .dedup()
                .take_while(|x| *x < 20)
                .map(|x| if x >= 10 { panic!("map saw {x}") } else { x })
                .count(ex)
        });
        assert_eq!(
            r,
            Err("map saw 10".into()),
            "a stream's dedup.take_while.map on {what}"
        );
    });
}

#[test]
fn skip_whiles_predicate_panics_only_where_the_sequential_run_calls_it() {
    each("skip_while", |ex, what| {
        let calls = AtomicUsize::new(0);
        let r = outcome(|| {
            (0..10_000usize)
                .pipe()
                .skip_while(|x| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    if *x == 9000 {
                        panic!("skip_while saw 9000")
                    }
                    *x < 5
                })
                .count(ex)
        });
        assert_eq!(r, Ok(9995), "on {what}");
        if what == "SequentialEx" {
            assert_eq!(calls.load(Ordering::Relaxed), 6, "calls on {what}");
        }
        // Where every item before it is skipped, the panic is the sequential run's.
        let r = outcome(|| {
            (0..1000usize)
                .pipe()
                .skip_while(|x| {
                    if *x == 600 {
                        panic!("skip_while saw 600")
                    } else {
                        true
                    }
                })
                .count(ex)
        });
        assert_eq!(
            r,
            Err("skip_while saw 600".into()),
            "a panic while skipping on {what}"
        );
        let r = outcome(|| {
            from_stream(Stream::new(0..1000usize).batch_size(7))
                .skip_while(|x| {
                    if *x == 600 {
                        panic!("skip_while saw 600")
                    } else {
                        *x < 5
                    }
                })
                .count(ex)
        });
        assert_eq!(r, Ok(995), "over a stream on {what}");
    });
}

/// `try_fold`'s Break through stages that merge: the leftmost decisive item wins.
#[test]
fn breaks_through_held_items_are_the_leftmost() {
    each("held breaks", |ex, what| {
        let data: Vec<u32> = (0..400).map(|i| (i * 37) % 101).collect();
        let step = |a: Vec<u32>, x: u32| -> ControlFlow<Vec<u32>, Vec<u32>> {
            let mut a = a;
            a.push(x);
            if x > 90 {
                Break(a)
            } else {
                Continue(a)
            }
        };
        let join = |mut a: Vec<u32>, b: Vec<u32>| {
            a.extend(b);
            a
        };
        let got = data
            .pipe()
            .copied()
            .unique()
            .dedup()
            .try_fold(ex, Vec::new, step, join);
        let mut want = Vec::new();
        let mut broke = false;
        for x in std_dedup(std_unique(data.iter().copied())) {
            want.push(x);
            if x > 90 {
                broke = true;
                break;
            }
        }
        assert_eq!(
            got,
            if broke { Break(want) } else { Continue(want) },
            "on {what}"
        );
    });
}

/// A pipeline over a `Vec` by value, through stages that merge, runs once and says so.
#[test]
fn a_second_run_through_held_items_is_refused_saying_so() {
    each("by value", |ex, what| {
        let p = from_vec(vec![3, 3, 1, 2, 2]).dedup().unique();
        assert_eq!(p.collect::<Vec<i32>>(ex), [3, 1, 2], "on {what}");
        let second = outcome(|| p.count(ex)).expect_err("a second run panics");
        assert!(second.contains("runs once"), "{second:?} on {what}");
        assert!(!second.contains("executor bug"), "{second:?} on {what}");
    });
}

/// Past a `map_while` stop, a parallel executor may call later closures (docs/pipelines.md):
/// every call `std` makes happens once, nothing past the stop reaches the result, and a panic
/// there is never raised. On `SequentialEx` the calls are `std`'s.
#[test]
fn closures_past_a_stop_may_run_but_never_count() {
    each("past a stop", |ex, what| {
        let seen = std::sync::Mutex::new(Vec::new());
        let r = outcome(|| {
            (0..1000u32)
                .pipe()
                .map_while(|x| (x != 10).then_some(x))
                .for_each(ex, |x| {
                    if x == 700 {
                        panic!("for_each saw 700, past the stop");
                    }
                    seen.lock().unwrap().push(x);
                })
        });
        assert_eq!(r, Ok(()), "on {what}");
        let seen = seen.into_inner().unwrap();
        let before: Vec<u32> = seen.iter().copied().filter(|x| *x < 10).collect();
        let mut sorted = before.clone();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            (0..10).collect::<Vec<_>>(),
            "each call std makes, once, on {what}"
        );
        if what == "SequentialEx" {
            assert_eq!(
                seen,
                (0..10).collect::<Vec<_>>(),
                "std's calls, in order, on {what}"
            );
        }
        let calls = AtomicUsize::new(0);
        let r = outcome(|| {
            (0..1000u32)
                .pipe()
                .inspect(|x| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    if *x == 500 {
                        panic!("inspect saw 500")
                    }
                })
                .map_while(|x| (x < 10).then_some(x))
                .count(ex)
        });
        assert_eq!(r, Ok(10), "a panic past the stop is not raised, on {what}");
        let calls = calls.load(Ordering::Relaxed);
        if what == "SequentialEx" {
            assert_eq!(calls, 11, "std's calls on {what}");
        } else {
            assert!(calls >= 11, "{calls} calls on {what}");
        }
    });
}
