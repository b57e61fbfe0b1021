//! `join_pending`: a fork that stays a record on its thread unless promoted, oldest first.

use foldex_core::exec::{join_pending, PendingForks, TaskRef};
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
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
fn an_unpromoted_fork_runs_its_second_half_here_after_the_first() {
    let forks = PendingForks::new();
    let order = RefCell::new(Vec::new());
    let me = thread::current().id();
    let (a, b) = join_pending(
        &forks,
        || {
            assert_eq!(forks.pending(), 1);
            order.borrow_mut().push("a");
            1
        },
        || {
            assert_eq!(thread::current().id(), me);
            2
        },
        || {},
        |_| panic!("wait is called only for a promoted fork"),
    );
    assert_eq!((a, b), (1, 2));
    assert_eq!(*order.borrow(), ["a"]);
    assert_eq!(forks.pending(), 0);
    assert!(forks.promote_oldest().is_none());
}

#[test]
fn promotion_goes_oldest_first_and_a_promoted_half_may_run_elsewhere() {
    let forks = PendingForks::new();
    let data: Vec<u64> = (1..=100).collect();
    let me = thread::current().id();
    let ((inner, outer_left), (outer_right, ran_on)) = join_pending(
        &forks,
        || {
            join_pending(
                &forks,
                || {
                    assert_eq!(forks.pending(), 2);
                    // The oldest pending fork is the outer one.
                    run_elsewhere(forks.promote_oldest().expect("two pending"));
                    assert_eq!(forks.pending(), 1);
                    data[..25].iter().sum::<u64>()
                },
                || data[25..50].iter().sum::<u64>(),
                || {},
                |_| panic!("the inner fork was not promoted"),
            )
        },
        || (data[50..].iter().sum::<u64>(), thread::current().id()),
        || {},
        |forked| forked.wait(),
    );
    assert_eq!(inner + outer_left + outer_right, 5050);
    assert_ne!(
        ran_on, me,
        "the promoted half ran on the thread that took it"
    );
    assert_eq!(forks.pending(), 0);
}

#[test]
fn a_promoted_half_dropped_unrun_or_taken_back_runs_here() {
    let forks = PendingForks::new();
    let me = thread::current().id();
    let ((), ran_on) = join_pending(
        &forks,
        || drop(forks.promote_oldest()),
        || thread::current().id(),
        || {},
        |forked| forked.wait(),
    );
    assert_eq!(ran_on, me);
    let queue = RefCell::new(None);
    let ((), ran_on) = join_pending(
        &forks,
        || (),
        || thread::current().id(),
        || *queue.borrow_mut() = forks.promote_oldest(),
        |forked| {
            let task = queue.borrow_mut().take().expect("promoted in share");
            assert!(forked.take_back(task).is_none());
            assert!(forked.is_done());
        },
    );
    assert_eq!(ran_on, me);
    assert_eq!(forks.pending(), 0);
}

#[test]
fn a_panic_in_the_first_half_waits_for_a_promoted_second_half() {
    let forks = PendingForks::new();
    let done = std::sync::atomic::AtomicBool::new(false);
    let got = panic::catch_unwind(AssertUnwindSafe(|| {
        join_pending(
            &forks,
            || {
                run_elsewhere(forks.promote_oldest().unwrap());
                panic::panic_any(7u8)
            },
            || done.store(true, std::sync::atomic::Ordering::SeqCst),
            || {},
            |forked| forked.wait(),
        )
    }));
    assert_eq!(got.unwrap_err().downcast_ref::<u8>(), Some(&7));
    assert!(done.load(std::sync::atomic::Ordering::SeqCst));
    assert_eq!(forks.pending(), 0);
}
