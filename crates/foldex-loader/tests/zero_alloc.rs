//! Buffer reuse allocates nothing per observation once warm: counted with an instrumented
//! global allocator (allocations on every thread of the process count).

mod common;

use foldex_loader::{Dataset, Loader};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::sync::Arc;
use std::sync::Mutex;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// One test at a time: the allocator counts the whole process.
static SERIAL: Mutex<()> = Mutex::new(());

struct Floats;

impl Dataset for Floats {
    type Item = Vec<f32>;
    fn len(&self) -> usize {
        4_000
    }
    fn get(&self, index: usize) -> Vec<f32> {
        vec![index as f32; 64]
    }
    fn get_into(&self, index: usize, buf: &mut Vec<f32>) {
        buf.clear();
        buf.resize(64, index as f32);
    }
}

/// Allocations while the consumer takes batches `from..to` of one epoch.
fn allocations_in_steady_state(
    loader: &Loader<Floats, foldex_loader::VecCollate, foldex_loader::Reuse>,
    from: usize,
    to: usize,
) -> usize {
    let mut iter = loader.iter();
    let mut checksum = 0.0;
    for batch in iter.by_ref().take(from) {
        checksum += batch[0][0];
    }
    let region = Region::new(GLOBAL);
    for batch in iter.by_ref().take(to - from) {
        checksum += batch[0][0];
    }
    let allocations = region.change().allocations;
    iter.for_each(drop);
    assert!(checksum > 0.0);
    allocations
}

/// Executors whose consumer never lends its thread: each epoch is one round of the executor.
/// (When a consumer helps, producers may leave batches for another round, and starting a
/// round may allocate inside the executor: per round, not per observation.)
fn one_round(name: &str) -> bool {
    name == "SequentialEx" || name.ends_with("background")
}

#[test]
fn no_allocation_per_item_after_warm_up() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for (name, executor) in common::executors()
        .iter()
        .filter(|(name, _)| one_round(name))
    {
        for batch_size in [1, 8] {
            let loader = Loader::new(Floats)
                .executor(Arc::clone(executor))
                .batch_size(batch_size)
                .buffer(4)
                .reuse_buffers(true);
            let batches = loader.len();
            let allocations = allocations_in_steady_state(&loader, batches / 4, batches * 3 / 4);
            let items = (batches / 2) * batch_size;
            let what = format!(
                "{name}, batch_size {batch_size}: {allocations} allocations for {items} items"
            );
            if *name == "SequentialEx" {
                assert_eq!(allocations, 0, "{what}");
            } else {
                // Pool threads allocate now and then on their own account (a few times per
                // epoch, in bursts unrelated to the observations); never per observation.
                assert!(allocations * 20 <= items, "{what}");
            }
        }
    }
}

#[test]
fn without_reuse_every_observation_allocates() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let loader = Loader::new(Floats)
        .executor(foldex_seq::SequentialEx)
        .batch_size(8)
        .buffer(4);
    let mut iter = loader.iter();
    iter.by_ref().take(100).for_each(drop);
    let region = Region::new(GLOBAL);
    iter.by_ref().take(100).for_each(drop);
    let allocations = region.change().allocations;
    assert!(
        allocations >= 800,
        "{allocations} allocations for 800 observations"
    );
}
