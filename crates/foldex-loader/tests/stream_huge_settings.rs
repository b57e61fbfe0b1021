//! Every setting of the stream loader at 0, 1, 2^40 and `usize::MAX` (retries at `u32::MAX`,
//! seeds at `u64::MAX`): each delivers every item of the stream once, or is refused with an
//! error that names the setting. None hangs, aborts, or ends the epoch early as if the stream
//! had ended.

use foldex_loader::{StreamLoader, MAX_BUFFER};
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::panic::{catch_unwind, AssertUnwindSafe};

const SHARDS: usize = 6;
const PER_SHARD: usize = 500;
const HUGE: [usize; 2] = [1 << 40, usize::MAX];

/// Six shards of 500 items: shard `s` holds `s * 500..(s + 1) * 500`.
fn loader() -> StreamLoader<usize, usize> {
    StreamLoader::from_shards(
        (0..SHARDS).collect(),
        |&s: &usize| s * PER_SHARD..(s + 1) * PER_SHARD,
        |&x: &usize| x,
        ThreadedEx::new().basesize(1),
    )
}

/// Runs one epoch of `l` and checks that it delivers every item of its shards once, in at most
/// `batch`-item batches.
fn every_item_once(what: &str, l: &StreamLoader<usize, usize>, batch: usize) {
    let mut want: Vec<usize> = l
        .shards()
        .into_iter()
        .flat_map(|s| s * PER_SHARD..(s + 1) * PER_SHARD)
        .collect();
    let mut epoch = l.iter();
    let mut got = Vec::new();
    let delivered = catch_unwind(AssertUnwindSafe(|| {
        for b in epoch.by_ref() {
            assert!(
                !b.is_empty() && b.len() <= batch,
                "{what}: a batch of {}",
                b.len()
            );
            got.extend(b);
        }
    }));
    if let Err(payload) = delivered {
        panic!(
            "{what}: the epoch panicked after {} items: {}",
            got.len(),
            foldex_core::exec::message(&*payload)
        );
    }
    assert_eq!(epoch.failed_position(), None, "{what}");
    assert_eq!(epoch.stats().items, want.len() as u64, "{what}");
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got.len(), want.len(), "{what}: items lost or repeated");
    assert_eq!(got, want, "{what}");
}

/// The message of the panic `f` raises.
fn refused(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("refused");
    foldex_core::exec::message(&*payload)
}

#[test]
fn batch_sizes_of_one_and_beyond_the_stream_deliver_every_item_once() {
    watchdog("stream batch_size", || {
        every_item_once("batch_size 1", &loader().batch_size(1), 1);
        for huge in HUGE {
            let what = format!("batch_size {huge}");
            every_item_once(&what, &loader().batch_size(huge), huge);
            // The whole stream is one short batch: without partial batches, nothing.
            let dropped = loader().batch_size(huge).partial(false);
            assert_eq!(dropped.iter().count(), 0, "{what}, partial(false)");
        }
        assert_eq!(
            refused(|| drop(loader().batch_size(0))),
            "batch_size must be at least 1, got 0"
        );
    });
}

#[test]
fn shuffle_buffers_of_one_and_beyond_the_stream_deliver_every_item_once() {
    watchdog("stream shuffle_buffer", || {
        let unshuffled: Vec<usize> = loader().iter().flatten().collect();
        let one: Vec<usize> = loader().shuffle_buffer(1, 3).iter().flatten().collect();
        assert_eq!(
            one, unshuffled,
            "a buffer of one item leaves the order alone"
        );
        for huge in HUGE {
            let what = format!("shuffle_buffer {huge}");
            every_item_once(&what, &loader().shuffle_buffer(huge, 3).batch_size(7), 7);
        }
        assert_eq!(
            refused(|| drop(loader().shuffle_buffer(0, 3))),
            "shuffle_buffer must be at least 1, got 0"
        );
    });
}

#[test]
fn buffers_windows_and_interleaving_of_one_and_beyond_the_stream_deliver_every_item_once() {
    watchdog("stream buffer, window, interleave", || {
        for size in [1, HUGE[0], HUGE[1]] {
            for ordered in [true, false] {
                let l = loader().batch_size(5).ordered(ordered);
                let what = format!("buffer {size}, ordered {ordered}");
                every_item_once(&what, &l.buffer(size), 5);
            }
            let what = format!("window {size}");
            every_item_once(&what, &loader().batch_size(5).window(size), 5);
            let what = format!("interleave {size}");
            every_item_once(&what, &loader().batch_size(5).interleave(size), 5);
        }
        assert_eq!(
            refused(|| drop(loader().buffer(0))),
            "buffer must be at least 1, got 0"
        );
        assert_eq!(
            refused(|| drop(loader().window(0))),
            "window must be at least 1, got 0"
        );
        assert_eq!(
            refused(|| drop(loader().interleave(0))),
            "interleave must be at least 1, got 0"
        );
    });
}

#[test]
fn shards_of_huge_worlds_and_seeds_at_their_limits_deliver_every_item_once() {
    watchdog("stream shard, seed", || {
        for world in [1, HUGE[0], HUGE[1]] {
            for rank in [0, 1, world - 1] {
                if rank >= world {
                    continue;
                }
                let l = loader().batch_size(4).shard(rank, world);
                let expected: Vec<usize> = (rank..SHARDS).step_by(world).collect();
                assert_eq!(l.shards(), expected, "rank {rank} of {world}");
                every_item_once(&format!("shard {rank} of {world}"), &l, 4);
            }
            let message = refused(|| drop(loader().shard(world, world)));
            assert!(message.contains("rank must be below world"), "{message}");
        }
        let message = refused(|| drop(loader().shard(0, 0)));
        assert!(message.contains("shard: world"), "{message}");
        for seed in [0, 1, u64::MAX] {
            let l = loader().batch_size(3).shuffle_buffer(64, seed).seed(seed);
            every_item_once(&format!("seed {seed}"), &l, 3);
        }
    });
}

#[test]
fn every_setting_at_usize_max_at_once_delivers_every_item_once() {
    watchdog("stream: every setting at usize::MAX", || {
        for ordered in [true, false] {
            let l = loader()
                .batch_size(usize::MAX)
                .buffer(usize::MAX)
                .window(usize::MAX)
                .interleave(usize::MAX)
                .shuffle_buffer(usize::MAX, u64::MAX)
                .seed(u64::MAX)
                .ordered(ordered);
            for _epoch in 0..2 {
                every_item_once(&format!("ordered {ordered}"), &l, usize::MAX);
            }
        }
    });
}

#[test]
fn a_buffer_beyond_max_buffer_with_windows_beyond_it_delivers_every_item_once() {
    watchdog(
        "stream buffer 2^40, windows beyond MAX_BUFFER batches",
        || {
            // Windows of 1, 4, 16, ... batches: the tenth holds 4^9 > MAX_BUFFER batches.
            let len = 400_000;
            assert!(len > 4usize.pow(9) && 4usize.pow(9) > MAX_BUFFER);
            let one_shard = || {
                StreamLoader::new(
                    move || 0..len,
                    |&x: &usize| x,
                    ThreadedEx::new().basesize(1),
                )
                .window(usize::MAX)
            };
            for huge in HUGE {
                let l = one_shard().buffer(huge);
                let mut epoch = l.iter();
                let got: Vec<usize> = epoch.by_ref().flatten().collect();
                assert_eq!(got, (0..len).collect::<Vec<_>>(), "buffer {huge}");
                assert!(epoch.stats().buffer <= MAX_BUFFER, "the buffer in use");
            }
        },
    );
}

#[test]
fn retries_of_zero_one_and_u32_max_deliver_every_item_once() {
    use foldex_loader::ErrorPolicy;
    use std::collections::HashSet;
    use std::sync::Mutex;
    watchdog("stream errors(retry)", || {
        for times in [0, 1, u32::MAX] {
            // Every item fails its first load, then loads.
            let failed_once = Mutex::new(HashSet::new());
            let l = StreamLoader::new(
                || 0..3000usize,
                move |&x: &usize| {
                    if failed_once.lock().unwrap().insert(x) {
                        Err(format!("{x} is not ready"))
                    } else {
                        Ok(x)
                    }
                },
                ThreadedEx::new().basesize(1),
            )
            .batch_size(7);
            let l = l.errors(ErrorPolicy::retry(times).then_skip());
            let mut epoch = l.iter();
            let got: Vec<usize> = epoch.by_ref().flatten().collect();
            let stats = epoch.stats();
            if times == 0 {
                assert!(got.is_empty(), "no retry: every item skipped");
                assert_eq!(stats.skipped.len(), 3000);
            } else {
                assert_eq!(got, (0..3000).collect::<Vec<_>>(), "retry({times})");
                assert_eq!((stats.skipped.len(), stats.retries), (0, 3000));
            }
        }
    });
}
