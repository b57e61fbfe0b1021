//! The stream loader: every item of the stream exactly once, on every executor, for any
//! length, batch size, buffer, window, shuffle buffer and early drop; seeded order; shards,
//! interleaving; panics with the item's position; bad settings; a stream that blocks.

mod common;

use common::executors;
use foldex_core::Executor;
use foldex_loader::StreamLoader;
use foldex_testkit::streams::stream_lengths;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Duration;

fn loader(len: usize) -> StreamLoader<usize, usize> {
    loader_on(len, ThreadedEx::new().basesize(1))
}

fn loader_on(len: usize, executor: impl Executor + 'static) -> StreamLoader<usize, usize> {
    StreamLoader::new(move || 0..len, |&x: &usize| x, executor)
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    })
}

#[test]
fn every_item_exactly_once_on_every_executor() {
    let cases = (
        stream_lengths(),
        0..executors().len(),
        1usize..=40,
        prop::option::of(1usize..=8),
        1usize..=6,
        prop::option::of(1usize..=300),
        any::<bool>(),
        prop::option::of(0usize..=20),
    );
    watchdog("stream loader: exactly once", || {
        runner()
            .run(
                &cases,
                |(len, ex, batch, buffer, window, shuffle, ordered, drop_after)| {
                    let (name, executor) = &executors()[ex];
                    let mut l = loader_on(len, Arc::clone(executor))
                        .batch_size(batch)
                        .window(window)
                        .ordered(ordered);
                    if let Some(buffer) = buffer {
                        l = l.buffer(buffer);
                    }
                    if let Some(size) = shuffle {
                        l = l.shuffle_buffer(size, 7);
                    }
                    let mut got: Vec<usize> = Vec::new();
                    let mut sizes = Vec::new();
                    let mut epoch = l.iter();
                    for b in epoch.by_ref().take(drop_after.unwrap_or(usize::MAX)) {
                        sizes.push(b.len());
                        got.extend(b);
                    }
                    if drop_after.is_none() {
                        prop_assert_eq!(epoch.stats().items, len as u64, "{}", name);
                    }
                    drop(epoch);
                    let whole = drop_after.is_none_or(|k| k * batch >= len);
                    if whole {
                        prop_assert_eq!(got.len(), len, "{}", name);
                    }
                    // Every batch full but the stream's last, which unordered delivery may
                    // hand out before batches of its window that finish later.
                    prop_assert!(sizes.iter().all(|&s| (1..=batch).contains(&s)));
                    let short = sizes.iter().filter(|&&s| s < batch).count();
                    prop_assert!(short <= 1, "{}: {:?}", name, sizes);
                    if let (true, Some((_, full))) = (ordered, sizes.split_last()) {
                        prop_assert!(full.iter().all(|&s| s == batch), "{}: {:?}", name, sizes);
                    }
                    if ordered && shuffle.is_none() {
                        prop_assert_eq!(&got, &(0..got.len()).collect::<Vec<_>>(), "{}", name);
                    }
                    got.sort_unstable();
                    got.dedup();
                    prop_assert!(got.iter().all(|&x| x < len));
                    if whole {
                        prop_assert_eq!(got.len(), len, "{}: an item lost or repeated", name);
                    }
                    // The loader starts another epoch afterwards.
                    prop_assert_eq!(l.iter().map(|b| b.len()).sum::<usize>(), len);
                    Ok(())
                },
            )
            .unwrap();
    });
}

#[test]
fn the_shuffled_order_is_a_function_of_seed_epoch_and_buffer_size() {
    let order = |seed, size, epochs: usize| -> Vec<Vec<usize>> {
        let l = loader_on(1000, Arc::clone(&executors()[1].1))
            .shuffle_buffer(size, seed)
            .batch_size(10);
        (0..epochs).map(|_| l.iter().flatten().collect()).collect()
    };
    let a = order(1, 64, 2);
    assert_eq!(a, order(1, 64, 2), "the same seed gives the same epochs");
    assert_ne!(a[0], a[1], "each epoch is shuffled anew");
    assert_ne!(a[0], order(2, 64, 1)[0], "another seed, another order");
    assert_ne!(
        a[0],
        order(1, 65, 1)[0],
        "another buffer size, another order"
    );
    assert_ne!(a[0], (0..1000).collect::<Vec<_>>());
    // An item leaves the buffer only once the buffer has reached it.
    assert!(a[0].iter().enumerate().all(|(i, &x)| x < i + 64));
}

#[test]
fn shards_are_dealt_to_ranks_and_interleaved() {
    let files: Vec<Vec<u32>> = (0..7u32)
        .map(|f| (0..f * 3 + 1).map(|i| f * 100 + i).collect())
        .collect();
    let all: usize = files.iter().map(Vec::len).sum();
    let mut seen = Vec::new();
    for rank in 0..3 {
        let l = StreamLoader::from_shards(
            files.clone(),
            |f| f.clone(),
            |&x: &u32| x,
            ThreadedEx::new().basesize(1),
        )
        .interleave(2)
        .shard(rank, 3)
        .batch_size(4);
        assert_eq!(l.shards(), (rank..7).step_by(3).collect::<Vec<_>>());
        let got: Vec<u32> = l.iter().flatten().collect();
        // Interleaved: the rank's first two shards alternate from the start.
        let first = l.shards()[0] as u32;
        assert_eq!(got[0], first * 100);
        if l.shards().len() > 1 {
            assert_eq!(got[1], l.shards()[1] as u32 * 100);
        }
        seen.extend(got);
    }
    seen.sort_unstable();
    assert_eq!(seen.len(), all);
    let mut want: Vec<u32> = files.concat();
    want.sort_unstable();
    assert_eq!(seen, want, "the ranks together read every shard once");
}

#[derive(Debug, PartialEq)]
struct Boom(usize);

#[test]
fn a_panic_reaches_the_consumer_with_its_position_after_the_items_before_it() {
    watchdog("stream loader panics", || {
        for (name, ex) in executors() {
            // In compute.
            let l = StreamLoader::new(
                || 0..500usize,
                |&x: &usize| {
                    if x == 321 {
                        std::panic::panic_any(Boom(x));
                    }
                    x
                },
                Arc::clone(ex),
            )
            .batch_size(8);
            let mut epoch = l.iter();
            let mut before = 0;
            let caught = catch_unwind(AssertUnwindSafe(|| {
                for b in epoch.by_ref() {
                    before += b.len();
                }
            }));
            let payload = caught.expect_err("the panic arrives");
            assert_eq!(payload.downcast_ref::<Boom>(), Some(&Boom(321)), "{name}");
            assert_eq!(epoch.failed_position(), Some(321), "{name}");
            // The 40 batches before the one that holds 321 arrive first.
            assert_eq!(before, 320, "{name}");
            // In the stream itself: the whole batches before it arrive first; 120..123, the
            // start of the failing item's batch, are not delivered as a short batch.
            let l = StreamLoader::new(
                || {
                    (0..500usize).inspect(|&x| {
                        if x == 123 {
                            std::panic::panic_any(Boom(x));
                        }
                    })
                },
                |&x: &usize| x,
                Arc::clone(ex),
            )
            .batch_size(8);
            let mut epoch = l.iter();
            let mut got = Vec::new();
            let caught = catch_unwind(AssertUnwindSafe(|| {
                for b in epoch.by_ref() {
                    got.extend(b);
                }
            }));
            let payload = caught.expect_err("the panic arrives");
            assert_eq!(payload.downcast_ref::<Boom>(), Some(&Boom(123)), "{name}");
            assert_eq!(epoch.failed_position(), Some(123), "{name}");
            assert_eq!(got, (0..120).collect::<Vec<_>>(), "{name}");
        }
    });
}

#[test]
fn bad_settings_are_refused_by_name() {
    let refused = |f: fn()| {
        let payload = catch_unwind(f).expect_err("refused");
        payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(
        refused(|| drop(loader(3).shuffle_buffer(0, 1))),
        "shuffle_buffer must be at least 1, got 0"
    );
    assert_eq!(
        refused(|| drop(loader(3).batch_size(0))),
        "batch_size must be at least 1, got 0"
    );
    assert_eq!(
        refused(|| drop(loader(3).interleave(0))),
        "interleave must be at least 1, got 0"
    );
    assert_eq!(
        refused(|| drop(loader(3).window(0))),
        "window must be at least 1, got 0"
    );
    assert!(refused(|| drop(loader(3).shard(3, 3))).contains("rank must be below world"));
    // An empty stream, and a rank with no shard, give empty epochs.
    assert_eq!(loader(0).iter().count(), 0);
    let none = StreamLoader::from_shards(
        vec![vec![1u8]],
        |f| f.clone(),
        |&x: &u8| x,
        ThreadedEx::new().basesize(1),
    )
    .shard(1, 2);
    assert_eq!(none.iter().count(), 0);
}

#[test]
fn dropping_an_epoch_whose_stream_blocks_forever_returns() {
    watchdog("a blocked stream's epoch is dropped", || {
        let (send, receive) = std::sync::mpsc::channel::<usize>();
        for i in 0..10 {
            send.send(i).unwrap();
        }
        let receive = std::sync::Mutex::new(Some(receive));
        // Ten items, then a `next()` that never returns: the sender stays alive.
        let l = StreamLoader::new(
            move || {
                receive
                    .lock()
                    .unwrap()
                    .take()
                    .expect("one epoch")
                    .into_iter()
            },
            |&x: &usize| x,
            ThreadedEx::new().basesize(1),
        )
        .batch_size(4);
        let mut epoch = l.iter();
        assert_eq!(epoch.next(), Some(vec![0, 1, 2, 3]));
        drop(epoch);
        std::thread::sleep(Duration::from_millis(10));
        drop(send);
    });
}

#[test]
fn errors_go_through_the_policy_with_their_stream_positions() {
    use foldex_dataset::ItemError;
    use foldex_loader::ErrorPolicy;
    let parse = |&x: &usize| {
        if x % 97 == 50 {
            Err(format!("record {x} is corrupt"))
        } else {
            Ok(x)
        }
    };
    let bad: Vec<usize> = (0..2000).filter(|x| x % 97 == 50).collect();
    for (name, ex) in executors() {
        // Skipped: the rest arrives, and the stats list each failure at its stream position,
        // across windows of growing size.
        let l = StreamLoader::new(|| 0..2000usize, parse, Arc::clone(ex))
            .errors(ErrorPolicy::skip())
            .batch_size(8);
        let mut epoch = l.iter();
        let got: Vec<usize> = epoch.by_ref().flatten().collect();
        let want: Vec<usize> = (0..2000).filter(|x| x % 97 != 50).collect();
        assert_eq!(got, want, "{name}");
        let skipped: Vec<usize> = epoch.stats().skipped.iter().map(|s| s.index).collect();
        assert_eq!(skipped, bad, "{name}");
        // Failing fast: the payload is the ItemError, its index the stream position.
        let l = StreamLoader::new(|| 0..2000usize, parse, Arc::clone(ex))
            .errors(ErrorPolicy::fail_fast())
            .batch_size(8);
        let mut epoch = l.iter();
        let caught = catch_unwind(AssertUnwindSafe(|| epoch.by_ref().count()));
        let payload = caught.expect_err("the first failure ends the epoch");
        let failed = payload
            .downcast_ref::<ItemError<String>>()
            .expect("an ItemError");
        assert_eq!(failed.index, bad[0], "{name}");
        assert_eq!(failed.error, "record 50 is corrupt");
    }
}

#[test]
fn an_early_drop_leaves_no_puller_behind() {
    use std::sync::atomic::{AtomicBool, Ordering};
    /// An endless stream that says when it is dropped.
    struct Endless(Arc<AtomicBool>, std::ops::RangeFrom<usize>);
    impl Iterator for Endless {
        type Item = usize;
        fn next(&mut self) -> Option<usize> {
            self.1.next()
        }
    }
    impl Drop for Endless {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    watchdog("the puller of a dropped epoch ends", || {
        for (name, ex) in executors() {
            let dropped = Arc::new(AtomicBool::new(false));
            let flag = Arc::clone(&dropped);
            let l = StreamLoader::new(
                move || Endless(Arc::clone(&flag), 0..),
                |&x: &usize| x,
                Arc::clone(ex),
            )
            .batch_size(4);
            let mut epoch = l.iter();
            assert_eq!(epoch.by_ref().take(10).flatten().count(), 40, "{name}");
            drop(epoch);
            // The puller drops the stream on its way out.
            while !dropped.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    });
}
