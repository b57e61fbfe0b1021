//! Non-blocking folds work through `Arc<dyn Executor>` for every executor: the same results as
//! blocking folds, the original panic at `join`, and cancellation when the handle is dropped.
use foldex_core::{Executor, ExecutorExt, SpawnExt};
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::{watchdog, Boom};
use foldex_threaded::ThreadedEx;
use std::ops::ControlFlow::{Break, Continue};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

fn executors() -> Vec<(&'static str, Arc<dyn Executor>)> {
    vec![
        ("SequentialEx", Arc::new(SequentialEx)),
        (
            "ThreadedEx",
            Arc::new(ThreadedEx::new().threads(3).basesize(7)),
        ),
        (
            "TaskPoolEx",
            Arc::new(TaskPoolEx::new().ntasks(3).basesize(7)),
        ),
        (
            "TaskPoolEx background",
            Arc::new(TaskPoolEx::new().ntasks(3).basesize(1).background(true)),
        ),
    ]
}

#[test]
fn spawned_folds_match_blocking_folds() {
    watchdog("spawn results", || {
        for (name, ex) in executors() {
            let want = ex.collect_vec(0..1000);
            let got = ex.spawn_fold(
                0..1000,
                Vec::new,
                |mut v, i| {
                    v.push(i);
                    v
                },
                |mut a, mut b| {
                    a.append(&mut b);
                    a
                },
            );
            assert_eq!(got.join(), want, "{name}");
            let stop = ex.spawn_try_fold(
                0..1000,
                || 0,
                |n, i| if i == 500 { Break(n) } else { Continue(n + i) },
                |a, b| a + b,
            );
            assert_eq!(stop.join(), Break(499 * 500 / 2), "{name}");
        }
    });
}

#[test]
#[cfg(panic = "unwind")]
fn join_reraises_the_original_payload_and_the_executor_lives_on() {
    watchdog("spawn panics", || {
        for (name, ex) in executors() {
            let handle = ex.spawn_for_each(0..1000, |i| {
                if i == 321 {
                    std::panic::panic_any(Boom(i));
                }
            });
            let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle.join()))
                .expect_err("the panic must reach join");
            assert_eq!(payload.downcast_ref::<Boom>(), Some(&Boom(321)), "{name}");
            assert_eq!(ex.sum::<usize>(0..100), 4950, "{name}");
        }
    });
}

#[test]
fn dropping_the_handle_stops_an_endless_fold() {
    watchdog("spawn cancel", || {
        for (name, ex) in executors() {
            let visited = Arc::new(AtomicUsize::new(0));
            let v = Arc::clone(&visited);
            let handle = ex.spawn_for_each(0..1usize << 40, move |_| {
                v.fetch_add(1, Ordering::SeqCst);
                thread::sleep(Duration::from_micros(20));
            });
            while visited.load(Ordering::SeqCst) < 20 {
                thread::yield_now();
            }
            drop(handle);
            let after = visited.load(Ordering::SeqCst);
            thread::sleep(Duration::from_millis(20));
            assert_eq!(
                visited.load(Ordering::SeqCst),
                after,
                "{name}: ran after the drop"
            );
            assert_eq!(
                Arc::strong_count(&visited),
                1,
                "{name}: the closure outlived the fold"
            );
        }
    });
}
