//! The pool's behaviour beyond the conformance suite: names, nesting across pools, helping,
//! refused settings.
use foldex_core::{Executor, ExecutorExt, SpawnExt};
use foldex_testkit::watchdog;
use foldex_threaded::{Pool, ThreadedEx};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

#[test]
fn workers_are_named_and_counted() {
    let ex = ThreadedEx::new().threads(3).basesize(1);
    assert_eq!(ex.workers(), 3);
    assert!(!ex.is_worker_thread());
    let names = Mutex::new(HashSet::new());
    ex.for_each(0..1000usize, |_| {
        assert!(ex.is_worker_thread());
        let name = thread::current().name().map(str::to_owned);
        names.lock().unwrap().insert(name.expect("a named worker"));
    });
    let names = names.into_inner().unwrap();
    assert!(!names.is_empty());
    for name in &names {
        let n: usize = name
            .strip_prefix("foldex-threaded-")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("unexpected thread name {name}"));
        assert!(n < 3, "{name}");
    }
}

#[test]
fn global_pool_is_sized_by_available_parallelism() {
    assert_eq!(
        ThreadedEx::new().workers(),
        foldex_core::available_parallelism()
    );
    assert!(Pool::global().ptr_eq(&Pool::global()));
    assert!(ThreadedEx::default().current_pool().ptr_eq(&Pool::global()));
}

#[test]
fn a_shared_pool_is_one_pool() {
    let pool = Arc::new(Pool::new(2));
    let a = ThreadedEx::new().pool(Arc::clone(&pool));
    let b = ThreadedEx::new().pool(pool.as_ref()).basesize(3);
    assert!(a.current_pool().ptr_eq(&b.current_pool()));
    assert_eq!(a.sum::<usize>(0..10_000), b.sum::<usize>(0..10_000));
    assert!(format!("{b:?}").contains("threads: 2"), "{b:?}");
}

#[test]
fn a_fold_on_another_pool_inside_a_worker_completes() {
    watchdog("fold on pool A inside pool B", || {
        let a = ThreadedEx::new().threads(2).basesize(1);
        let b = ThreadedEx::new().threads(2).basesize(1);
        let total = b.map_reduce(0..50usize, |i| a.sum::<usize>(0..i) + i, || 0, |x, y| x + y);
        let want: usize = (0..50usize).map(|i| (0..i).sum::<usize>() + i).sum();
        assert_eq!(total, want);
        // And the other way round, at the same time, from two outside threads.
        thread::scope(|s| {
            let ab =
                s.spawn(|| a.map_reduce(0..40usize, |i| b.sum::<usize>(0..i), || 0, |x, y| x + y));
            let ba =
                s.spawn(|| b.map_reduce(0..40usize, |i| a.sum::<usize>(0..i), || 0, |x, y| x + y));
            assert_eq!(ab.join().unwrap(), ba.join().unwrap());
        });
    });
}

/// Folds nested across two pools, many of them: a waiting worker does not stack its own pool's
/// tasks on top of its wait, so the stack stays bounded (this used to overflow and abort).
#[test]
fn many_folds_across_two_pools_do_not_grow_the_stack() {
    watchdog("1000 folds on pool B inside pool A", || {
        let a = ThreadedEx::new().threads(2).basesize(1);
        let b = ThreadedEx::new().threads(2).basesize(1);
        let got = a.map_reduce(
            0..1000usize,
            |i| b.sum::<usize>(0..i % 64),
            || 0,
            |x, y| x + y,
        );
        let want: usize = (0..1000usize).map(|i| (0..i % 64).sum::<usize>()).sum();
        assert_eq!(got, want);
    });
}

/// Every worker blocked until the caller has run a fold of its own on the same pool: the
/// caller takes its fold back from the pool and runs it, instead of waiting for workers that
/// wait for it. The caller starts its fold only once both workers are blocked: a worker that
/// took a piece of it first could take a blocking item while it waits for a stolen half, and
/// no executor can finish a fold whose frame sits below an item that waits for that fold.
#[test]
fn a_caller_whose_workers_wait_for_it_runs_its_own_fold() {
    watchdog("workers blocked on the caller", || {
        let ex = ThreadedEx::new().threads(2).basesize(1);
        let release = Arc::new(AtomicBool::new(false));
        let entered = Arc::new(AtomicUsize::new(0));
        let blocked = {
            let (release, entered) = (Arc::clone(&release), Arc::clone(&entered));
            ex.spawn_for_each(0..2usize, move |_| {
                entered.fetch_add(1, Ordering::SeqCst);
                while !release.load(Ordering::SeqCst) {
                    thread::sleep(std::time::Duration::from_micros(100));
                }
            })
        };
        while entered.load(Ordering::SeqCst) < 2 {
            thread::sleep(std::time::Duration::from_micros(100));
        }
        assert_eq!(ex.sum::<usize>(0..10_000), 49_995_000);
        release.store(true, Ordering::SeqCst);
        blocked.join();
    });
}

/// A `FoldHandle` joined or dropped inside a step of the same pool: the spawned fold's thread
/// runs it when every worker is blocked in `join` (this used to deadlock).
#[test]
fn a_fold_handle_joined_or_dropped_inside_a_step_completes() {
    watchdog("spawn_fold inside a step", || {
        for threads in [2, 4] {
            let ex = ThreadedEx::new().threads(threads).basesize(1);
            ex.for_each(0..threads, |_| {
                drop(ex.spawn_fold(0..10usize, || 0, |a, x| a + x, |a, b| a + b));
            });
            let joined = ex.map_reduce(
                0..threads,
                |_| {
                    ex.spawn_fold(0..10usize, || 0, |a, x| a + x, |a, b| a + b)
                        .join()
                },
                || 0,
                |a, b| a + b,
            );
            assert_eq!(joined, 45 * threads);
        }
    });
}

#[test]
fn deeply_nested_folds_on_one_worker_complete() {
    watchdog("nesting on a single worker", || {
        let ex = ThreadedEx::new().threads(1).basesize(1);
        let got = ex.map_reduce(
            0..8usize,
            |i| ex.map_reduce(0..8usize, |j| ex.sum::<usize>(0..i + j), || 0, |a, b| a + b),
            || 0,
            |a, b| a + b,
        );
        let want: usize = (0..8usize)
            .flat_map(|i| (0..8usize).map(move |j| (0..i + j).sum::<usize>()))
            .sum();
        assert_eq!(got, want);
    });
}

#[test]
fn help_runs_a_queued_task_on_the_calling_thread() {
    watchdog("help", || {
        let ex = ThreadedEx::new().threads(1).basesize(1);
        assert!(!ex.help(), "nothing is queued yet");
        let release = AtomicBool::new(false);
        let ran_on = Mutex::new(Vec::new());
        let main = thread::current().id();
        thread::scope(|s| {
            let folding = s.spawn(|| {
                ex.for_each(0..64usize, |i| {
                    // The single worker holds item 0 until the helper has run something (if
                    // the helper took the whole fold, it runs item 0 itself and must not wait).
                    while i == 0 && ex.is_worker_thread() && !release.load(Ordering::Acquire) {
                        thread::yield_now();
                    }
                    ran_on.lock().unwrap().push(thread::current().id());
                })
            });
            while !ex.help() {
                thread::yield_now();
            }
            release.store(true, Ordering::Release);
            folding.join().unwrap();
        });
        let ran_on = ran_on.into_inner().unwrap();
        assert_eq!(ran_on.len(), 64);
        assert!(
            ran_on.contains(&main),
            "help ran no item on the calling thread"
        );
    });
}

/// `help` from outside the pool runs the task it takes as one piece: it forks nothing that it
/// would then have to wait for (perhaps on workers waiting for this very thread, as a loader's
/// producers wait for its consumer), so it never blocks. It takes only what a worker shared: a
/// fold submitted from outside stays in the injector for the workers. A worker's forks stay
/// pending on its stack until someone wants work: a `help` that finds nothing asks for a
/// share, and the worker hands over its oldest pending fork at its next fork.
#[test]
fn help_from_outside_runs_a_forked_task_whole_and_leaves_submitted_folds_to_the_workers() {
    watchdog("help runs its task whole", || {
        let ex = ThreadedEx::new().threads(1).basesize(1);
        let (release, helped) = (AtomicBool::new(false), AtomicBool::new(false));
        let (started_tx, started) = std::sync::mpsc::channel();
        let main = thread::current().id();
        let ran_on = Mutex::new(vec![None; 16]);
        thread::scope(|s| {
            // The single worker splits 0..16 down to item 0 and blocks there: the halves 8..16,
            // 4..8, 2..4 and 1..2 are pending on its stack, oldest (largest) first for thieves.
            let blocker = s.spawn(|| {
                ex.for_each(0..16usize, |i| {
                    let wait_for = match i {
                        0 => &release,
                        2 => &helped,
                        _ => return ran_on.lock().unwrap()[i] = Some(thread::current().id()),
                    };
                    if i == 0 {
                        started_tx.send(()).unwrap();
                    }
                    while !wait_for.load(Ordering::Acquire) {
                        thread::yield_now();
                    }
                    ran_on.lock().unwrap()[i] = Some(thread::current().id());
                })
            });
            started.recv().unwrap();
            // A fold submitted from outside while the worker is busy: `help` must leave it.
            let submitted = s.spawn(|| ex.map_reduce(0..8usize, |i| i, || 0, |a, b| a + b));
            assert!(!ex.help(), "nothing was shared yet");
            // The worker's next fork (splitting 2..4, after items 0 and 1) shares 8..16.
            release.store(true, Ordering::Release);
            while !ex.help() {
                thread::yield_now();
            }
            helped.store(true, Ordering::Release);
            blocker.join().unwrap();
            assert_eq!(submitted.join().unwrap(), 28);
        });
        let ran_on = ran_on.into_inner().unwrap();
        assert!(
            ran_on[8..].iter().all(|t| *t == Some(main)),
            "help took the oldest forked half, 8..16, and ran all of it: {ran_on:?}"
        );
        assert!(ran_on[..8].iter().all(|t| *t != Some(main) && t.is_some()));
    });
}

/// While the pool's only worker is busy, a fold submitted from outside waits for it: `help`
/// finds nothing to take.
#[test]
fn help_from_outside_does_not_take_a_submitted_fold() {
    watchdog("help leaves submitted folds", || {
        let ex = ThreadedEx::new().threads(1).basesize(1);
        let release = AtomicBool::new(false);
        let (started_tx, started) = std::sync::mpsc::channel();
        thread::scope(|s| {
            let blocker = s.spawn(|| {
                ex.for_each(0..1usize, |_| {
                    started_tx.send(()).unwrap();
                    while !release.load(Ordering::Acquire) {
                        thread::yield_now();
                    }
                })
            });
            started.recv().unwrap();
            let submitted = s.spawn(|| ex.map_reduce(0..8usize, |i| i, || 0, |a, b| a + b));
            // Give the submission time to reach the injector; `help` must still find nothing.
            thread::sleep(std::time::Duration::from_millis(20));
            assert!(!ex.help(), "help took a fold submitted from outside");
            release.store(true, Ordering::Release);
            blocker.join().unwrap();
            assert_eq!(submitted.join().unwrap(), 28);
        });
    });
}

#[test]
#[should_panic(expected = "threads must be at least 1, got 0")]
fn zero_threads_is_refused() {
    let _ = ThreadedEx::new().threads(0);
}

#[test]
#[should_panic(expected = "threads must be at least 1, got 0")]
fn a_pool_of_zero_threads_is_refused() {
    let _ = Pool::new(0);
}

#[test]
fn a_builder_with_zero_threads_takes_the_default_as_rayon_does() {
    let pool = Pool::builder()
        .threads(0)
        .build()
        .expect("the default pool");
    assert_eq!(pool.threads(), foldex_threaded::default_threads().unwrap());
}

#[test]
fn a_thread_count_over_the_cap_is_refused_without_starting_a_thread() {
    let over = foldex_threaded::MAX_THREADS + 1;
    let message = format!(
        "threads must be at most {} (foldex_threaded::MAX_THREADS), got {over}",
        foldex_threaded::MAX_THREADS
    );
    let err = Pool::builder().threads(over).build().unwrap_err();
    assert_eq!(err.to_string(), message);
    assert_eq!(err.setting(), "threads");
    assert!(err.os_error().is_none());
    assert_eq!(Pool::try_new(100_000).unwrap_err().setting(), "threads");
    let panic = std::panic::catch_unwind(|| ThreadedEx::new().threads(over)).unwrap_err();
    assert_eq!(panic.downcast_ref::<String>(), Some(&message));
}

#[test]
#[should_panic(expected = "basesize must be at least 1, got 0")]
fn zero_basesize_is_refused() {
    let _ = ThreadedEx::new().basesize(0);
}
