//! Errors, helping and background mode, refusing to run inside the feeding pool, bad settings.

mod common;

use foldex_core::{Executor, ExecutorExt};
use foldex_dataset::{from_fn, Fallible, ItemError};
use foldex_loader::{eachobsparallel, IterError, Loader};
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};
use std::time::Duration;

#[derive(Debug, PartialEq, Eq)]
struct Boom(usize);

#[test]
#[cfg(panic = "unwind")]
fn a_panic_in_get_reaches_next_with_its_payload_and_the_loader_still_works() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            let armed = Arc::new(AtomicBool::new(true));
            let trigger = Arc::clone(&armed);
            let loader = Loader::new(
                from_fn(300, move |i| {
                    if i == 137 && trigger.load(Ordering::Relaxed) {
                        std::panic::panic_any(Boom(i));
                    }
                    i
                }),
                Arc::clone(executor),
            )
            .batch_size(2)
            .buffer(4);
            let mut delivered = 0;
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                for batch in &loader {
                    delivered += batch.len();
                }
            }));
            let payload = outcome.expect_err("the panic must reach the consumer");
            assert_eq!(payload.downcast_ref::<Boom>(), Some(&Boom(137)), "{name}");
            assert!(delivered < 300, "{name}");
            armed.store(false, Ordering::Relaxed);
            let again: Vec<usize> = loader.iter().flatten().collect();
            assert_eq!(
                again,
                (0..300).collect::<Vec<_>>(),
                "{name}: the next epoch works"
            );
        });
    }
}

#[test]
fn fallible_items_carry_their_index_and_the_epoch_goes_on() {
    for (name, executor) in common::executors() {
        let data = Fallible::new(from_fn(100, |i| {
            if i % 10 == 3 {
                Err("corrupt")
            } else {
                Ok(i)
            }
        }));
        let mut ok = Vec::new();
        let mut failed = Vec::new();
        for item in eachobsparallel(data, Arc::clone(executor)) {
            match item {
                Ok(i) => ok.push(i),
                Err(ItemError { index, error }) => {
                    assert_eq!(error, "corrupt");
                    failed.push(index);
                }
            }
        }
        ok.sort();
        failed.sort();
        assert_eq!(failed, (3..100).step_by(10).collect::<Vec<_>>(), "{name}");
        assert_eq!(ok.len(), 90, "{name}");
    }
}

fn threads_that_loaded(
    executor: impl Executor + 'static,
    slow_consumer: bool,
) -> (ThreadId, HashSet<ThreadId>) {
    let seen = Arc::new(Mutex::new(HashSet::new()));
    let record = Arc::clone(&seen);
    let loader = Loader::new(
        from_fn(200, move |i| {
            record.lock().unwrap().insert(thread::current().id());
            thread::sleep(Duration::from_micros(500));
            i
        }),
        executor,
    );
    for _ in &loader {
        if slow_consumer {
            thread::sleep(Duration::from_micros(100));
        }
    }
    let seen = seen.lock().unwrap().clone();
    (thread::current().id(), seen)
}

#[test]
fn background_mode_keeps_the_consumer_thread_free() {
    watchdog("background", || {
        for slow in [false, true] {
            let ex = TaskPoolEx::new().ntasks(2).basesize(1).background(true);
            let (consumer, loaders) = threads_that_loaded(ex, slow);
            assert!(!loaders.contains(&consumer));
        }
    });
}

#[test]
fn without_background_a_consumer_that_finds_the_buffer_empty_helps() {
    watchdog("helping", || {
        // One worker with forked halves waiting in its deque, items of 0.5 ms and a fast
        // consumer: the consumer keeps finding the buffer empty and steals waiting work.
        let ex = ThreadedEx::new().threads(1).basesize(1);
        let (consumer, loaders) = threads_that_loaded(ex, false);
        assert!(loaders.contains(&consumer), "the consumer never helped");
        assert!(loaders.len() >= 2, "the pool's worker loaded too");
    });
}

#[test]
fn helping_with_a_work_stealing_pool_completes_every_epoch() {
    watchdog("helping with ThreadedEx", || {
        for buffer in [1, 2, 8] {
            for ordered in [true, false] {
                let loader = Loader::new(
                    from_fn(2_000, |i| {
                        if i % 3 == 0 {
                            thread::sleep(Duration::from_micros(50));
                        }
                        i
                    }),
                    ThreadedEx::new().threads(2).basesize(1),
                )
                .buffer(buffer)
                .ordered(ordered);
                let mut got: Vec<usize> = loader.iter().flatten().collect();
                if !ordered {
                    got.sort();
                }
                assert_eq!(got, (0..2_000).collect::<Vec<_>>());
            }
        }
    });
}

fn refuses_inside(executor: Arc<dyn Executor>) {
    let loader = Loader::new(from_fn(10, |i| i), Arc::clone(&executor));
    let on_worker = AtomicUsize::new(0);
    executor.for_each(0..64, |_| {
        let refused = loader.try_iter().err();
        if executor.is_worker_thread() {
            on_worker.fetch_add(1, Ordering::Relaxed);
            assert_eq!(refused, Some(IterError::InsideExecutorPool));
        } else {
            assert_eq!(refused, None);
        }
    });
    assert!(
        on_worker.load(Ordering::Relaxed) > 0,
        "no item ran on a worker"
    );
}

#[test]
fn iterating_inside_the_feeding_pool_is_refused() {
    watchdog("refusal", || {
        refuses_inside(Arc::new(ThreadedEx::new().threads(2).basesize(1)));
        refuses_inside(Arc::new(
            TaskPoolEx::new().ntasks(2).basesize(1).background(true),
        ));
    });
}

#[test]
#[cfg(panic = "unwind")]
fn iter_inside_the_feeding_pool_panics_with_a_clear_message() {
    let ex = TaskPoolEx::new().ntasks(1).basesize(1).background(true);
    let loader = Loader::new(from_fn(10, |i| i), ex.clone());
    let message = Mutex::new(String::new());
    ex.for_each(0..1, |_| {
        let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loader.iter()))
            .expect_err("must refuse");
        *message.lock().unwrap() = err.downcast_ref::<String>().cloned().unwrap_or_default();
    });
    let message = message.into_inner().unwrap();
    assert!(
        message.contains("worker thread of the executor that feeds it"),
        "{message}"
    );
}

#[test]
#[should_panic(expected = "buffer must be at least 1, got 0")]
fn buffer_zero_is_refused() {
    let _ = Loader::new(vec![1], ThreadedEx::new().basesize(1)).buffer(0);
}

#[test]
#[should_panic(expected = "batch_size must be at least 1, got 0")]
fn batch_size_zero_is_refused() {
    let _ = Loader::new(vec![1], ThreadedEx::new().basesize(1)).batch_size(0);
}

#[test]
fn the_default_buffer_is_twice_the_workers() {
    let loader = Loader::new(vec![1], TaskPoolEx::new().ntasks(3));
    assert_eq!(loader.buffer_size(), 6);
    assert_eq!(loader.buffer(5).buffer_size(), 5);
}

#[test]
fn boxed_and_shared_executors_work() {
    let boxed: Box<dyn Executor> = Box::new(ThreadedEx::new());
    let shared: Arc<dyn Executor> = Arc::new(TaskPoolEx::new());
    assert_eq!(Loader::new(from_fn(50, |i| i), boxed).iter().count(), 50);
    assert_eq!(Loader::new(from_fn(50, |i| i), shared).iter().count(), 50);
}
