//! What AutoEx chooses: inline for a tiny fold, a task pool for items that wait, work stealing
//! for items that compute; and the answer is the sequential one whatever it chose.

use foldex_auto::{AutoEx, Choice};
use foldex_core::{Executor, ExecutorExt};
use foldex_testkit::AsDriver;
use std::time::{Duration, Instant};

fn spin(d: Duration) {
    let until = Instant::now() + d;
    while Instant::now() < until {
        std::hint::spin_loop();
    }
}

/// Runs `f` with `ex` called as a loader's driver calls it.
fn as_driver<R>(ex: &AutoEx, f: impl FnOnce(&dyn Executor) -> R) -> R {
    f(&AsDriver(ex))
}

#[test]
fn a_tiny_fold_runs_inline() {
    // A measurement that the scheduler interrupts may hand a fold on: most must stay inline.
    // A fresh executor each time, since an executor remembers its choice for folds of a length
    // (one interrupted measurement would decide all ten).
    let inline = (0..10)
        .filter(|_| {
            let ex = AutoEx::new();
            assert_eq!(ex.last_choice(), None);
            assert_eq!(ex.sum::<usize>(0..8), 28);
            ex.last_choice() == Some(Choice::Inline)
        })
        .count();
    assert!(inline >= 8, "{inline} of 10 tiny folds ran inline");
}

#[test]
fn items_that_sleep_go_to_the_task_pool() {
    let ex = AutoEx::new();
    let got = ex.map_reduce(
        0..64usize,
        |i| {
            std::thread::sleep(Duration::from_millis(1));
            i
        },
        || 0,
        |a, b| a + b,
    );
    assert_eq!(got, 63 * 64 / 2);
    assert!(
        matches!(ex.last_choice(), Some(Choice::Waiting { ntasks }) if ntasks >= 2),
        "{:?}",
        ex.last_choice()
    );
}

#[test]
fn items_that_compute_go_to_work_stealing() {
    let ex = AutoEx::new();
    // Most runs see CPU time close to wall time; one that the scheduler interrupted for half
    // its measurement may see otherwise, so a majority decides.
    let stealing = (0..5)
        .filter(|_| {
            let got = ex.map_reduce(
                0..200usize,
                |i| {
                    spin(Duration::from_micros(20));
                    i
                },
                || 0,
                |a, b| a + b,
            );
            assert_eq!(got, 199 * 200 / 2);
            ex.last_choice() == Some(Choice::Stealing)
        })
        .count();
    assert!(stealing >= 3, "{stealing} of 5 folds chose work stealing");
}

#[test]
fn a_helpers_folds_try_every_pool_then_keep_the_fastest() {
    let ex = AutoEx::new();
    // 32 items that sleep 2 ms: about 4 ms on the task pool (16 tasks on 2 cores), 32 ms on
    // work stealing with a thread per core. Each fold is long enough to teach.
    let sleepy = || {
        as_driver(&ex, |ex| {
            ex.map_reduce(
                0..32usize,
                |i| {
                    std::thread::sleep(Duration::from_millis(2));
                    i
                },
                || 0,
                |a, b| a + b,
            )
        })
    };
    let mut ran = Vec::new();
    for _ in 0..8 {
        assert_eq!(sleepy(), 31 * 32 / 2);
        ran.push(ex.last_choice().expect("a fold ran"));
    }
    assert!(
        matches!(ran[0], Choice::HelperTaskPool { ntasks } if ntasks >= 8),
        "{ran:?}"
    );
    // Each pool once, but work stealing on a core fewer: work stealing on every core took over
    // twice the task pool's time, and so did not come close. The task pool from then on.
    assert_eq!(ran[1], Choice::HelperStealing, "{ran:?}");
    assert!(
        ran[2..]
            .iter()
            .all(|c| matches!(c, Choice::HelperTaskPool { .. })),
        "the task pool was faster: {ran:?}"
    );
    // Another length is another shape: it starts over on the task pool.
    let other = as_driver(&ex, |ex| ex.sum::<usize>(0..31));
    assert_eq!(other, 30 * 31 / 2);
    assert!(matches!(
        ex.last_choice(),
        Some(Choice::HelperTaskPool { .. })
    ));
}

/// Items that are slow only on the task pool's threads: work stealing is the fastest, so its
/// variant on a core fewer (with two cores or more) is tried next, and gives the same answer.
#[test]
fn where_work_stealing_comes_close_the_spare_core_is_tried() {
    let ex = AutoEx::new();
    let fold = || {
        as_driver(&ex, |ex| {
            ex.map_reduce(
                0..8usize,
                |i| {
                    let on_task_pool = std::thread::current()
                        .name()
                        .is_some_and(|name| name.starts_with("foldex-taskpool"));
                    if on_task_pool {
                        std::thread::sleep(Duration::from_millis(10));
                    } else {
                        spin(Duration::from_micros(500));
                    }
                    i
                },
                || 0,
                |a, b| a + b,
            )
        })
    };
    let mut ran = Vec::new();
    for _ in 0..3 {
        assert_eq!(fold(), 28);
        ran.push(ex.last_choice().expect("a fold ran"));
    }
    assert!(matches!(ran[0], Choice::HelperTaskPool { .. }), "{ran:?}");
    assert_eq!(ran[1], Choice::HelperStealing, "{ran:?}");
    if foldex_core::available_parallelism() >= 2 {
        assert!(matches!(ran[2], Choice::HelperSpareCore { .. }), "{ran:?}");
    }
}

#[test]
fn a_fold_for_a_helper_is_not_measured_on_the_caller() {
    // Two items that each wait for the other to start, as a loader's turns wait for room, and
    // a helper beside the caller, as a loader's consumer: run on the caller first, item 0
    // would wait forever. (Two, not more: a task pool busy with other tests' folds lets the
    // caller take its lanes back, and then the caller and the helper are the two that meet.)
    use std::sync::atomic::{AtomicBool, Ordering};
    let ex = AutoEx::new();
    let barrier = std::sync::Barrier::new(2);
    let done = AtomicBool::new(false);
    let got = foldex_testkit::watchdog("a helper's fold of items that meet", || {
        std::thread::scope(|s| {
            s.spawn(|| {
                while !done.load(Ordering::Acquire) {
                    if !foldex_core::Executor::help(&ex) {
                        std::thread::yield_now();
                    }
                }
            });
            let got = as_driver(&ex, |ex| {
                ex.map_reduce(
                    0..2usize,
                    |i| {
                        barrier.wait();
                        i
                    },
                    || 0,
                    |a, b| a + b,
                )
            });
            done.store(true, Ordering::Release);
            got
        })
    });
    assert_eq!(got, 1);
}

#[test]
fn the_choice_explains_itself() {
    assert_eq!(
        Choice::Waiting { ntasks: 16 }.to_string(),
        "a task pool of 16 tasks: the items spent most of their time waiting"
    );
}

#[test]
fn a_shape_is_remembered_and_measured_again_now_and_then() {
    let ex = AutoEx::new();
    let sleepy = |i: usize| {
        std::thread::sleep(Duration::from_millis(1));
        i
    };
    assert_eq!(
        ex.map_reduce(0..48usize, sleepy, || 0, |a, b| a + b),
        47 * 48 / 2
    );
    let waiting = ex.last_choice();
    assert!(
        matches!(waiting, Some(Choice::Waiting { .. })),
        "{waiting:?}"
    );
    // The same length with cheap items: remembered, not measured, until the shape's turn to
    // measure again comes; then it is seen for what it is now. A measurement that the scheduler
    // interrupts can look like waiting (wall time without CPU time), so two turns are allowed.
    let every = foldex_auto::MEASURE_EVERY as usize;
    let mut choices = Vec::new();
    for _ in 0..2 * every {
        assert_eq!(ex.sum::<usize>(0..48), 47 * 48 / 2);
        choices.push(ex.last_choice());
    }
    assert!(
        choices[..every - 1].iter().all(|c| *c == waiting),
        "{choices:?}"
    );
    assert!(
        choices[every - 1..].iter().any(|c| *c != waiting),
        "measured again: {choices:?}"
    );
}

#[test]
fn an_inline_shape_whose_items_grew_is_handed_on_at_its_turn_to_be_measured() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let slow = AtomicBool::new(false);
    let step = |a: usize, i: usize| {
        if slow.load(Ordering::Relaxed) {
            spin(Duration::from_micros(20));
        }
        a + i
    };
    // A measurement that the scheduler interrupts may hand the first fold on: try again.
    let ex = (0..10)
        .map(|_| AutoEx::new())
        .find(|ex| {
            ex.fold(0..64usize, || 0, step, |a, b| a + b);
            ex.last_choice() == Some(Choice::Inline)
        })
        .expect("a cheap fold of 64 items ran inline");
    // Now each fold of that length costs more than a wake-up: the fold timed inline (no job)
    // forgets the length, and the next one is measured and handed on.
    slow.store(true, Ordering::Relaxed);
    let every = foldex_auto::MEASURE_EVERY as usize;
    let choices: Vec<_> = (0..every + 2)
        .map(|_| {
            assert_eq!(ex.fold(0..64usize, || 0, step, |a, b| a + b), 63 * 64 / 2);
            ex.last_choice()
        })
        .collect();
    assert!(
        choices[..every - 1]
            .iter()
            .all(|c| *c == Some(Choice::Inline)),
        "{choices:?}"
    );
    assert!(
        choices[every..].iter().any(|c| *c != Some(Choice::Inline)),
        "handed on: {choices:?}"
    );
}
