//! What an epoch delivers before a panic, on every executor: every batch wholly before the
//! failing item, in order, then the panic with its original payload; the batch that holds the
//! failing item is never delivered, not even as a short last batch. The same for a panic in the
//! dataset's `get`, in a stream loader's `compute` and in a shard's iterator.
#![cfg(panic = "unwind")]

mod common;

use foldex_dataset::from_fn;
use foldex_loader::{Loader, StreamLoader};
use foldex_testkit::watchdog;
use std::collections::BTreeSet;
use std::panic::{catch_unwind, panic_any, AssertUnwindSafe};
use std::sync::Arc;

#[derive(Debug, PartialEq)]
struct Boom(u64);

/// The batches of `0..end` cut into `batch` items each (`end` a multiple of `batch`).
fn batches_before(end: u64, batch: u64) -> Vec<Vec<u64>> {
    (0..end / batch)
        .map(|b| (b * batch..(b + 1) * batch).collect())
        .collect()
}

/// Consumes `epoch` until it panics; what arrived and the payload.
fn until_panic(epoch: &mut dyn Iterator<Item = Vec<u64>>) -> (Vec<Vec<u64>>, Boom) {
    let mut got = Vec::new();
    let caught = catch_unwind(AssertUnwindSafe(|| {
        for batch in epoch {
            got.push(batch);
        }
    }));
    let payload = caught.expect_err("the panic reaches next()");
    let boom = payload.downcast::<Boom>().expect("the original payload");
    (got, *boom)
}

#[test]
fn a_panic_in_compute_comes_after_every_batch_before_it() {
    watchdog(
        "stream loader: compute panics after the batches before it",
        || {
            for (name, executor) in common::executors() {
                for buffer in [1, 4, 64] {
                    let loader = StreamLoader::new(
                        || 0u64..100,
                        |&x: &u64| {
                            if x == 37 {
                                panic_any(Boom(x));
                            }
                            x
                        },
                        Arc::clone(executor),
                    )
                    .batch_size(5)
                    .buffer(buffer);
                    let mut epoch = loader.iter();
                    let (got, boom) = until_panic(&mut epoch);
                    assert_eq!(boom, Boom(37), "{name}");
                    assert_eq!(got, batches_before(35, 5), "{name}, buffer {buffer}");
                    assert_eq!(epoch.failed_position(), Some(37), "{name}");
                }
            }
        },
    );
}

#[test]
fn a_panic_in_get_comes_after_every_batch_before_it() {
    watchdog("loader: get panics after the batches before it", || {
        for (name, executor) in common::executors() {
            for (buffer, reuse) in [(1, false), (4, true), (64, false)] {
                let loader = Loader::new(
                    from_fn(100, |i| {
                        if i == 37 {
                            panic_any(Boom(37));
                        }
                        i as u64
                    }),
                    Arc::clone(executor),
                )
                .batch_size(5)
                .buffer(buffer);
                let (got, boom) = if reuse {
                    let loader = loader.reuse_buffers(true);
                    let mut epoch = loader.iter().map(|b| b.to_vec());
                    until_panic(&mut epoch)
                } else {
                    until_panic(&mut loader.iter())
                };
                assert_eq!(boom, Boom(37), "{name}");
                assert_eq!(got, batches_before(35, 5), "{name}, buffer {buffer}");
            }
        }
    });
}

#[test]
fn unordered_every_batch_before_the_panic_arrives_before_it() {
    watchdog("unordered: the batches before a panic", || {
        for (name, executor) in common::executors() {
            let loader = Loader::new(
                from_fn(100, |i| {
                    if i == 37 {
                        panic_any(Boom(37));
                    }
                    i as u64
                }),
                Arc::clone(executor),
            )
            .batch_size(5)
            .buffer(2)
            .ordered(false);
            let (got, boom) = until_panic(&mut loader.iter());
            assert_eq!(boom, Boom(37), "{name}");
            let got: BTreeSet<Vec<u64>> = got.into_iter().collect();
            let before: BTreeSet<Vec<u64>> = batches_before(35, 5).into_iter().collect();
            assert!(got.is_superset(&before), "{name}: {got:?}");
            assert!(!got.contains(&(35..40).collect::<Vec<_>>()), "{name}");
        }
    });
}

#[test]
fn a_panic_in_a_shard_iterator_comes_after_the_whole_batches_before_it() {
    watchdog("stream loader: a shard's next() panics", || {
        for (name, executor) in common::executors() {
            for partial in [true, false] {
                let loader = StreamLoader::from_shards(
                    vec![0u64..40, 40..100],
                    |shard| {
                        shard.clone().inspect(|&x| {
                            if x == 51 {
                                panic_any(Boom(x));
                            }
                        })
                    },
                    |&x: &u64| x,
                    Arc::clone(executor),
                )
                .batch_size(10)
                .partial(partial);
                let mut epoch = loader.iter();
                let (got, boom) = until_panic(&mut epoch);
                assert_eq!(boom, Boom(51), "{name}");
                assert_eq!(got, batches_before(50, 10), "{name}, partial {partial}");
                assert_eq!(epoch.failed_position(), Some(51), "{name}");
            }
        }
    });
}
