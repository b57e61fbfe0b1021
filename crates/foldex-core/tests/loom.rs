//! Model checks of the concurrency protocols: the latch, `task_scope` built on it, `offer`, and
//! the hand-out of disjoint elements (`MutSlice`, `OwnedVec`).
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p foldex-core --release --test loom`.
#![cfg(loom)]

use foldex_core::exec::{task_scope, Latch};
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

/// A waiter is always woken by the last count-down, whichever interleaving happens.
///
/// Bounded to four preemptions (unless `LOOM_MAX_PREEMPTIONS` says otherwise): unbounded, this
/// model took 10 s of CPU, at four under a second. A lost wake-up needs the waiter
/// preempted between its registration and its park, and a count-down between its decrement
/// and its look for waiters: with two count-downs, one preemption in each of the three threads
/// is every such race, and four leave one more anywhere. The same latch with one other thread
/// (`latch_counted_up_waits_for_the_extra_piece`, `task_scope_returns_only_after_its_tasks`)
/// is checked unbounded.
#[test]
fn latch_wakes_the_waiter_after_the_last_count_down() {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(4);
    }
    builder.check(|| {
        let latch = Arc::new(Latch::new(2));
        let done = Arc::new(AtomicUsize::new(0));
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let (latch, done) = (Arc::clone(&latch), Arc::clone(&done));
                thread::spawn(move || {
                    done.fetch_add(1, Ordering::Relaxed);
                    latch.count_down();
                })
            })
            .collect();
        latch.wait();
        assert!(latch.is_set());
        // Everything written before the count-downs is visible after the wait.
        assert_eq!(done.load(Ordering::Relaxed), 2);
        for w in workers {
            w.join().unwrap();
        }
    });
}

/// `count_up` before handing work out keeps the latch unset until that work is done too.
#[test]
fn latch_counted_up_waits_for_the_extra_piece() {
    loom::model(|| {
        let latch = Arc::new(Latch::new(1));
        latch.count_up();
        let other = {
            let latch = Arc::clone(&latch);
            thread::spawn(move || latch.count_down())
        };
        // Our own piece is still outstanding, whatever the other thread has done.
        assert!(!latch.is_set());
        latch.count_down();
        latch.wait();
        other.join().unwrap();
        assert!(latch.is_set());
    });
}

/// A task borrowed from the scope and run on another thread is finished, its effect visible,
/// when `task_scope` returns; an unrun task that is dropped releases the scope too.
#[test]
fn task_scope_returns_only_after_its_tasks() {
    loom::model(|| {
        let hits = AtomicUsize::new(0);
        let runner = task_scope(
            |scope| {
                let ran = scope.spawn(|| {
                    hits.fetch_add(1, Ordering::Relaxed);
                });
                let dropped = scope.spawn(|| {
                    hits.fetch_add(100, Ordering::Relaxed);
                });
                let runner = thread::spawn(move || ran.run());
                drop(dropped);
                runner
            },
            |latch| latch.wait(),
        );
        assert_eq!(hits.load(Ordering::Relaxed), 1);
        runner.join().unwrap();
    });
}

/// A fork's latch wakes an owner that sleeps on it without a timeout, and the setter touches
/// the latch no more once the owner can see it set (`retire`, which `join_stack` calls before
/// its frame goes, is where loom checks that).
#[test]
fn join_stack_latch_wakes_a_sleeping_owner() {
    loom::model(|| forked_half_runs_once_elsewhere(|forked| forked.wait()));
}

/// Forks a half that counts a hit onto another thread, waits for it with `wait`, and checks
/// that it ran once and that its write is seen.
fn forked_half_runs_once_elsewhere(wait: impl FnOnce(&foldex_core::exec::Forked<'_>)) {
    let hits = AtomicUsize::new(0);
    let ((), ()) = foldex_core::exec::join_stack(
        || (),
        || {
            hits.fetch_add(1, Ordering::Relaxed);
        },
        // The task borrows `hits`; loom threads must be 'static, so it crosses as a TaskRef,
        // which is what the API is for.
        |task| drop(thread::spawn(move || task.run())),
        wait,
    );
    assert_eq!(hits.load(Ordering::Relaxed), 1);
}

/// An owner that polls with timed waits (each one timing out at once under loom) and goes back
/// to polling is never left asleep, and sees the forked half's writes.
#[test]
fn join_stack_latch_with_timed_waits() {
    loom::model(|| {
        forked_half_runs_once_elsewhere(|forked| {
            while !forked
                .latch()
                .wait_timeout(std::time::Duration::from_micros(200))
            {
                thread::yield_now();
            }
        })
    });
}

/// A forked half given back unrun from another thread runs on the owner.
#[test]
fn join_stack_runs_a_dropped_half_itself() {
    loom::model(|| {
        let me = thread::current().id();
        let ((), ran_on) = foldex_core::exec::join_stack(
            || (),
            || thread::current().id(),
            |task| drop(thread::spawn(move || drop(task))),
            |forked| forked.wait(),
        );
        assert_eq!(ran_on, me);
    });
}

/// A thief and the owner race for the forked half in a shared queue (the deque, where one pop
/// or steal wins): the half runs exactly once, on the owner (taken back, with no latch) or on
/// the thief (and the owner then waits for the latch), and the frame is not touched after.
#[test]
fn join_stack_half_stolen_or_taken_back_runs_once() {
    loom::model(|| {
        let queue = Arc::new(loom::sync::Mutex::new(None));
        let hits = AtomicUsize::new(0);
        let thief = {
            let queue = Arc::clone(&queue);
            thread::spawn(move || {
                let task: Option<foldex_core::exec::TaskRef> = queue.lock().unwrap().take();
                if let Some(task) = task {
                    task.run();
                }
            })
        };
        let ((), ()) = foldex_core::exec::join_stack(
            || (),
            || {
                hits.fetch_add(1, Ordering::Relaxed);
            },
            |task| *queue.lock().unwrap() = Some(task),
            |forked| {
                let task = queue.lock().unwrap().take();
                if let Some(task) = task {
                    assert!(forked.take_back(task).is_none(), "the owner's own half");
                }
                forked.wait();
            },
        );
        assert_eq!(hits.load(Ordering::Relaxed), 1);
        thief.join().unwrap();
    });
}

/// A pending fork, promoted from inside a fork nested in its first half (the oldest goes
/// first), raced for by a thief and the owner: the half runs exactly once, the nested fork is
/// never promoted, and neither frame is touched after it is left.
#[test]
fn join_pending_promoted_oldest_runs_once() {
    loom::model(|| {
        let forks = foldex_core::exec::PendingForks::new();
        let queue = Arc::new(loom::sync::Mutex::new(None));
        let hits = AtomicUsize::new(0);
        let thief = {
            let queue = Arc::clone(&queue);
            thread::spawn(move || {
                let task: Option<foldex_core::exec::TaskRef> = queue.lock().unwrap().take();
                if let Some(task) = task {
                    task.run();
                }
            })
        };
        let ((), ()) = foldex_core::exec::join_pending(
            &forks,
            || {
                let ((), ()) = foldex_core::exec::join_pending(
                    &forks,
                    || (),
                    || (),
                    || *queue.lock().unwrap() = forks.promote_oldest(),
                    |_| unreachable!("the nested fork is never promoted"),
                );
            },
            || {
                hits.fetch_add(1, Ordering::Relaxed);
            },
            || {},
            |forked| {
                let task = queue.lock().unwrap().take();
                if let Some(task) = task {
                    assert!(forked.take_back(task).is_none(), "the owner's own half");
                }
                forked.wait();
            },
        );
        assert_eq!(hits.load(Ordering::Relaxed), 1);
        assert_eq!(forks.pending(), 0);
        thief.join().unwrap();
    });
}

/// An offer whose owner gives up at once, while another thread runs its `TaskRef`: the closure
/// runs exactly once, on whichever claims it first, and the loser touches nothing of the frame
/// (loom reports an access to the latch after the owner retired it).
#[test]
fn offer_taken_back_or_run_elsewhere_runs_once() {
    loom::model(|| {
        let hits = AtomicUsize::new(0);
        let mut runner = None;
        let ran = foldex_core::exec::offer(
            || hits.fetch_add(1, Ordering::Relaxed),
            |task| runner = Some(thread::spawn(move || task.run())),
            |_latch| {},
        );
        assert_eq!(ran, 0);
        assert_eq!(hits.load(Ordering::Relaxed), 1);
        runner.expect("pushed").join().unwrap();
        assert_eq!(
            hits.load(Ordering::Relaxed),
            1,
            "the stale offer ran nothing"
        );
    });
}

/// An offer whose owner waits for the latch: run by the other thread, or given back unrun by
/// it (dropped) and then run by the owner; once either way.
#[test]
fn offer_waited_for_runs_once_run_or_given_back() {
    for run in [true, false] {
        loom::model(move || {
            let hits = AtomicUsize::new(0);
            foldex_core::exec::offer(
                || {
                    hits.fetch_add(1, Ordering::Relaxed);
                },
                |task| {
                    drop(thread::spawn(
                        move || {
                            if run {
                                task.run()
                            } else {
                                drop(task)
                            }
                        },
                    ))
                },
                |latch| latch.wait(),
            );
            assert_eq!(hits.load(Ordering::Relaxed), 1);
        });
    }
}

/// Two threads asking for overlapping ranges of a `MutSlice`: exactly one gets its range, the
/// other panics before touching an element, and the range of a refused take stays free.
#[test]
fn overlapping_takes_of_a_mut_slice_have_one_winner() {
    loom::model(|| {
        let slice: &'static mut [u8] = Box::leak(vec![0u8; 70].into_boxed_slice());
        let lent = Arc::new(foldex_core::source::MutSlice::new(slice));
        let takers: Vec<_> = [0..66, 60..70]
            .into_iter()
            .map(|range| {
                let lent = Arc::clone(&lent);
                thread::spawn(move || {
                    let taken = std::panic::catch_unwind(|| lent.take(range.clone()));
                    taken.map(|elements| {
                        elements.iter_mut().for_each(|x| *x += 1);
                        range
                    })
                })
            })
            .collect();
        let won: Vec<_> = takers
            .into_iter()
            .filter_map(|t| t.join().unwrap().ok())
            .collect();
        assert_eq!(won.len(), 1, "exactly one overlapping take wins");
        // What the loser asked for and the winner does not hold is still free.
        let free = if won[0] == (0..66) { 66..70 } else { 0..60 };
        assert_eq!(lent.take(free.clone()).len(), free.len());
    });
}

/// Disjoint takes on two threads both succeed, even inside one 64-bit word of the set.
#[test]
fn disjoint_takes_of_an_owned_vec_both_succeed() {
    loom::model(|| {
        let owned = Arc::new(foldex_core::source::OwnedVec::new(
            (0..10u32).collect::<Vec<_>>(),
        ));
        let takers: Vec<_> = [0..4, 4..10]
            .into_iter()
            .map(|range| {
                let owned = Arc::clone(&owned);
                thread::spawn(move || owned.take(range).sum::<u32>())
            })
            .collect();
        let total: u32 = takers.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(total, 45);
    });
}
