//! Buffer reuse allocates nothing per observation once warm: counted with an instrumented
//! global allocator (allocations on every thread of the process count).

use foldex_core::{Executor, ExecutorExt};
use foldex_dataset::{collate::in_place, Dataset};
use foldex_loader::Loader;
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_threaded::ThreadedEx;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::sync::Arc;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

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

/// Allocations while the consumer takes batches `from..to` of an epoch, after a warm-up epoch,
/// and how many observations the consumer's own thread loaded meanwhile (helping).
fn allocations_in_steady_state(
    loader: &Loader<Floats, foldex_dataset::VecCollate, foldex_loader::reuse::Reuse>,
    from: usize,
    to: usize,
) -> (usize, u64) {
    // Warm-up: hold a dozen batches at once, so that the pool makes more buffers than are
    // ever out at once afterwards, then let every buffer take its turns (first freed, first
    // reused) until the epoch ends. The pool lives as long as the loader.
    let mut warm_up = loader.iter();
    let held: Vec<_> = warm_up.by_ref().take(12).collect();
    drop(held);
    warm_up.for_each(drop);

    let mut iter = loader.iter();
    let mut checksum = 0.0;
    for batch in iter.by_ref().take(from) {
        checksum += batch[0][0];
    }
    let helped_before = on_this_thread(&iter.stats());
    let region = Region::new(GLOBAL);
    for batch in iter.by_ref().take(to - from) {
        checksum += batch[0][0];
    }
    let allocations = region.change().allocations;
    let helped = on_this_thread(&iter.stats()) - helped_before;
    iter.for_each(drop);
    assert!(checksum > 0.0);
    (allocations, helped)
}

/// Observations loaded on the calling thread (the consumer's help), from an epoch's stats.
fn on_this_thread(stats: &foldex_loader::Stats) -> u64 {
    let me = std::thread::current();
    let name = me.name().unwrap_or("?");
    stats
        .workers
        .iter()
        .filter(|w| w.thread == name)
        .map(|w| w.items)
        .sum()
}

/// Once warm, an epoch allocates nothing while the consumer takes batches, on every built-in
/// executor: the allocator counts every thread of the process, pool workers and a consumer that
/// lends its thread to the executor included.
/// The allocator counts the whole process, the test harness included: while one test measures,
/// the harness must not be reporting another one and starting the next. So this file has one
/// test, which runs the checks one after the other.
#[test]
fn allocations() {
    no_allocation_per_item_after_warm_up();
    no_allocation_per_item_with_an_in_place_collate();
    no_allocation_per_item_in_parcels();
    without_reuse_every_observation_allocates();
}

fn no_allocation_per_item_after_warm_up() {
    for (name, executor) in executors() {
        started(&*executor);
        for batch_size in [1, 8] {
            let loader = Loader::new(Floats, Arc::clone(&executor))
                .batch_size(batch_size)
                .buffer(4)
                .reuse_buffers(true);
            let batches = loader.len();
            let (allocations, helped) =
                allocations_in_steady_state(&loader, batches / 4, batches * 3 / 4);
            let items = (batches / 2) * batch_size;
            assert!(
                allocations <= per_round(name),
                "{name}, batch_size {batch_size}: {allocations} allocations for {items} items \
                 ({helped} loaded on the consumer's thread)"
            );
        }
    }
}

/// Allocations an executor may make in a measurement, none of them per observation. An epoch
/// runs as rounds of one fold each; the driver starts another round only when every turn of
/// the last returned with batches left, which timing decides. A `TaskPoolEx` fold boxes its
/// lanes, reusing a spare box of the calling thread when there is one, which the lanes' last
/// run may have left on another thread: a few rounds, a few allocations.
fn per_round(executor: &str) -> usize {
    if executor.starts_with("TaskPoolEx") {
        2
    } else {
        0
    }
}

/// Every built-in executor. Each is started (see [`started`]) only when its turn comes, so that
/// no other pool's threads are alive and idle during its measurement.
fn executors() -> Vec<(&'static str, Arc<dyn Executor>)> {
    vec![
        ("SequentialEx", Arc::new(SequentialEx)),
        (
            "ThreadedEx",
            Arc::new(ThreadedEx::new().threads(2).basesize(1)),
        ),
        (
            "TaskPoolEx background",
            Arc::new(TaskPoolEx::new().ntasks(2).background(true)),
        ),
        ("TaskPoolEx", Arc::new(TaskPoolEx::new().ntasks(2))),
    ]
}

/// Returns once two threads of `executor` have run an item at the same time: a pool worker's
/// first run allocates its own state, once, and that must not fall into a measurement. The
/// calling thread, the consumer, is registered with crossbeam's epoch collector too: its first
/// steal from a `ThreadedEx` worker's deque (when it helps) would do that, once, with an
/// allocation, whenever in the epoch that help comes.
fn started(executor: &dyn Executor) {
    drop(crossbeam_epoch::pin());
    if executor.workers() < 2 {
        return;
    }
    let both = std::sync::Barrier::new(2);
    executor.for_each(0..2usize, |_| {
        both.wait();
    });
}

fn no_allocation_per_item_with_an_in_place_collate() {
    let stack = in_place(|rows: &[Vec<f32>], out: &mut Vec<f32>| {
        out.clear();
        rows.iter().for_each(|r| out.extend_from_slice(r));
    });
    let loader = Loader::new(Floats, SequentialEx)
        .batch_size(16)
        .collate(stack)
        .reuse_buffers(true);
    let mut warm_up = loader.iter();
    let held: Vec<_> = warm_up.by_ref().take(12).collect();
    drop(held);
    warm_up.for_each(drop);
    let mut iter = loader.iter();
    iter.by_ref().take(50).for_each(drop);
    let region = Region::new(GLOBAL);
    let total: f32 = iter.by_ref().take(150).map(|batch| batch[0]).sum();
    let allocations = region.change().allocations;
    iter.for_each(drop);
    assert!(total > 0.0);
    assert_eq!(allocations, 0, "{allocations} allocations for 2400 items");
}

/// Cheap unbatched observations that need no memory of their own travel in parcels from the
/// second epoch on; the parcels are staged on the producers' stacks and land in the channel's
/// places, so the steady state allocates nothing either.
fn no_allocation_per_item_in_parcels() {
    for (name, executor) in executors() {
        started(&*executor);
        let loader = Loader::new(foldex_dataset::from_fn(40_000, |i| i as u64), executor)
            .buffer(16)
            .unbatched();
        loader.iter().for_each(drop);
        let mut iter = loader.iter();
        let parcel = iter.stats().parcel;
        let mut checksum = iter.by_ref().take(10_000).sum::<u64>();
        let region = Region::new(GLOBAL);
        checksum += iter.by_ref().take(20_000).sum::<u64>();
        let allocations = region.change().allocations;
        checksum += iter.sum::<u64>();
        assert_eq!(checksum, 40_000 * 39_999 / 2);
        assert!(parcel > 1, "{name}: cheap observations travel alone");
        assert!(
            allocations <= per_round(name),
            "{name}: {allocations} allocations for 20000 observations in parcels of {parcel}"
        );
    }
}

fn without_reuse_every_observation_allocates() {
    let loader = Loader::new(Floats, SequentialEx).batch_size(8).buffer(4);
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
