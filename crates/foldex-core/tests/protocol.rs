//! The pieces executors are built from: brands, chunking, ordered combining, task scopes.
#![cfg(not(loom))]

use foldex_core::exec::{chunk, chunks, split, task_scope, OrderedCombiner};
use foldex_core::{Basesize, Brand, ConfigError, Executor, ExecutorExt, Job, Partial};
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

#[test]
#[cfg(panic = "unwind")]
fn a_partial_of_another_brand_is_refused() {
    let a = Brand::<u32>::new();
    let b = Brand::<u32>::new();
    let partial = a.wrap(7);
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b.unwrap(partial)))
        .expect_err("unwrapping with the wrong brand must panic");
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("did not make it"), "{msg}");
}

#[test]
fn partials_may_borrow() {
    let data = [String::from("x"), String::from("y")];
    let brand = Brand::<Vec<&String>>::new();
    let partial = brand.wrap(data.iter().collect());
    assert_eq!(brand.unwrap(partial), vec![&data[0], &data[1]]);
}

#[test]
fn zero_settings_name_the_setting() {
    assert_eq!(
        Basesize::fixed(0).unwrap_err().to_string(),
        "basesize must be at least 1, got 0"
    );
    let err = ConfigError::nonzero("ntasks", 0).unwrap_err();
    assert_eq!(err.setting(), "ntasks");
    assert_eq!(Basesize::Auto.resolve(1000, 2), 125);
    assert_eq!(Basesize::Auto.resolve(3, 8), 1);
    assert_eq!(Basesize::fixed(7).unwrap().resolve(3, 8), 7);
}

proptest! {
    #[test]
    fn split_halves_cover_the_range(start in 0usize..1000, len in 0usize..5000, bs in 1usize..100) {
        let range = start..start + len;
        match split(range.clone(), bs) {
            None => prop_assert!(len <= bs),
            Some((l, r)) => {
                prop_assert!(len > bs);
                prop_assert_eq!(l.start, range.start);
                prop_assert_eq!(l.end, r.start);
                prop_assert_eq!(r.end, range.end);
                prop_assert!(!l.is_empty() && !r.is_empty());
            }
        }
    }

    #[test]
    fn chunks_cover_exactly(len in 0usize..5000, size in 1usize..300) {
        let all: Vec<_> = chunks(len, size).collect();
        prop_assert_eq!(all.len(), len.div_ceil(size));
        prop_assert_eq!(all.iter().flat_map(|r| r.clone()).collect::<Vec<_>>(), (0..len).collect::<Vec<_>>());
        for (i, r) in all.iter().enumerate() {
            prop_assert_eq!(&chunk(len, size, i), r);
        }
        prop_assert!(chunk(len, size, all.len()).is_empty());
    }

    /// Chunks arriving in any order are combined in index order.
    #[test]
    fn ordered_combiner_restores_order(order in Just((0..40usize).collect::<Vec<_>>()).prop_shuffle()) {
        let got = Concat.collect_in(order);
        prop_assert_eq!(got, (0..40).collect::<Vec<_>>());
    }
}

/// An executor that runs chunks of one index in the order it is given, to drive
/// `OrderedCombiner` through the real typed job.
struct Concat;

impl Concat {
    fn collect_in(&self, order: Vec<usize>) -> Vec<usize> {
        struct InOrder(Vec<usize>);
        impl Executor for InOrder {
            fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
                let mut combiner = OrderedCombiner::new();
                for &i in &self.0 {
                    combiner.push(job, i, job.run(chunk(job.len(), 1, i)));
                }
                combiner.finish(job)
            }
        }
        let len = order.len();
        InOrder(order).collect_vec(0..len)
    }
}

#[test]
fn empty_combiner_yields_the_identity() {
    struct Nothing;
    impl Executor for Nothing {
        fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
            OrderedCombiner::new().finish(job)
        }
    }
    assert_eq!(Nothing.collect_vec(0..0), Vec::<usize>::new());
}

#[test]
fn scoped_tasks_run_on_static_threads_and_borrow() {
    let data: Vec<u64> = (1..=100).collect();
    let total = AtomicUsize::new(0);
    let threads = Mutex::new(Vec::new());
    task_scope(
        |scope| {
            for part in data.chunks(10) {
                let task = scope.spawn(|| {
                    total.fetch_add(part.iter().sum::<u64>() as usize, Ordering::Relaxed);
                });
                threads
                    .lock()
                    .unwrap()
                    .push(std::thread::spawn(move || task.run()));
            }
        },
        |latch| latch.wait(),
    );
    assert_eq!(total.load(Ordering::Relaxed), 5050);
    for t in threads.into_inner().unwrap() {
        t.join().unwrap();
    }
}

#[test]
#[cfg(panic = "unwind")]
fn a_panicking_task_is_reraised_after_the_others_finish() {
    let finished = AtomicUsize::new(0);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        task_scope(
            |scope| {
                let boom = scope.spawn(|| std::panic::panic_any(42u8));
                let slow = scope.spawn(|| {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    finished.fetch_add(1, Ordering::SeqCst);
                });
                std::thread::spawn(move || boom.run());
                std::thread::spawn(move || slow.run());
            },
            |_| {},
        )
    }));
    assert_eq!(*result.unwrap_err().downcast::<u8>().unwrap(), 42);
    assert_eq!(
        finished.load(Ordering::SeqCst),
        1,
        "the scope waited for the slow task"
    );
}

#[test]
fn a_dropped_task_releases_its_scope_without_running() {
    let ran = AtomicUsize::new(0);
    task_scope(
        |scope| {
            drop(scope.spawn(|| {
                ran.fetch_add(1, Ordering::SeqCst);
            }))
        },
        |latch| assert!(latch.is_set()),
    );
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

#[test]
#[should_panic(expected = "chunk 2 was combined twice")]
fn a_chunk_combined_twice_is_refused() {
    // Chunks 3, 1 and 2 merge into one waiting run 1..4; chunk 2 again falls inside it.
    Concat.collect_in(vec![3, 1, 2, 2]);
}

/// Counts its drops.
struct Dropped<'a>(&'a AtomicUsize);

impl Drop for Dropped<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// A task whose closure fits in place (two words here) and one that does not (a large array)
/// both run once and drop what they captured once, run or dropped unrun.
#[test]
fn spawned_tasks_small_and_large_run_once_and_drop_their_captures_once() {
    let (ran, dropped) = (AtomicUsize::new(0), AtomicUsize::new(0));
    task_scope(
        |scope| {
            for run in [true, false] {
                let small = Dropped(&dropped);
                let ran = &ran;
                let task = scope.spawn(move || {
                    let _small = small;
                    ran.fetch_add(1, Ordering::Relaxed);
                });
                let large = ([7u64; 16], Dropped(&dropped));
                let big = scope.spawn(move || {
                    let (values, _large) = large;
                    ran.fetch_add(values.len() - 15, Ordering::Relaxed);
                });
                if run {
                    std::thread::spawn(move || task.run()).join().unwrap();
                    big.run();
                } else {
                    drop((task, big));
                }
            }
        },
        |latch| latch.wait(),
    );
    assert_eq!(ran.load(Ordering::Relaxed), 2, "each run task ran once");
    assert_eq!(
        dropped.load(Ordering::Relaxed),
        4,
        "each capture dropped once"
    );
}
