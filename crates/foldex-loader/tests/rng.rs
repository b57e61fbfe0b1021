//! Per-observation randomness does not depend on the executor.

mod common;

use foldex_dataset::{from_fn, rng_for};
use foldex_loader::Loader;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Two epochs of "augmented" observations (drawn on the executor's threads), sorted by index.
fn augmented(executor: &Arc<dyn foldex_core::Executor>) -> Vec<Vec<(usize, u64, f32)>> {
    let epoch = Arc::new(AtomicU64::new(0));
    let current = Arc::clone(&epoch);
    let loader = Loader::new(
        from_fn(300, move |i| {
            let mut rng = rng_for(4, current.load(Ordering::Relaxed), i);
            (i, rng.next_u64(), rng.next_f32())
        }),
        Arc::clone(executor),
    )
    .batch_size(7)
    .shuffle(4)
    .ordered(false);
    (0..2)
        .map(|_| {
            epoch.store(loader.next_epoch(), Ordering::Relaxed);
            let mut got: Vec<(usize, u64, f32)> = loader.iter().flatten().collect();
            got.sort_by_key(|&(i, ..)| i);
            got
        })
        .collect()
}

#[test]
fn augmentations_are_identical_on_every_executor_and_thread_count() {
    let executors = common::executors();
    let reference = augmented(&executors[0].1);
    assert_ne!(reference[0], reference[1], "epochs draw differently");
    for (name, executor) in &executors[1..] {
        assert_eq!(augmented(executor), reference, "{name}");
    }
}
