//! A panic at an index after a `Break` never happens in the sequential fold, so on every
//! executor it is discarded and `try_fold` returns the sequential result; a panic before the
//! first `Break` is re-raised with its payload.
#![cfg(panic = "unwind")]

use foldex::prelude::*;
use std::ops::ControlFlow::{self, Break, Continue};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// A payload of our own, to tell our panics from any other.
#[derive(Debug, PartialEq, Eq)]
struct Boom(usize);

fn executors() -> Vec<(String, Box<dyn Executor>)> {
    let mut all: Vec<(String, Box<dyn Executor>)> =
        vec![("SequentialEx".into(), Box::new(SequentialEx))];
    for bs in [1, 2, 3, 7] {
        all.push((
            format!("ThreadedEx(2, {bs})"),
            Box::new(ThreadedEx::new().threads(2).basesize(bs)),
        ));
        all.push((
            format!("TaskPoolEx(2, {bs})"),
            Box::new(TaskPoolEx::new().ntasks(2).basesize(bs)),
        ));
    }
    all.push((
        "TaskPoolEx(3, 1, background)".into(),
        Box::new(TaskPoolEx::new().ntasks(3).basesize(1).background(true)),
    ));
    all
}

/// The reproduction: the Break at 1 is slow, so the panic at 3 happens first on a pool.
fn slow_break_then_panic(ex: &dyn Executor) -> ControlFlow<usize, usize> {
    ex.try_fold(
        0..4usize,
        || 0,
        |a, i| {
            if i == 1 {
                std::thread::sleep(Duration::from_millis(5));
                return Break(a + i);
            }
            if i == 3 {
                panic::panic_any(Boom(3));
            }
            Continue(a + i)
        },
        |a, b| a + b,
    )
}

#[test]
fn a_panic_after_a_slow_break_is_discarded() {
    assert_eq!(slow_break_then_panic(&SequentialEx), Break(1));
    let threaded = ThreadedEx::new().threads(2).basesize(1);
    let taskpool = TaskPoolEx::new().ntasks(2).basesize(1);
    for run in 0..20 {
        assert_eq!(
            slow_break_then_panic(&threaded),
            Break(1),
            "ThreadedEx, run {run}"
        );
        assert_eq!(
            slow_break_then_panic(&taskpool),
            Break(1),
            "TaskPoolEx, run {run}"
        );
    }
}

/// What a `try_fold` over `0..len` with a Break at `stop` and a panic at `boom` (in `step`)
/// gives: `Ok` with the result, or `Err` with the panic's index.
fn outcome(
    ex: &dyn Executor,
    len: usize,
    stop: usize,
    boom: usize,
) -> Result<ControlFlow<Vec<usize>, Vec<usize>>, usize> {
    let got = panic::catch_unwind(AssertUnwindSafe(|| {
        ex.try_fold(
            0..len,
            Vec::new,
            |mut acc, i| {
                if i == boom {
                    panic::panic_any(Boom(i));
                }
                acc.push(i);
                if i == stop {
                    Break(acc)
                } else {
                    Continue(acc)
                }
            },
            |mut a, mut b| {
                a.append(&mut b);
                a
            },
        )
    }));
    got.map_err(|payload| match payload.downcast_ref::<Boom>() {
        Some(Boom(i)) => *i,
        None => panic::resume_unwind(payload),
    })
}

/// Every position of one Break and one panic (or none) over small lengths, on every executor,
/// against SequentialEx.
#[test]
fn one_break_and_one_panic_anywhere_give_the_sequential_result() {
    let hook = panic::take_hook();
    // Thousands of expected panics: keep the output readable.
    panic::set_hook(Box::new(|_| {}));
    let executors = executors();
    let mut cases = 0;
    for len in 0..=10 {
        for stop in 0..=len {
            for boom in 0..=len {
                let want = outcome(&SequentialEx, len, stop, boom);
                for (name, ex) in &executors {
                    let got = outcome(ex.as_ref(), len, stop, boom);
                    cases += 1;
                    if got != want {
                        panic::set_hook(hook);
                        panic!("{name}: len {len}, Break at {stop}, panic at {boom}: got {got:?}, want {want:?}");
                    }
                }
            }
        }
    }
    let _ = panic::take_hook();
    panic::set_hook(hook);
    assert!(cases > 1000);
}

/// A panic in `combine` is discarded exactly when a Break lies to the left of the combined
/// range; here every combine panics, so the fold panics unless the very first piece breaks.
#[test]
fn a_panic_in_combine_right_of_a_break_is_discarded() {
    let ex = ThreadedEx::new().threads(2).basesize(1);
    let combines = AtomicUsize::new(0);
    for stop in 0..8usize {
        let got = panic::catch_unwind(AssertUnwindSafe(|| {
            ex.try_fold(
                0..8usize,
                || 0,
                |a, i| {
                    if i == stop {
                        Break(a + i)
                    } else {
                        Continue(a + i)
                    }
                },
                |_, _| {
                    combines.fetch_add(1, Ordering::Relaxed);
                    panic::panic_any(Boom(usize::MAX))
                },
            )
        }));
        match got {
            Ok(flow) => assert_eq!((stop, flow), (0, Break(0))),
            Err(payload) => {
                assert_ne!(stop, 0, "combines right of a Break at 0 were not discarded");
                assert_eq!(payload.downcast_ref::<Boom>(), Some(&Boom(usize::MAX)));
            }
        }
    }
}

/// A panic to the right of where a Break may still come does not stop the work to its left.
#[test]
fn work_left_of_a_panic_goes_on_until_a_break() {
    let ex = ThreadedEx::new().threads(2).basesize(1);
    for _ in 0..10 {
        let got = ex.try_fold(
            0..64usize,
            || 0,
            |a, i| {
                if i == 20 {
                    std::thread::sleep(Duration::from_millis(2));
                    return Break(a + 1);
                }
                if i == 40 {
                    panic::panic_any(Boom(40));
                }
                Continue(a + 1)
            },
            |a, b| a + b,
        );
        assert_eq!(got, Break(21));
    }
}
