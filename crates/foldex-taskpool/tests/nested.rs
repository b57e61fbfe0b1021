//! Folds nested in a step of a fold on the same pool: while every one of the pool's `ntasks`
//! runs chunks, a nested fold runs whole on the thread that started it; while a task is free,
//! the free task takes part of it.
use foldex_core::{Executor, ExecutorExt, Job, Partial, RunsInline};
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use std::sync::mpsc;
use std::sync::{Barrier, Mutex};
use std::thread::{self, ThreadId};
use std::time::Duration;

/// Calls `execute` only: `runs_inline` keeps its default, `RunsInline::No`, so that every fold reaches
/// the pool's `execute` as a job.
struct ViaExecute<'p>(&'p TaskPoolEx);

impl Executor for ViaExecute<'_> {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        self.0.execute(job)
    }
}

/// The threads that ran the 64 items of a fold on `ex`, in index order.
fn threads_of(ex: &dyn Executor) -> Vec<ThreadId> {
    let seen = Mutex::new(Vec::new());
    ex.for_each(0..64usize, |i| {
        seen.lock().unwrap().push((i, thread::current().id()));
    });
    let mut seen = seen.into_inner().unwrap();
    seen.sort_by_key(|(i, _)| *i);
    assert!(seen.iter().map(|(i, _)| *i).eq(0..64), "each item once");
    seen.into_iter().map(|(_, id)| id).collect()
}

/// Runs `nested` in each of two steps of a fold on `pool` (chunks of one step, `ntasks = 2`)
/// while both steps run at once, so that both of the pool's tasks are busy throughout; the
/// answers, in index order.
fn in_two_busy_steps<R: Send>(pool: &TaskPoolEx, nested: impl Fn() -> R + Sync) -> Vec<R> {
    let (entered, leaving) = (Barrier::new(2), Barrier::new(2));
    let got = Mutex::new(Vec::new());
    pool.for_each(0..2usize, |i| {
        entered.wait();
        let answer = nested();
        leaving.wait();
        got.lock().unwrap().push((i, answer));
    });
    let mut got = got.into_inner().unwrap();
    got.sort_by_key(|(i, _)| *i);
    got.into_iter().map(|(_, answer)| answer).collect()
}

#[test]
fn a_nested_fold_runs_on_the_thread_that_started_it_while_every_task_is_busy() {
    watchdog("nested folds while every task is busy", || {
        let caller = thread::current().id();
        for background in [true, false] {
            let pool = TaskPoolEx::new()
                .ntasks(2)
                .basesize(1)
                .background(background);
            let per_step = in_two_busy_steps(&pool, || {
                let me = thread::current().id();
                let inline = pool.runs_inline(1000) == RunsInline::Yes;
                let typed = threads_of(&pool);
                let as_job = threads_of(&ViaExecute(&pool));
                (me, inline, typed, as_job)
            });
            for (me, inline, typed, as_job) in per_step {
                assert!(inline, "background {background}: runs_inline");
                assert!(typed.iter().all(|&id| id == me), "background {background}");
                assert!(as_job.iter().all(|&id| id == me), "background {background}");
                if background {
                    assert_ne!(me, caller, "no chunk on the caller in background mode");
                }
            }
        }
    });
}

#[test]
fn a_nested_fold_with_a_task_free_shares_its_items_with_it() {
    watchdog("nested fold with a free task", || {
        for background in [true, false] {
            let pool = TaskPoolEx::new()
                .ntasks(2)
                .basesize(1)
                .background(background);
            // One step, on a worker: the other task is free, and the nested fold's two items,
            // which wait for each other, run at once.
            let got = pool.clone().background(true).map_reduce(
                0..1usize,
                |_| {
                    assert_eq!(
                        pool.runs_inline(2),
                        RunsInline::No,
                        "background {background}"
                    );
                    let (tx, rx) = (Mutex::new(None), Mutex::new(None));
                    let (send, recv) = mpsc::channel::<()>();
                    *tx.lock().unwrap() = Some(send);
                    *rx.lock().unwrap() = Some(recv);
                    pool.map_reduce(
                        0..2usize,
                        |j| {
                            if j == 0 {
                                let recv = rx.lock().unwrap().take().unwrap();
                                recv.recv_timeout(Duration::from_secs(30))
                                    .expect("item 1 runs beside item 0");
                            } else {
                                let _ = tx.lock().unwrap().take().unwrap().send(());
                            }
                            j
                        },
                        || 0,
                        |a, b| a + b,
                    )
                },
                || 0,
                |a, b| a + b,
            );
            assert_eq!(got, 1, "background {background}");
        }
    });
}

#[test]
fn nested_folds_give_the_sequential_answer_in_index_order() {
    watchdog("nested folds' answers", || {
        for background in [true, false] {
            for ntasks in [1, 2, 3] {
                let pool = TaskPoolEx::new().ntasks(ntasks).background(background);
                let rows: Vec<Vec<u64>> = (0..300u64)
                    .map(|r| (0..r % 50).map(|c| r * 7 + c).collect())
                    .collect();
                let got = pool.map_reduce(
                    &rows,
                    |row| pool.map_reduce(row, |&x| vec![x], Vec::new, |a, b| [a, b].concat()),
                    Vec::new,
                    |a, b| [a, b].concat(),
                );
                let want: Vec<u64> = rows.iter().flatten().copied().collect();
                assert_eq!(got, want, "background {background}, ntasks {ntasks}");
            }
        }
    });
}
