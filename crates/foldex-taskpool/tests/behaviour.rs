//! What TaskPoolEx promises beyond the conformance suite: where chunks run (background mode),
//! in which order they start, how many run at once, helping, bad settings, and the pool's
//! lifetime, and a caller that stands in for a helper.
use foldex_core::exec::StandIn;
use foldex_core::{Executor, ExecutorExt, FoldHandle, Job, Partial, SpawnExt};
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use foldex_testkit::AsDriver;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};
use std::time::Duration;

/// The threads that ran the items of a fold of `n` items, each taking `wait`.
fn threads_of(pool: &dyn Executor, n: usize, wait: Duration) -> Vec<(ThreadId, Option<String>)> {
    let seen = Mutex::new(Vec::new());
    pool.for_each(0..n, |_| {
        thread::sleep(wait);
        let me = thread::current();
        seen.lock()
            .unwrap()
            .push((me.id(), me.name().map(str::to_owned)));
    });
    seen.into_inner().unwrap()
}

#[test]
fn background_mode_never_runs_a_chunk_on_the_caller() {
    watchdog("background", || {
        let caller = thread::current().id();
        for ntasks in [1, 2, 5] {
            for basesize in [1, 3, 1000] {
                let pool = TaskPoolEx::new()
                    .ntasks(ntasks)
                    .basesize(basesize)
                    .background(true);
                let seen = threads_of(&pool, 50, Duration::from_micros(100));
                assert_eq!(seen.len(), 50);
                for (id, name) in &seen {
                    assert_ne!(*id, caller, "ntasks {ntasks}, basesize {basesize}");
                    let name = name.as_deref().unwrap_or_default();
                    assert!(name.starts_with("foldex-taskpool-"), "{name}");
                }
                assert!(!pool.help(), "background mode never lends work to a helper");
            }
        }
    });
}

#[test]
fn foreground_mode_runs_chunks_on_the_caller_too() {
    watchdog("foreground", || {
        let caller = thread::current().id();
        for ntasks in [1, 2, 5] {
            let pool = TaskPoolEx::new().ntasks(ntasks).basesize(1);
            let on_caller = AtomicUsize::new(0);
            let on_worker = AtomicUsize::new(0);
            pool.for_each(0..64, |_| {
                let here = thread::current().id() == caller;
                let (mine, other) = if here {
                    (&on_caller, &on_worker)
                } else {
                    (&on_worker, &on_caller)
                };
                mine.fetch_add(1, Ordering::SeqCst);
                // With ntasks > 1, hold the first items until the other side has run one too,
                // so that neither can finish the fold alone however slowly threads start.
                if ntasks > 1 {
                    let deadline = std::time::Instant::now() + Duration::from_secs(30);
                    while other.load(Ordering::SeqCst) == 0 && std::time::Instant::now() < deadline
                    {
                        thread::sleep(Duration::from_micros(100));
                    }
                }
            });
            assert!(
                on_caller.into_inner() > 0,
                "ntasks {ntasks}: no item ran on the calling thread"
            );
            if ntasks > 1 {
                assert!(
                    on_worker.into_inner() > 0,
                    "ntasks {ntasks}: no item ran on a worker"
                );
            }
        }
    });
}

/// When chunk `c` starts, every chunk before it has finished except at most `ntasks - 1`:
/// chunks leave the cursor in index order and at most `ntasks` run at once.
#[test]
fn chunks_start_in_index_order_with_at_most_ntasks_in_flight() {
    watchdog("in order", || {
        for (ntasks, basesize, background) in [
            (1, 1, true),
            (3, 1, true),
            (3, 2, false),
            (5, 3, true),
            (8, 1, false),
        ] {
            let pool = TaskPoolEx::new()
                .ntasks(ntasks)
                .basesize(basesize)
                .background(background);
            let n = 120;
            let nchunks = n / basesize + usize::from(n % basesize != 0);
            let finished: Vec<AtomicUsize> = (0..nchunks).map(|_| AtomicUsize::new(0)).collect();
            let running = AtomicUsize::new(0);
            let most = AtomicUsize::new(0);
            pool.for_each(0..n, |i| {
                let c = i / basesize;
                if i % basesize == 0 {
                    let done_before = finished[..c].iter().filter(|f| f.load(Ordering::SeqCst) == 1).count();
                    assert!(
                        done_before + (ntasks - 1) >= c,
                        "ntasks {ntasks}: chunk {c} started with only {done_before} chunks before it done"
                    );
                }
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                thread::sleep(Duration::from_micros(200));
                running.fetch_sub(1, Ordering::SeqCst);
                if i % basesize == basesize - 1 || i == n - 1 {
                    finished[c].store(1, Ordering::SeqCst);
                }
            });
            let most = most.into_inner();
            assert!(most <= ntasks, "ntasks {ntasks}: {most} items ran at once");
        }
    });
}

#[test]
fn zero_settings_are_refused_by_name() {
    let msg = |f: fn()| {
        let err = std::panic::catch_unwind(f).expect_err("must be refused");
        err.downcast_ref::<String>().cloned().unwrap_or_default()
    };
    assert_eq!(
        msg(|| drop(TaskPoolEx::new().ntasks(0))),
        "ntasks must be at least 1, got 0"
    );
    assert_eq!(
        msg(|| drop(TaskPoolEx::new().basesize(0))),
        "basesize must be at least 1, got 0"
    );
}

#[test]
fn more_tasks_than_cores_overlap_waiting_items() {
    watchdog("oversubscribed", || {
        // 32 items of 20 ms on 16 tasks: two rounds, whatever the number of cores.
        let pool = TaskPoolEx::new().ntasks(16).basesize(1).background(true);
        let start = std::time::Instant::now();
        pool.for_each(0..32, |_| thread::sleep(Duration::from_millis(20)));
        let took = start.elapsed();
        assert!(took < Duration::from_millis(32 * 20 / 2), "took {took:?}");
    });
}

#[test]
fn the_pool_tells_its_workers_apart_and_reports_ntasks() {
    let pool = TaskPoolEx::new().ntasks(3).background(true);
    assert_eq!(pool.workers(), 3);
    assert!(!pool.is_worker_thread());
    let inside = pool.map_reduce(0..10, |_| pool.is_worker_thread(), || true, |a, b| a && b);
    assert!(inside);
}

#[test]
fn clones_share_threads_and_the_last_drop_joins_them() {
    watchdog("lifetime", || {
        let pool = TaskPoolEx::new().ntasks(4).basesize(1).background(true);
        let names = |p: &TaskPoolEx| -> HashSet<ThreadId> {
            threads_of(p, 40, Duration::from_micros(500))
                .into_iter()
                .map(|(id, _)| id)
                .collect()
        };
        let first = names(&pool);
        let second = names(&pool.clone().basesize(2));
        assert!(first.len() <= 4 && second.len() <= 4);
        assert!(
            first.union(&second).count() <= 4,
            "clones must share the same 4 threads"
        );

        // A task of the pool holds a handle clone; dropping the last outside handle while the
        // fold runs neither deadlocks nor cuts the fold short.
        let done = Arc::new(AtomicUsize::new(0));
        let d = Arc::clone(&done);
        let inner = pool.clone();
        let handle = pool.spawn_for_each(0..20, move |i| {
            assert_eq!(inner.sum::<usize>(0..i), i * i.saturating_sub(1) / 2);
            d.fetch_add(1, Ordering::SeqCst);
        });
        drop(pool);
        handle.join();
        assert_eq!(done.load(Ordering::SeqCst), 20);
    });
}

#[test]
fn a_waiting_consumer_helps_with_queued_chunks_in_foreground_mode() {
    watchdog("help", || {
        let pool = TaskPoolEx::new().ntasks(2).basesize(1);
        assert!(!pool.help(), "nothing in flight yet");
        // Keep both workers busy with a background fold, so that the foreground fold's lane
        // waits in the queue, where the consumer can take it.
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let gate = Arc::new(Mutex::new(gate));
        let g = Arc::clone(&gate);
        let blocked = Arc::new(AtomicUsize::new(0));
        let b = Arc::clone(&blocked);
        let blocker = pool
            .clone()
            .background(true)
            .spawn_for_each(0..2, move |_| {
                b.fetch_add(1, Ordering::SeqCst);
                let _ = g.lock().unwrap().recv();
            });
        // Both workers hold a blocked item; a background fold's lanes are never lent to us.
        while blocked.load(Ordering::SeqCst) < 2 {
            assert!(
                !pool.help(),
                "a background fold's chunk was lent to a helper"
            );
            thread::yield_now();
        }
        let me = thread::current().id();
        let ran_here = Arc::new(AtomicUsize::new(0));
        let r = Arc::clone(&ran_here);
        let producer = pool.spawn_for_each(0..40, move |_| {
            // Long enough that the fold's own thread cannot run them all before we help.
            thread::sleep(Duration::from_millis(1));
            if thread::current().id() == me {
                r.fetch_add(1, Ordering::SeqCst);
            }
        });
        let mut helped = 0;
        while !producer.is_finished() {
            if pool.help() {
                helped += 1;
            } else {
                thread::yield_now();
            }
        }
        producer.join();
        release.send(()).unwrap();
        release.send(()).unwrap();
        blocker.join();
        assert!(helped > 0, "the consumer found nothing to help with");
        assert!(ran_here.load(Ordering::SeqCst) > 0);
    });
}

#[test]
fn a_caller_standing_in_for_a_helper_leaves_its_slot_to_the_helper() {
    watchdog("stand in", || {
        let pool = TaskPoolEx::new().ntasks(2).basesize(1);
        let caller = thread::current().id();

        // Nobody helps: the worker's lane runs every chunk, and the fold still ends.
        let seen = threads_of(&AsDriver(&pool), 20, Duration::from_micros(100));
        assert_eq!(seen.len(), 20);
        assert!(
            seen.iter().all(|(id, _)| *id != caller),
            "a chunk ran on the caller"
        );

        // A thread that keeps helping. The worker's items wait until the helper has run one,
        // so the fold can only finish if the caller's lane (or the worker's) reaches it.
        let stop = Arc::new(AtomicBool::new(false));
        let helper = {
            let (pool, stop) = (pool.clone(), Arc::clone(&stop));
            thread::spawn(move || {
                let mut helped = 0;
                while !stop.load(Ordering::SeqCst) {
                    if pool.help() {
                        helped += 1;
                    } else {
                        thread::yield_now();
                    }
                }
                helped
            })
        };
        let helper_id = helper.thread().id();
        let on_helper = AtomicUsize::new(0);
        let on_caller = AtomicUsize::new(0);
        AsDriver(&pool).for_each(0..40, |_| {
            let me = thread::current().id();
            if me == helper_id {
                on_helper.fetch_add(1, Ordering::SeqCst);
                return;
            }
            if me == caller {
                on_caller.fetch_add(1, Ordering::SeqCst);
            }
            while on_helper.load(Ordering::SeqCst) == 0 {
                thread::sleep(Duration::from_micros(100));
            }
        });
        stop.store(true, Ordering::SeqCst);
        let helped = helper.join().unwrap();
        assert_eq!(
            on_caller.into_inner(),
            0,
            "a chunk ran on the standing-in caller"
        );
        assert!(on_helper.into_inner() > 0 && helped > 0);
    });
}

#[test]
fn standing_in_with_one_task_runs_chunks_beside_a_helper() {
    watchdog("stand in, one task", || {
        let caller = thread::current().id();
        // One task: no worker lane could end the fold without a helper, so the caller runs
        // chunks itself; with nobody helping it runs every one.
        let single = TaskPoolEx::new().ntasks(1).basesize(1);
        let seen = threads_of(&AsDriver(&single), 10, Duration::ZERO);
        assert_eq!(seen.len(), 10);
        assert!(seen.iter().all(|(id, _)| *id == caller));

        // A thread that keeps helping runs chunks beside the caller.
        let stop = Arc::new(AtomicBool::new(false));
        let helper = {
            let (single, stop) = (single.clone(), Arc::clone(&stop));
            thread::spawn(move || {
                let mut helped = 0;
                while !stop.load(Ordering::SeqCst) {
                    if single.help() {
                        helped += 1;
                    } else {
                        thread::yield_now();
                    }
                }
                helped
            })
        };
        let helper_id = helper.thread().id();
        let seen = threads_of(&AsDriver(&single), 200, Duration::from_micros(200));
        stop.store(true, Ordering::SeqCst);
        let helped = helper.join().unwrap();
        assert_eq!(seen.len(), 200);
        let on_helper = seen.iter().filter(|(id, _)| *id == helper_id).count();
        let on_caller = seen.iter().filter(|(id, _)| *id == caller).count();
        assert_eq!(
            on_helper + on_caller,
            200,
            "only the caller and the helper run chunks"
        );
        assert!(
            on_helper > 0 && helped == on_helper,
            "{on_helper} on the helper, {helped} helps"
        );
    });
}

#[test]
fn standing_in_changes_nothing_in_background_mode() {
    watchdog("stand in, background", || {
        let caller = thread::current().id();
        // Background mode: nothing on the caller, and nothing lent to a helper.
        let background = TaskPoolEx::new().ntasks(2).basesize(1).background(true);
        let seen = threads_of(&AsDriver(&background), 10, Duration::ZERO);
        assert_eq!(seen.len(), 10);
        assert!(seen.iter().all(|(id, _)| *id != caller));
        assert!(!background.help());
    });
}

/// A custom job that panics inside `run`: the panic reaches the caller, and the pool lives on.
struct Panicky;
impl<'a> Job<'a> for Panicky {
    fn len(&self) -> usize {
        100
    }
    fn run(&self, range: std::ops::Range<usize>) -> Partial<'a> {
        if range.contains(&37) {
            panic!("custom job failed at 37");
        }
        foldex_core::Brand::<()>::new().wrap(())
    }
    fn combine(&self, left: Partial<'a>, _right: Partial<'a>) -> Partial<'a> {
        left
    }
    fn is_stopped(&self, _from: usize) -> bool {
        false
    }
}

#[test]
#[cfg(panic = "unwind")]
fn a_panicking_custom_job_does_not_kill_the_pool() {
    watchdog("custom job panic", || {
        for (background, stand_in) in [(true, false), (false, false), (false, true)] {
            let pool = TaskPoolEx::new()
                .ntasks(3)
                .basesize(1)
                .background(background);
            let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                if stand_in {
                    let _ = pool.execute(&StandIn(&Panicky));
                } else {
                    let _ = pool.execute(&Panicky);
                }
            }))
            .expect_err("the job's panic must reach the caller");
            let msg = err.downcast_ref::<&str>().copied().unwrap_or_default();
            assert_eq!(msg, "custom job failed at 37");
            assert_eq!(pool.sum::<usize>(0..1000), 499_500, "the pool still works");
        }
    });
}

#[test]
fn spawned_folds_leave_the_caller_free_and_cancel_on_drop() {
    watchdog("spawn", || {
        let pool = TaskPoolEx::new().ntasks(4).basesize(1).background(true);
        let caller = thread::current().id();
        let on_caller = Arc::new(AtomicUsize::new(0));
        let o = Arc::clone(&on_caller);
        let handle = pool.spawn_fold(
            0..200,
            || 0usize,
            move |n, i| {
                if thread::current().id() == caller {
                    o.fetch_add(1, Ordering::SeqCst);
                }
                n + i
            },
            |a, b| a + b,
        );
        assert_eq!(handle.join(), 199 * 200 / 2);
        assert_eq!(on_caller.load(Ordering::SeqCst), 0);

        let visited = Arc::new(AtomicUsize::new(0));
        let v = Arc::clone(&visited);
        let endless = pool.spawn_for_each(0..1usize << 40, move |_| {
            v.fetch_add(1, Ordering::SeqCst);
            thread::sleep(Duration::from_micros(50));
        });
        while visited.load(Ordering::SeqCst) < 10 {
            thread::yield_now();
        }
        drop(endless);
        let after = visited.load(Ordering::SeqCst);
        thread::sleep(Duration::from_millis(20));
        assert_eq!(
            visited.load(Ordering::SeqCst),
            after,
            "items ran after the drop returned"
        );
    });
}

/// `ThreadedEx` and `TaskPoolEx` folding into each other, foreground and background: each
/// pool's workers may be blocked in the other's fold, so a waiting caller takes back what
/// nobody has started (this used to deadlock).
#[test]
fn folds_nested_between_threaded_and_task_pools_complete() {
    watchdog("threaded <-> task pool", || {
        let a = foldex_threaded::ThreadedEx::new();
        for background in [true, false] {
            for ntasks in [2, 3] {
                let b = TaskPoolEx::new().ntasks(ntasks).background(background);
                for n in [10, 200] {
                    let got = a.map_reduce(
                        0..n,
                        |i| b.map_reduce(0..i % 8, |j| a.sum::<usize>(0..j), || 0, |x, y| x + y),
                        || 0,
                        |x, y| x + y,
                    );
                    let want: usize = (0..n)
                        .map(|i| (0..i % 8).map(|j| (0..j).sum::<usize>()).sum::<usize>())
                        .sum();
                    assert_eq!(got, want, "background {background}, ntasks {ntasks}, n {n}");
                }
            }
        }
    });
}

/// A caller whose workers are all blocked until it has run a fold of its own on the same pool
/// takes the fold's queued lanes back and runs it, in background mode too; a `FoldHandle`
/// joined inside a step likewise.
#[test]
fn a_caller_whose_workers_wait_for_it_runs_its_own_fold() {
    watchdog("task pool workers blocked on the caller", || {
        for background in [true, false] {
            let pool = TaskPoolEx::new()
                .ntasks(2)
                .basesize(1)
                .background(background);
            let release = Arc::new(AtomicBool::new(false));
            let entered = Arc::new(AtomicUsize::new(0));
            let blocked = {
                let (release, entered) = (Arc::clone(&release), Arc::clone(&entered));
                pool.spawn_for_each(0..2usize, move |_| {
                    entered.fetch_add(1, Ordering::SeqCst);
                    while !release.load(Ordering::SeqCst) {
                        thread::sleep(Duration::from_micros(100));
                    }
                })
            };
            // Both workers blocked before the caller's fold starts (see the threaded pool's
            // test of the same name for why).
            while entered.load(Ordering::SeqCst) < 2 {
                thread::sleep(Duration::from_micros(100));
            }
            assert_eq!(
                pool.sum::<usize>(0..1000),
                499_500,
                "background {background}"
            );
            release.store(true, Ordering::SeqCst);
            blocked.join();
            let joined = pool.map_reduce(
                0..2usize,
                |_| {
                    pool.spawn_fold(0..10usize, || 0, |a, x| a + x, |a, b| a + b)
                        .join()
                },
                || 0,
                |a, b| a + b,
            );
            assert_eq!(joined, 90, "background {background}");
        }
    });
}

/// A caller standing in for a helper whose workers are all blocked takes back only their lanes:
/// the lane left to the helper stays queued, so two items that must run at the same time (as a
/// loader's turns wait for its consumer) still meet, one on the caller and one on the helper.
/// Keeps both of `pool`'s workers busy (a background fold of two items that wait) until the
/// returned flag is set; returns once both are inside it.
fn hold_both_workers(pool: &TaskPoolEx) -> (Arc<AtomicBool>, FoldHandle<()>) {
    let release = Arc::new(AtomicBool::new(false));
    let entered = Arc::new(AtomicUsize::new(0));
    let blocker = {
        let (release, entered) = (Arc::clone(&release), Arc::clone(&entered));
        pool.clone()
            .background(true)
            .spawn_for_each(0..2usize, move |_| {
                entered.fetch_add(1, Ordering::SeqCst);
                while !release.load(Ordering::SeqCst) {
                    thread::sleep(Duration::from_micros(100));
                }
            })
    };
    while entered.load(Ordering::SeqCst) < 2 {
        thread::sleep(Duration::from_micros(100));
    }
    (release, blocker)
}

/// Folds two items that wait for each other (`first` runs in each before it waits), on a caller
/// standing in for a helper, beside a helper thread that starts helping after `helper_delay`;
/// the fold's sum of indices.
fn two_items_that_meet_with_a_helper(
    pool: &TaskPoolEx,
    helper_delay: Duration,
    first: impl Fn() + Sync,
) -> usize {
    let barrier = std::sync::Barrier::new(2);
    let done = AtomicBool::new(false);
    thread::scope(|s| {
        s.spawn(|| {
            thread::sleep(helper_delay);
            while !done.load(Ordering::Acquire) {
                if !pool.help() {
                    thread::yield_now();
                }
            }
        });
        let got = AsDriver(&pool).map_reduce(
            0..2usize,
            |i| {
                first();
                barrier.wait();
                i
            },
            || 0,
            |a, b| a + b,
        );
        done.store(true, Ordering::Release);
        got
    })
}

#[test]
fn a_helper_on_the_workers_lane_hands_it_on_before_its_chunk_runs() {
    // The helper comes first and takes the first lane it may: the workers' one (the caller's
    // share, left to helpers, is queued behind it). Its item waits for the other item, which only
    // that lane or the workers can reach: a helper that kept the lane while its chunk ran would
    // strand the other item behind a lane only helpers may take.
    watchdog("a helper's item that waits for another", || {
        let pool = TaskPoolEx::new().ntasks(2).basesize(1);
        let (release, blocker) = hold_both_workers(&pool);
        let helping = AtomicBool::new(false);
        let got = two_items_that_meet_with_a_helper(&pool, Duration::ZERO, || {
            if !helping.swap(true, Ordering::SeqCst) {
                // The first item is under way: free the workers.
                release.store(true, Ordering::SeqCst);
            }
        });
        blocker.join();
        assert_eq!(got, 1);
    });
}

#[test]
fn a_stalled_caller_standing_in_leaves_the_helper_its_lane() {
    watchdog("a stalled stand-in's items that meet", || {
        let pool = TaskPoolEx::new().ntasks(2).basesize(1);
        let (release, blocker) = hold_both_workers(&pool);
        // The helper comes late: the caller has found its fold stalled by then.
        let got = two_items_that_meet_with_a_helper(&pool, Duration::from_millis(20), || {});
        release.store(true, Ordering::SeqCst);
        blocker.join();
        assert_eq!(got, 1);
    });
}

#[test]
fn a_fold_of_one_chunk_runs_inline_where_the_caller_runs_chunks() {
    use foldex_core::RunsInline::{No, Yes};
    watchdog("runs inline", || {
        let pool = TaskPoolEx::new().ntasks(2).basesize(100);
        assert!(pool.runs_inline(0) == Yes && pool.runs_inline(100) == Yes);
        assert!(pool.runs_inline(101) == No, "two chunks");
        // Automatic chunks: len / (4 × ntasks), at least one index.
        let auto = TaskPoolEx::new().ntasks(2);
        assert!(auto.runs_inline(1) == Yes && auto.runs_inline(2) == No);
        // In the background the caller runs nothing, but a fold nested on a worker runs there.
        let background = pool.clone().background(true);
        assert!(background.runs_inline(10) == No);
        let nested = background.map_reduce(
            0..2usize,
            |_| background.runs_inline(10) == Yes,
            || true,
            |a, b| a && b,
        );
        assert!(nested);
        // The inline fold runs on the caller.
        let me = thread::current().id();
        pool.for_each(0..100usize, |_| assert_eq!(thread::current().id(), me));
    });
}
