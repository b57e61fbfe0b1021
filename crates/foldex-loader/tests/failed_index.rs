//! A panic in `get` reaches the consumer with its original payload, and the iterator names the
//! index that failed, on every executor.
#![cfg(panic = "unwind")]

mod common;

use foldex_dataset::from_fn;
use foldex_loader::Loader;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, PartialEq)]
struct BadFile(usize);

#[test]
fn the_failing_index_travels_beside_the_original_payload() {
    for (name, executor) in common::executors() {
        for batch_size in [1, 4] {
            let loader = Loader::new(
                from_fn(200, |i| {
                    if i == 137 {
                        std::panic::panic_any(BadFile(i));
                    }
                    i
                }),
                Arc::clone(executor),
            )
            .batch_size(batch_size)
            .buffer(4);
            let mut epoch = loader.iter();
            assert_eq!(epoch.failed_index(), None, "{name}: nothing failed yet");
            let caught = catch_unwind(AssertUnwindSafe(|| epoch.by_ref().count()));
            let payload = caught.expect_err("the panic in get reaches next()");
            assert_eq!(
                payload.downcast_ref::<BadFile>(),
                Some(&BadFile(137)),
                "{name}"
            );
            assert_eq!(
                epoch.failed_index(),
                Some(137),
                "{name}, batch size {batch_size}"
            );
            // The loader is usable again, and a panic in collate names no index.
            let collated = Loader::new(from_fn(8, |i| i), Arc::clone(executor))
                .collate(|_: Vec<usize>| -> usize { panic!("collate") });
            let mut epoch = collated.iter();
            assert!(catch_unwind(AssertUnwindSafe(|| epoch.by_ref().count())).is_err());
            assert_eq!(epoch.failed_index(), None, "{name}");
        }
    }
}

/// When several loads panic at once, the index and the payload the consumer gets are those of
/// the same panic: two failing loads wait for each other (up to 1 ms) and panic together.
#[test]
fn the_index_and_the_payload_come_from_the_same_panic() {
    for (name, executor) in common::executors() {
        for round in 0..200 {
            let entered = Arc::new(AtomicUsize::new(0));
            let loader = Loader::new(
                from_fn(64, move |i| {
                    if i % 7 == 3 {
                        entered.fetch_add(1, Ordering::SeqCst);
                        let start = Instant::now();
                        while entered.load(Ordering::SeqCst) < 2
                            && start.elapsed() < Duration::from_millis(1)
                        {
                            std::hint::spin_loop();
                        }
                        std::panic::panic_any(BadFile(i));
                    }
                    i
                }),
                Arc::clone(executor),
            )
            .shuffle(round)
            .ordered(round % 2 == 0)
            .buffer(8);
            let mut epoch = loader.iter();
            let caught = catch_unwind(AssertUnwindSafe(|| epoch.by_ref().count()));
            let payload = caught.expect_err("a panic in get reaches next()");
            let BadFile(index) = payload
                .downcast_ref::<BadFile>()
                .expect("the dataset's payload");
            assert_eq!(epoch.failed_index(), Some(*index), "{name}, round {round}");
        }
    }
}
