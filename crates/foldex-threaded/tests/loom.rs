//! Model checks of the sleep/wake protocol: a task pushed while a worker goes to sleep is
//! never left behind with the worker asleep (loom reports a deadlock if it is).
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p foldex-threaded --release --test loom`.
#![cfg(loom)]

use foldex_threaded::sleep::Sleep;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

/// A stand-in for the deques: a count of queued tasks, taken one at a time.
struct Queue(AtomicUsize);

impl Queue {
    fn push(&self) {
        self.0.fetch_add(1, Ordering::Release);
    }
    fn take(&self) -> bool {
        let mut n = self.0.load(Ordering::Acquire);
        while n > 0 {
            match self
                .0
                .compare_exchange(n, n - 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return true,
                Err(now) => n = now,
            }
        }
        false
    }
}

/// The worker's side, as `WorkerCtx::main_loop` runs it (without the spinning): take a task,
/// or announce idle, look once more, and sleep. Returns once it has run `tasks` tasks.
fn worker(sleep: &Sleep, queue: &Queue, tasks: usize) {
    let mut done = 0;
    while done < tasks {
        if queue.take() {
            done += 1;
            continue;
        }
        let ticket = sleep.announce_idle();
        if queue.take() {
            sleep.cancel_idle();
            done += 1;
            continue;
        }
        sleep.sleep(ticket);
    }
}

#[test]
fn a_push_wakes_a_sleeping_worker() {
    loom::model(|| {
        let sleep = Arc::new(Sleep::new());
        let queue = Arc::new(Queue(AtomicUsize::new(0)));
        let w = {
            let (sleep, queue) = (Arc::clone(&sleep), Arc::clone(&queue));
            thread::spawn(move || worker(&sleep, &queue, 1))
        };
        queue.push();
        sleep.notify_work();
        w.join().unwrap();
    });
}

#[test]
fn two_pushes_reach_two_workers() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(|| {
        let sleep = Arc::new(Sleep::new());
        let queue = Arc::new(Queue(AtomicUsize::new(0)));
        let taken = Arc::new(AtomicUsize::new(0));
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let (sleep, queue, taken) =
                    (Arc::clone(&sleep), Arc::clone(&queue), Arc::clone(&taken));
                thread::spawn(move || {
                    // Each worker runs one task; which one does not matter.
                    worker(&sleep, &queue, 1);
                    taken.fetch_add(1, Ordering::Relaxed);
                })
            })
            .collect();
        for _ in 0..2 {
            queue.push();
            sleep.notify_work();
        }
        for w in workers {
            w.join().unwrap();
        }
        assert_eq!(taken.load(Ordering::Relaxed), 2);
    });
}

#[test]
fn shutdown_wakes_every_sleeper() {
    loom::model(|| {
        let sleep = Arc::new(Sleep::new());
        let stop = Arc::new(loom::sync::atomic::AtomicBool::new(false));
        let w = {
            let (sleep, stop) = (Arc::clone(&sleep), Arc::clone(&stop));
            thread::spawn(move || loop {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                let ticket = sleep.announce_idle();
                if stop.load(Ordering::SeqCst) {
                    sleep.cancel_idle();
                    return;
                }
                sleep.sleep(ticket);
            })
        };
        stop.store(true, Ordering::SeqCst);
        sleep.notify_all();
        w.join().unwrap();
    });
}

/// A worker's push onto its own deque notifies without a fence (`notify_own_work`): the idle
/// worker may sleep through it, but the task is never lost, since its owner takes it back if
/// nobody took it; and the sleeper still wakes at shutdown.
///
/// Bounded to four preemptions (unless `LOOM_MAX_PREEMPTIONS` says otherwise): unbounded, the
/// thief's loop made this model 32 s of CPU, at four it takes a third of a second. A lost
/// task, or a thief left asleep at shutdown, needs a preemption inside the thief's "look, then
/// sleep" (between its look at the queue or at `stop` and its `sleep`) and one inside the
/// owner's "push, then notify" or "store `stop`, then notify all": four cover both races at
/// once, each hit in either order; every further preemption is the thief going round its
/// loop again, which is the state it started the loop in.
#[test]
fn an_own_push_is_run_once_by_a_thief_or_its_owner() {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(4);
    }
    builder.check(|| {
        let sleep = Arc::new(Sleep::new());
        let queue = Arc::new(Queue(AtomicUsize::new(0)));
        let stop = Arc::new(loom::sync::atomic::AtomicBool::new(false));
        let stolen = Arc::new(AtomicUsize::new(0));
        let thief = {
            let (sleep, queue, stop, stolen) = (
                Arc::clone(&sleep),
                Arc::clone(&queue),
                Arc::clone(&stop),
                Arc::clone(&stolen),
            );
            thread::spawn(move || loop {
                if queue.take() {
                    stolen.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                let ticket = sleep.announce_idle();
                if queue.take() {
                    sleep.cancel_idle();
                    stolen.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                if stop.load(Ordering::SeqCst) {
                    sleep.cancel_idle();
                    return;
                }
                sleep.sleep(ticket);
            })
        };
        queue.push();
        sleep.notify_own_work();
        let taken_back = usize::from(queue.take());
        stop.store(true, Ordering::SeqCst);
        sleep.notify_all();
        thief.join().unwrap();
        assert_eq!(taken_back + stolen.load(Ordering::Relaxed), 1);
    });
}
