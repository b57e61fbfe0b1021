//! `join_stack`: the forked half on the stack, run by another thread, taken back, or dropped.

use foldex_core::exec::{join_stack, TaskRef};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// Hands the task to a new thread, which runs it after a pause (so that the owner really waits).
fn run_elsewhere(task: TaskRef) {
    thread::spawn(move || {
        thread::sleep(Duration::from_millis(20));
        task.run();
    });
}

#[test]
fn both_halves_run_and_may_borrow_the_callers_stack() {
    let data: Vec<u64> = (1..=100).collect();
    let (left, right) = join_stack(
        || data[..50].iter().sum::<u64>(),
        || data[50..].iter().sum::<u64>(),
        run_elsewhere,
        |forked| forked.wait(),
    );
    assert_eq!((left, right), (1275, 3775));
}

#[test]
fn the_forked_half_runs_on_the_thread_that_takes_it() {
    let owner = thread::current().id();
    let (_, ran_on) = join_stack(
        || (),
        || thread::current().id(),
        run_elsewhere,
        |forked| forked.wait(),
    );
    assert_ne!(ran_on, owner);
}

#[test]
fn a_task_taken_back_runs_inline() {
    let (tx, rx) = mpsc::channel();
    let owner = thread::current().id();
    let (_, ran_on) = join_stack(
        || (),
        || thread::current().id(),
        |task| tx.send(task).unwrap(),
        |forked| {
            assert!(!forked.is_done());
            rx.recv().unwrap().run();
            assert!(forked.latch().is_set() && forked.is_done());
        },
    );
    assert_eq!(ran_on, owner);
}

/// The owner takes its own half back unrun: it runs on the owner, the latch is never set, and
/// `wait` may return at once.
#[test]
fn a_half_taken_back_runs_on_the_owner_without_its_latch() {
    let (tx, rx) = mpsc::channel();
    let owner = thread::current().id();
    let (_, ran_on) = join_stack(
        || (),
        || thread::current().id(),
        |task| tx.send(task).unwrap(),
        |forked| {
            assert!(forked.take_back(rx.recv().unwrap()).is_none());
            assert!(forked.is_done() && !forked.latch().is_set());
            forked.wait();
        },
    );
    assert_eq!(ran_on, owner);
}

/// Another fork's half, or an unrelated task, is not taken back: it comes back as it was, and
/// still runs once.
#[test]
fn take_back_returns_a_task_of_another_fork() {
    let (tx, rx) = mpsc::channel();
    let inner_ran = AtomicBool::new(false);
    let ((), ()) = join_stack(
        || (),
        || (),
        |task| tx.send(task).unwrap(),
        |outer| {
            let outer_task = rx.recv().unwrap();
            let ((), ()) = join_stack(
                || (),
                || inner_ran.store(true, Ordering::Relaxed),
                |task| tx.send(task).unwrap(),
                |inner| {
                    let inner_task = rx.recv().unwrap();
                    let inner_task = outer.take_back(inner_task).expect("not the outer half");
                    assert!(!outer.is_done());
                    inner_task.run();
                    assert!(inner.is_done());
                },
            );
            assert!(outer.take_back(outer_task).is_none());
        },
    );
    assert!(inner_ran.load(Ordering::Relaxed));
}

#[test]
fn a_task_dropped_unrun_runs_on_the_owner() {
    let owner = thread::current().id();
    let (_, ran_on) = join_stack(|| (), || thread::current().id(), drop, |_| {});
    assert_eq!(ran_on, owner);
}

/// Returning from `wait` early does not end the join: it still waits for the latch.
#[test]
fn the_join_waits_for_the_latch_whatever_wait_does() {
    let done = AtomicBool::new(false);
    let ((), ()) = join_stack(
        || (),
        || {
            thread::sleep(Duration::from_millis(30));
            done.store(true, Ordering::Relaxed);
        },
        run_elsewhere,
        |_| {},
    );
    assert!(done.load(Ordering::Relaxed));
}

#[test]
fn wait_timeout_returns_whether_the_latch_is_set() {
    let (tx, rx) = mpsc::channel();
    join_stack(
        || (),
        || (),
        |task| tx.send(task).unwrap(),
        |forked| {
            assert!(!forked.latch().wait_timeout(Duration::from_millis(5)));
            let task = rx.recv().unwrap();
            thread::spawn(move || task.run());
            while !forked.latch().wait_timeout(Duration::from_millis(5)) {}
        },
    );
}

#[cfg(panic = "unwind")]
mod panics {
    use super::*;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    #[test]
    fn a_panic_in_the_forked_half_is_raised_on_the_owner() {
        let err = catch_unwind(|| {
            join_stack(
                || 1,
                || -> u32 { panic!("right half") },
                run_elsewhere,
                |forked| forked.wait(),
            )
        })
        .unwrap_err();
        assert_eq!(err.downcast_ref::<&str>(), Some(&"right half"));
    }

    #[test]
    fn a_panic_in_the_own_half_waits_for_the_forked_one() {
        let done = AtomicBool::new(false);
        let err = catch_unwind(AssertUnwindSafe(|| {
            join_stack(
                || -> u32 { panic!("left half") },
                || {
                    thread::sleep(Duration::from_millis(30));
                    done.store(true, Ordering::Relaxed);
                },
                run_elsewhere,
                |forked| forked.wait(),
            )
        }))
        .unwrap_err();
        assert_eq!(err.downcast_ref::<&str>(), Some(&"left half"));
        assert!(done.load(Ordering::Relaxed));
    }

    /// A half taken back panics on the owner; the own half's panic, if any, comes first.
    #[test]
    fn a_panic_in_a_half_taken_back_is_raised_after_the_own_half() {
        for left_panics in [false, true] {
            let (tx, rx) = mpsc::channel();
            let err = catch_unwind(AssertUnwindSafe(|| {
                join_stack(
                    || {
                        if left_panics {
                            panic!("left half")
                        }
                    },
                    || -> u32 { panic!("right half") },
                    |task| tx.send(task).unwrap(),
                    |forked| assert!(forked.take_back(rx.recv().unwrap()).is_none()),
                )
            }))
            .unwrap_err();
            let want = if left_panics {
                "left half"
            } else {
                "right half"
            };
            assert_eq!(err.downcast_ref::<&str>(), Some(&want));
        }
    }

    #[test]
    fn a_panicking_wait_still_waits_for_the_forked_half() {
        let done = AtomicBool::new(false);
        let err = catch_unwind(AssertUnwindSafe(|| {
            join_stack(
                || (),
                || {
                    thread::sleep(Duration::from_millis(30));
                    done.store(true, Ordering::Relaxed);
                },
                run_elsewhere,
                |_| panic!("wait"),
            )
        }))
        .unwrap_err();
        assert_eq!(err.downcast_ref::<&str>(), Some(&"wait"));
        assert!(done.load(Ordering::Relaxed));
    }
}
