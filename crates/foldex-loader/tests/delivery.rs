//! Exactly-once delivery, order and shuffling, for every executor, buffer and batch size.

mod common;

use foldex_dataset::{from_fn, Dataset};
use foldex_loader::Loader;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::sync::Arc;

fn lengths() -> impl Strategy<Value = usize> {
    prop_oneof![Just(0usize), Just(1usize), 2usize..300]
}

#[derive(Debug, Clone)]
struct Case {
    len: usize,
    buffer: usize,
    batch_size: usize,
    ordered: bool,
    partial: bool,
    shuffle: Option<u64>,
}

fn cases() -> impl Strategy<Value = Case> {
    (
        lengths(),
        prop_oneof![Just(1usize), Just(4), Just(64)],
        prop_oneof![Just(1usize), Just(2), Just(3), Just(7), Just(32)],
        any::<bool>(),
        any::<bool>(),
        proptest::option::of(any::<u64>()),
    )
        .prop_map(
            |(len, buffer, batch_size, ordered, partial, shuffle)| Case {
                len,
                buffer,
                batch_size,
                ordered,
                partial,
                shuffle,
            },
        )
}

fn check(
    name: &str,
    executor: &Arc<dyn foldex_core::Executor>,
    case: &Case,
) -> Result<(), TestCaseError> {
    // Items of uneven cost, so that batches finish out of order.
    let data = from_fn(case.len, |i| {
        if i % 5 == 0 {
            std::thread::yield_now();
        }
        i
    });
    let mut loader = Loader::new(data, Arc::clone(executor))
        .buffer(case.buffer)
        .batch_size(case.batch_size)
        .partial(case.partial)
        .ordered(case.ordered);
    if let Some(seed) = case.shuffle {
        loader = loader.shuffle(seed);
    }
    for _epoch in 0..2 {
        let order: Vec<usize> = loader.epoch_order(loader.next_epoch()).iter().collect();
        let full = case.len / case.batch_size * case.batch_size;
        let expected: Vec<Vec<usize>> = order[..if case.partial { case.len } else { full }]
            .chunks(case.batch_size)
            .map(<[usize]>::to_vec)
            .collect();
        let mut iter = loader.iter();
        prop_assert_eq!(iter.len(), expected.len(), "{}", name);
        let mut got = Vec::new();
        while let Some(batch) = iter.next() {
            got.push(batch);
            prop_assert_eq!(iter.len(), expected.len() - got.len());
        }
        if case.ordered {
            prop_assert_eq!(
                &got,
                &expected,
                "{}: ordered output is the epoch order",
                name
            );
        } else {
            let mut sorted = got.clone();
            sorted.sort();
            let mut want = expected.clone();
            want.sort();
            prop_assert_eq!(sorted, want, "{}: every batch exactly once", name);
        }
    }
    Ok(())
}

#[test]
fn every_batch_exactly_once_and_in_order_when_ordered() {
    let cases_per_executor = foldex_testkit::env::cases("PROPTEST_CASES", 48);
    for (name, executor) in common::executors() {
        watchdog(name, || {
            let mut runner = TestRunner::new(Config {
                cases: cases_per_executor,
                failure_persistence: None,
                ..Config::default()
            });
            if let Err(e) = runner.run(&cases(), |case| check(name, executor, &case)) {
                panic!("{name}: {e}");
            }
        });
    }
}

#[test]
fn shuffle_is_reproducible_from_the_seed_and_differs_between_epochs() {
    let epoch_orders = |seed| {
        let loader = Loader::new(from_fn(200, |i| i), ThreadedEx::new().basesize(1))
            .shuffle(seed)
            .batch_size(8);
        (0..3)
            .map(|_| loader.iter().flatten().collect::<Vec<_>>())
            .collect::<Vec<_>>()
    };
    let a = epoch_orders(5);
    assert_eq!(a, epoch_orders(5));
    assert_ne!(a[0], a[1]);
    assert_ne!(a[1], a[2]);
    assert_ne!(a, epoch_orders(6));
    for epoch in &a {
        let mut sorted = epoch.clone();
        sorted.sort();
        assert_eq!(sorted, (0..200).collect::<Vec<_>>());
    }
}

#[test]
fn the_shuffled_order_is_the_same_on_every_executor() {
    let orders: Vec<Vec<usize>> = common::executors()
        .iter()
        .map(|(_, ex)| {
            let loader = Loader::new(from_fn(100, |i| i), Arc::clone(ex))
                .shuffle(99)
                .batch_size(3);
            loader.iter().flatten().collect()
        })
        .collect();
    assert!(orders.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn empty_and_single_item_datasets() {
    let empty = Loader::new(Vec::<u8>::new(), ThreadedEx::new().basesize(1));
    assert!(empty.is_empty());
    assert_eq!(empty.iter().count(), 0);
    assert_eq!(
        foldex_loader::eachobsparallel(Vec::<u8>::new(), foldex_seq::SequentialEx).count(),
        0
    );
    let one = Loader::new(vec![7u8], ThreadedEx::new().basesize(1)).batch_size(4);
    assert_eq!(one.iter().collect::<Vec<_>>(), vec![vec![7]]);
    assert_eq!(
        Loader::new(vec![7u8], ThreadedEx::new().basesize(1))
            .batch_size(4)
            .partial(false)
            .iter()
            .count(),
        0
    );
}

#[test]
fn eachobsparallel_yields_every_observation() {
    for (name, executor) in common::executors() {
        let data: Vec<String> = (0..500).map(|i| i.to_string()).collect();
        let mut got: Vec<String> =
            foldex_loader::eachobsparallel(data.clone().map(|s| s + "!"), Arc::clone(executor))
                .collect();
        got.sort();
        let mut want: Vec<String> = data.iter().map(|s| format!("{s}!")).collect();
        want.sort();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn collate_builds_batches_from_items_in_order() {
    let loader = Loader::new(from_fn(10, |i| i as u64), ThreadedEx::new().basesize(1))
        .batch_size(4)
        .collate(|xs: Vec<u64>| {
            xs.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        });
    assert_eq!(
        loader.iter().collect::<Vec<_>>(),
        vec!["0,1,2,3", "4,5,6,7", "8,9"]
    );
}

/// Cheap batches travel in parcels once an epoch has timed them, on every executor: the
/// first epoch sends them one by one, later ones several per place of the buffer (up to 8 with
/// a small buffer, `buffer / 8` with a larger one), with the same order and exactly-once
/// delivery, and a consumer that stops early leaves at most the buffer and a parcel per
/// producing thread computed after it.
#[test]
fn cheap_batches_travel_in_parcels_from_the_second_epoch() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            // Parcels of 8 (two places), and of 25 (a larger buffer keeps 8 places), 20 000
            // batches making 800 of them, with a last one of 1 for odd counts.
            for (buffer, ordered) in [(16, true), (16, false), (200, true), (200, false)] {
                let computed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
                let counter = Arc::clone(&computed);
                let loader = Loader::new(
                    from_fn(20_000, move |i| {
                        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        i
                    }),
                    Arc::clone(executor),
                )
                .buffer(buffer)
                .ordered(ordered)
                .shuffle(3)
                .unbatched();
                let mut parcels = Vec::new();
                for _ in 0..3 {
                    let order: Vec<usize> =
                        loader.epoch_order(loader.next_epoch()).iter().collect();
                    let mut iter = loader.iter();
                    let mut got: Vec<usize> = iter.by_ref().collect();
                    parcels.push(iter.stats().parcel);
                    if !ordered {
                        got.sort_unstable();
                    }
                    let want = if ordered {
                        order
                    } else {
                        (0..20_000).collect()
                    };
                    assert!(got == want, "{name}, ordered {ordered}: wrong delivery");
                }
                assert_eq!(
                    parcels[0], 1,
                    "{name}: the first epoch has nothing to go by"
                );
                assert!(
                    parcels[1..].iter().all(|&p| p > 1),
                    "{name}, ordered {ordered}: cheap batches travel alone: {parcels:?}"
                );
                let sized = if buffer > 64 { buffer / 8 } else { 8 };
                assert!(
                    parcels[1..].iter().all(|&p| p == sized),
                    "{name}, buffer {buffer}: parcels of {sized} expected, got {parcels:?}"
                );

                let mut iter = loader.iter();
                let parcel = iter.stats().parcel;
                let before = computed.load(std::sync::atomic::Ordering::Relaxed);
                assert_eq!(iter.by_ref().take(10).count(), 10);
                drop(iter);
                let after = computed.load(std::sync::atomic::Ordering::Relaxed) - before;
                let bound = 10 + loader.buffer_size() + (executor.workers() + 2) * parcel;
                assert!(after <= bound, "{name}: {after} computed, bound {bound}");
            }
        });
    }
}

/// Batches that cost more than a microsecond keep travelling one by one.
#[test]
fn expensive_batches_travel_alone() {
    let loader = Loader::new(
        from_fn(200, |i| {
            std::thread::sleep(std::time::Duration::from_micros(20));
            i
        }),
        ThreadedEx::new().basesize(1),
    )
    .buffer(16)
    .unbatched();
    for _ in 0..3 {
        let mut iter = loader.iter();
        iter.by_ref().for_each(drop);
        assert_eq!(iter.stats().parcel, 1);
    }
}
