//! Always-on diagnostics: the figures add up, and the verdict names the bottleneck.

mod common;

use foldex_dataset::from_fn;
use foldex_loader::{stats::Verdict, Loader};
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

#[test]
fn counts_add_up_with_every_executor() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            let loader = Loader::new(from_fn(250, |i| i), Arc::clone(executor))
                .batch_size(10)
                .buffer(3);
            let mut iter = loader.iter();
            iter.by_ref().for_each(drop);
            let stats = iter.stats();
            assert_eq!(
                (stats.items, stats.batches, stats.buffer),
                (250, 25, 3),
                "{name}"
            );
            assert_eq!(
                stats.workers.iter().map(|w| w.items).sum::<u64>(),
                250,
                "{name}"
            );
            assert!(
                !stats.workers.is_empty() && stats.workers.iter().all(|w| !w.thread.is_empty())
            );
            // Above 3 only by batches a helping consumer made itself and put beside the ring.
            assert!(
                stats.mean_occupancy >= 1.0 && stats.mean_occupancy <= 8.0,
                "{name}: {stats:?}"
            );
            assert!((0.0..=1.0).contains(&stats.full), "{name}");
            assert!(stats.consumer_waited <= stats.wall, "{name}");
            assert!(stats.items_per_sec() > 0.0);
        });
    }
}

#[test]
fn slow_items_make_an_input_bound_epoch() {
    let loader = Loader::new(
        from_fn(40, |i| {
            thread::sleep(Duration::from_millis(2));
            i
        }),
        foldex_taskpool::TaskPoolEx::new()
            .ntasks(2)
            .background(true),
    );
    let mut iter = loader.iter();
    iter.by_ref().for_each(drop);
    let stats = iter.stats();
    assert_eq!(stats.verdict(), Verdict::InputBound, "{stats}");
    assert!(
        stats
            .to_string()
            .contains("input-bound: the consumer waited"),
        "{stats}"
    );
    let busy: Duration = stats.workers.iter().map(|w| w.busy).sum();
    assert!(
        busy >= Duration::from_millis(80),
        "40 items of 2 ms: {busy:?}"
    );
}

#[test]
fn a_slow_consumer_makes_a_consumer_bound_epoch() {
    let loader = Loader::new(
        from_fn(60, |i| i),
        foldex_threaded::ThreadedEx::new().threads(2),
    )
    .buffer(4);
    let mut iter = loader.iter();
    for _ in iter.by_ref() {
        thread::sleep(Duration::from_millis(2));
    }
    let stats = iter.stats();
    assert_eq!(stats.verdict(), Verdict::ConsumerBound, "{stats}");
    assert!(stats.mean_occupancy >= 2.0, "{stats:?}");
    assert!(
        stats.producers_blocked > Duration::from_millis(20),
        "{stats:?}"
    );
    assert!(
        stats
            .to_string()
            .contains("consumer-bound: the buffer was full"),
        "{stats}"
    );
}

#[test]
fn stats_of_an_epoch_in_progress_and_of_a_new_one() {
    let loader = Loader::new(from_fn(100, |i| i), ThreadedEx::new().basesize(1)).batch_size(10);
    let mut iter = loader.iter();
    iter.by_ref().take(3).for_each(drop);
    assert_eq!(iter.stats().batches, 3);
    drop(iter);
    assert_eq!(loader.iter().stats().batches, 0, "each epoch counts afresh");
}

/// Every 20th item is slow, the rest free, and the consumer takes 100 µs a batch: with the
/// default buffer of 4 (2 workers), cheap batches fill it while the consumer waits for a slow
/// one. The buffer grows from one epoch to the next, and says so; a set buffer never does.
#[test]
fn a_bursty_epoch_grows_the_default_buffer_and_the_stats_say_why() {
    use foldex_loader::stats::BufferOrigin;
    let bursty = || {
        from_fn(400, |i| {
            if i % 20 == 0 {
                thread::sleep(Duration::from_millis(4));
            }
            i
        })
    };
    let epoch = |loader: &Loader<_, _>| {
        let mut iter = loader.iter();
        for batch in iter.by_ref() {
            std::hint::black_box(batch);
            thread::sleep(Duration::from_micros(100));
        }
        iter.stats()
    };
    let executor = || foldex_threaded::ThreadedEx::new().threads(2).basesize(1);
    watchdog("a bursty epoch", || {
        let tuned = Loader::new(bursty(), executor()).unbatched();
        assert_eq!(tuned.buffer_size(), 4);
        let first = epoch(&tuned);
        assert_eq!(
            (first.buffer, first.buffer_origin),
            (4, BufferOrigin::Default)
        );
        let later: Vec<_> = (0..3).map(|_| epoch(&tuned)).collect();
        let last = later.last().expect("three epochs");
        assert!(
            last.buffer > 4 && last.buffer_origin == (BufferOrigin::Grown { from: 4 }),
            "first {first}; then {:?}",
            later.iter().map(|s| s.to_string()).collect::<Vec<_>>()
        );
        assert!(last.to_string().contains("buffer grown to"), "{last}");
        assert!(
            tuned.buffer_size() >= last.buffer,
            "the next epoch keeps it"
        );

        let set = Loader::new(bursty(), executor()).buffer(4).unbatched();
        for _ in 0..3 {
            let stats = epoch(&set);
            assert_eq!((stats.buffer, stats.buffer_origin), (4, BufferOrigin::Set));
        }
    });
}
