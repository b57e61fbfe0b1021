//! Buffer reuse: guards that hand their buffers back when dropped, with every executor.

mod common;

use foldex_dataset::{collate::in_place, from_fn, Dataset};
use foldex_loader::Loader;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::collections::HashSet;
use std::sync::Arc;

/// Observation `i` is 16 floats equal to `i`; `get_into` refills the caller's vector.
struct Floats(usize);

impl Dataset for Floats {
    type Item = Vec<f32>;
    fn len(&self) -> usize {
        self.0
    }
    fn get(&self, index: usize) -> Vec<f32> {
        vec![index as f32; 16]
    }
    fn get_into(&self, index: usize, buf: &mut Vec<f32>) {
        buf.clear();
        buf.resize(16, index as f32);
    }
}

#[test]
fn guards_deliver_every_batch_with_every_executor() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            for ordered in [true, false] {
                let loader = Loader::new(Floats(203), Arc::clone(executor))
                    .batch_size(4)
                    .buffer(3)
                    .shuffle(5)
                    .ordered(ordered)
                    .reuse_buffers(true);
                for epoch in 0..2 {
                    let mut seen = Vec::new();
                    for batch in &loader {
                        for item in batch.iter() {
                            assert_eq!(item.len(), 16, "{name}");
                            assert!(item.iter().all(|&x| x == item[0]), "{name}");
                            seen.push(item[0] as usize);
                        }
                    }
                    if ordered {
                        assert_eq!(
                            seen,
                            loader.epoch_order(epoch).iter().collect::<Vec<_>>(),
                            "{name}"
                        );
                    }
                    seen.sort_unstable();
                    assert_eq!(
                        seen,
                        (0..203).collect::<Vec<_>>(),
                        "{name} ordered={ordered}"
                    );
                }
            }
        });
    }
}

#[test]
fn collate_in_place_reuses_the_batch_buffer() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            // A buffer well below the 10 batches, whatever the executor's workers: buffers come
            // back only once batches beyond the buffer are made.
            let loader = Loader::new(Floats(100), Arc::clone(executor))
                .buffer(4)
                .batch_size(10)
                .collate(in_place(|items: &[Vec<f32>], out: &mut Vec<f32>| {
                    out.clear();
                    for item in items {
                        out.extend_from_slice(item);
                    }
                }))
                .reuse_buffers(true);
            let mut pointers = HashSet::new();
            let mut total = 0.0;
            for batch in &loader {
                assert_eq!(batch.len(), 160, "{name}");
                pointers.insert(batch.as_ptr() as usize);
                total += batch.iter().sum::<f32>();
            }
            assert_eq!(total, 16.0 * (0..100).sum::<usize>() as f32, "{name}");
            assert!(
                pointers.len() < 10,
                "{name}: {} distinct buffers for 10 batches",
                pointers.len()
            );
            // Without reuse the same collate works too, allocating per batch.
            let plain = Loader::new(Floats(20), ThreadedEx::new().basesize(1))
                .batch_size(10)
                .collate(in_place(|items: &[Vec<f32>], out: &mut Vec<f32>| {
                    out.extend(items.iter().map(|v| v[0]))
                }));
            assert_eq!(
                plain.iter().map(|b| b.len()).collect::<Vec<_>>(),
                vec![10, 10]
            );
        });
    }
}

#[test]
fn a_held_guard_is_never_overwritten() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            let loader = Loader::new(Floats(400), Arc::clone(executor))
                .batch_size(2)
                .buffer(2)
                .reuse_buffers(true);
            let mut iter = loader.iter();
            let first = iter.next().unwrap();
            let kept: Vec<Vec<f32>> = first.to_vec();
            // Keep it while the rest of the epoch flows through the pool.
            let rest = iter.by_ref().count();
            assert_eq!(rest, 199, "{name}");
            assert_eq!(*first, kept, "{name}: a held batch changed");
            assert_eq!(first[0][0], 0.0, "{name}");
        });
    }
}

#[test]
fn holding_every_guard_grows_the_ring_instead_of_hanging() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            let loader = Loader::new(Floats(60), Arc::clone(executor))
                .batch_size(3)
                .buffer(1)
                .reuse_buffers(true);
            let all: Vec<_> = loader.iter().collect();
            assert_eq!(all.len(), 20, "{name}");
            let mut seen: Vec<usize> = all
                .iter()
                .flat_map(|b| b.iter().map(|v| v[0] as usize))
                .collect();
            seen.sort_unstable();
            assert_eq!(
                seen,
                (0..60).collect::<Vec<_>>(),
                "{name}: every batch distinct"
            );
        });
    }
}

#[test]
fn a_dataset_without_get_into_still_works_with_reuse() {
    let loader = Loader::new(from_fn(50, |i| vec![i; 3]), ThreadedEx::new().basesize(1))
        .batch_size(5)
        .reuse_buffers(true);
    let sums: Vec<usize> = loader
        .iter()
        .map(|b| b.iter().map(|v| v[0]).sum())
        .collect();
    assert_eq!(
        sums,
        (0..10)
            .map(|k| (5 * k..5 * k + 5).sum())
            .collect::<Vec<_>>()
    );
}

#[test]
fn dropping_an_epoch_early_with_guards_alive_is_clean() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            let loader = Loader::new(Floats(500), Arc::clone(executor))
                .batch_size(2)
                .reuse_buffers(true);
            let mut iter = loader.iter();
            let kept = iter.next().unwrap();
            drop(iter);
            assert_eq!(kept[1][0], 1.0, "{name}: a guard outlives its epoch");
            drop(kept);
            assert_eq!(loader.iter().count(), 250, "{name}: the next epoch works");
        });
    }
}
