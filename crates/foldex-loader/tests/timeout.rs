//! A stall is an error: with `timeout(d)`, a `get` (or a stream's `compute`, or a shard's
//! `next()`) that never returns makes `next()` raise a `Stalled` within `d` plus a poll,
//! naming what is still loading; the epoch then drops at once, and the loader goes on.
//!
//! Every load that blocks waits on a [`Gate`] that the test opens when it ends (a guard opens
//! it on the way out, failed assertions included), so that the stuck threads finish.

use foldex_core::{Executor, Job, Partial};
use foldex_dataset::{from_fn, ItemContext};
use foldex_loader::stats::{LoadAt, Verdict};
use foldex_loader::stream::SeekShard;
use foldex_loader::{Loader, Stalled, StreamLoader};
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The timeout of every loader here.
const D: Duration = Duration::from_millis(150);
/// How late past `D` a timeout or a drop may be and still pass: generous, for a debug build
/// on a busy machine. What it measures is printed.
const SLACK: Duration = Duration::from_millis(1500);

/// A door that loads wait at until the test opens it.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Gate {
    fn wait(&self) {
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }
}

/// Opens its gate when dropped.
struct Opens(Arc<Gate>);

impl Drop for Opens {
    fn drop(&mut self) {
        self.0.open();
    }
}

/// Fresh executors (a stuck thread of one case must not starve the next), each with more than
/// one thread where it has threads. `SequentialEx` loads on the epoch's driver thread, so the
/// consumer stays free there too.
fn executors() -> Vec<(&'static str, Arc<dyn Executor>)> {
    vec![
        ("SequentialEx", Arc::new(SequentialEx)),
        (
            "ThreadedEx 3 threads",
            Arc::new(ThreadedEx::new().threads(3).basesize(1)),
        ),
        (
            "TaskPoolEx 3 tasks",
            Arc::new(TaskPoolEx::new().ntasks(3).basesize(1)),
        ),
        (
            "TaskPoolEx 2 tasks background",
            Arc::new(TaskPoolEx::new().ntasks(2).basesize(1).background(true)),
        ),
    ]
}

/// A small seeded generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// Calls `next` until it fails, collecting what it gave; the error and how long the call
/// that returned it took.
fn until_stalled<B>(
    mut next: impl FnMut() -> Result<Option<B>, Stalled>,
) -> (Vec<B>, Stalled, Duration) {
    let mut got = Vec::new();
    loop {
        let asked = Instant::now();
        match next() {
            Ok(Some(batch)) => got.push(batch),
            Ok(None) => panic!("the epoch ended although a load never returns"),
            Err(stalled) => return (got, stalled, asked.elapsed()),
        }
    }
}

/// Random settings over every executor: the stuck index is named, the error comes within
/// `D` plus a poll (and not before `D`), ordered epochs deliver every batch before the stuck
/// one, the drop is prompt, and the stats say what happened.
#[test]
fn a_load_that_never_returns_is_named_within_the_timeout() {
    watchdog("a stalled epoch", || {
        let mut rng = Rng(35);
        let mut tooks = Vec::new();
        let mut parcels = 0;
        for case in 0..8 {
            for (name, executor) in executors() {
                let gate = Arc::new(Gate::default());
                let _opens = Opens(Arc::clone(&gate));
                let len = 6 + rng.below(30);
                let stuck = rng.below(len);
                let batch = 1 + rng.below(3);
                let buffer = 1 + rng.below(6);
                let ordered = rng.below(2) == 0;
                let shuffle = rng.below(2) == 0;
                // After a whole first epoch, cheap batches travel in parcels: the stuck load
                // is then one of a parcel's.
                let warm = rng.below(2) == 0;
                let stalls_in = u64::from(warm);
                let what = format!(
                    "case {case} on {name}: len {len}, stuck {stuck}, batch {batch}, buffer \
                     {buffer}, ordered {ordered}, shuffle {shuffle}, warm {warm}"
                );
                let door = Arc::clone(&gate);
                let data = from_fn(len, move |i| {
                    let epoch = ItemContext::current().map_or(0, |cx| cx.epoch());
                    if i == stuck && epoch == stalls_in {
                        door.wait();
                    }
                    i
                });
                let mut loader = Loader::new(data, Arc::clone(&executor))
                    .batch_size(batch)
                    .buffer(buffer)
                    .ordered(ordered)
                    .timeout(D);
                if shuffle {
                    loader = loader.shuffle(case as u64);
                }
                if warm {
                    let all: usize = loader.iter().map(|batch| batch.len()).sum();
                    assert_eq!(all, len, "{what}");
                }
                let order = loader.epoch_order(stalls_in);
                let mut epoch = loader.iter();
                let (got, stalled, took) = until_stalled(|| epoch.try_next());
                tooks.push(took);
                assert!(took >= D && took <= D + SLACK, "{what}: took {took:?}");
                assert_eq!(stalled.epoch, stalls_in, "{what}");
                assert_eq!(stalled.timeout, D, "{what}");
                assert_eq!(stalled.loading.len(), 1, "{what}: {stalled}");
                let load = stalled.loading[0];
                assert_eq!(load.at, LoadAt::Index(stuck), "{what}: {stalled}");
                assert!(load.loading_for <= took + SLACK, "{what}: {stalled}");
                assert!(
                    stalled
                        .to_string()
                        .contains(&format!("index {stuck} (for ")),
                    "{what}: {stalled}"
                );
                let got: Vec<usize> = got.into_iter().flatten().collect();
                assert!(!got.contains(&stuck), "{what}");
                if ordered {
                    // Every batch before the stuck one's parcel (its batch, unless batches
                    // travel in parcels: a parcel's batches are handed over together).
                    let parcel = epoch.stats().parcel;
                    let place = (0..len).position(|p| order.get(p) == stuck).unwrap();
                    let batches = place / batch / parcel * parcel;
                    let before: Vec<usize> = (0..batches * batch).map(|p| order.get(p)).collect();
                    assert_eq!(got, before, "{what}: parcels of {parcel}");
                }
                assert_eq!(epoch.try_next(), Ok(None), "{what}: the epoch is over");
                assert_eq!(epoch.stalled(), Some(&stalled), "{what}");
                let stats = epoch.stats();
                parcels += usize::from(stats.parcel > 1);
                assert_eq!(stats.verdict(), Verdict::Stalled, "{what}");
                assert_eq!(stats.stalled, stalled.loading, "{what}");
                assert_eq!(
                    stats.abandoned, 1,
                    "{what}: the stuck load was left running"
                );
                let line = stats.to_string();
                assert!(
                    line.contains("stalled: 1 load still loading")
                        && line.contains("1 load abandoned"),
                    "{what}: {line}"
                );
                let dropping = Instant::now();
                drop(epoch);
                let dropped = dropping.elapsed();
                assert!(dropped <= SLACK, "{what}: the drop took {dropped:?}");
            }
        }
        tooks.sort();
        eprintln!(
            "{} timed-out next() calls for a timeout of {D:?}: median {:?}, slowest {:?}; \
             {parcels} stalled epochs sent batches in parcels",
            tooks.len(),
            tooks[tooks.len() / 2],
            tooks[tooks.len() - 1]
        );
    });
}

/// `next()` panics with the `Stalled` as its payload; after the stuck load returns, the loader
/// runs whole epochs again on the same executor.
#[test]
fn next_panics_with_the_error_and_the_loader_goes_on() {
    watchdog("a stall through next()", || {
        for (name, executor) in executors() {
            let gate = Arc::new(Gate::default());
            let opens = Opens(Arc::clone(&gate));
            let blocked = Arc::new(AtomicBool::new(false));
            let (door, once) = (Arc::clone(&gate), Arc::clone(&blocked));
            // Index 4 blocks the first time only.
            let data = from_fn(12, move |i| {
                if i == 4 && !once.swap(true, Ordering::SeqCst) {
                    door.wait();
                }
                i
            });
            let loader = Loader::new(data, Arc::clone(&executor))
                .batch_size(2)
                .timeout(D);
            let mut epoch = loader.iter();
            let caught = panic::catch_unwind(AssertUnwindSafe(|| epoch.by_ref().count()));
            let payload = caught.expect_err("the stall reaches next()");
            let stalled = payload.downcast_ref::<Stalled>().expect("the payload");
            assert_eq!(stalled.loading[0].at, LoadAt::Index(4), "{name}");
            assert_eq!(epoch.next(), None, "{name}");
            drop(epoch);
            drop(opens);
            // Once the gate is open, the stuck thread returns to its executor.
            for _ in 0..3 {
                let all: Vec<usize> = loader.iter().flatten().collect();
                assert_eq!(all, (0..12).collect::<Vec<_>>(), "{name}");
            }
        }
    });
}

/// Runs one fold at a time, on the calling thread: a fold waits for the one before to return.
struct OneFoldAtATime(Mutex<()>);

impl Executor for OneFoldAtATime {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let _one = self.0.lock().unwrap_or_else(|e| e.into_inner());
        job.run(0..job.len())
    }
}

/// While the abandoned load is still stuck, a new epoch runs on what the executor has left:
/// every executor here completes it, even with one worker (the stuck load holds the abandoned
/// epoch's thread, not the pool); an executor that runs one fold at a time cannot start it,
/// so it stalls in turn, and its error names the load of the abandoned epoch.
#[test]
fn a_new_epoch_starts_while_the_abandoned_load_is_still_stuck() {
    watchdog("an epoch after a stalled one", || {
        let mut all: Vec<(&str, Arc<dyn Executor>, bool)> = executors()
            .into_iter()
            .map(|(name, executor)| (name, executor, false))
            .collect();
        all.push((
            "ThreadedEx 1 thread",
            Arc::new(ThreadedEx::new().threads(1).basesize(1)),
            false,
        ));
        all.push((
            "TaskPoolEx 1 task",
            Arc::new(TaskPoolEx::new().ntasks(1).basesize(1)),
            false,
        ));
        all.push((
            "one fold at a time",
            Arc::new(OneFoldAtATime(Mutex::new(()))),
            true,
        ));
        for (name, executor, stalls_again) in all {
            let gate = Arc::new(Gate::default());
            let opens = Opens(Arc::clone(&gate));
            let blocked = Arc::new(AtomicBool::new(false));
            let (door, once) = (Arc::clone(&gate), Arc::clone(&blocked));
            let data = from_fn(10, move |i| {
                if i == 7 && !once.swap(true, Ordering::SeqCst) {
                    door.wait();
                }
                i
            });
            let loader = Loader::new(data, Arc::clone(&executor)).timeout(D);
            let mut first = loader.iter();
            let (_, stalled, _) = until_stalled(|| first.try_next());
            assert_eq!(stalled.loading[0].at, LoadAt::Index(7), "{name}");
            drop(first);
            let mut second = loader.iter();
            let mut got = Vec::new();
            let outcome = loop {
                match second.try_next() {
                    Ok(Some(batch)) => got.extend(batch),
                    Ok(None) => break None,
                    Err(stalled) => break Some(stalled),
                }
            };
            match outcome {
                None => {
                    assert!(!stalls_again, "{name}");
                    assert_eq!(got, (0..10).collect::<Vec<_>>(), "{name}");
                }
                Some(stalled) => {
                    assert!(stalls_again, "{name}: {stalled}");
                    assert!(got.is_empty(), "{name}");
                    assert_eq!(stalled.epoch, 1);
                    assert_eq!(stalled.loading.len(), 1, "{stalled}");
                    assert_eq!(
                        (stalled.loading[0].at, stalled.loading[0].epoch),
                        (LoadAt::Index(7), 0)
                    );
                    let line = stalled.to_string();
                    assert!(
                        line.contains("index 7 (for ") && line.contains("of abandoned epoch 0"),
                        "{line}"
                    );
                }
            }
            drop(second);
            drop(opens);
            let third: Vec<usize> = loader.iter().flatten().collect();
            assert_eq!(
                third,
                (0..10).collect::<Vec<_>>(),
                "{name}: once the load returned"
            );
        }
    });
}

/// Items slower than a tenth of the timeout make an epoch many times longer than it: no
/// batch waits as long as `D`, so nothing trips, and nothing is abandoned.
#[test]
fn a_slow_epoch_that_keeps_delivering_does_not_trip() {
    watchdog("a slow epoch", || {
        for (name, executor) in executors() {
            let data = from_fn(24, |i| {
                std::thread::sleep(D / 8);
                i
            });
            let loader = Loader::new(data, Arc::clone(&executor))
                .batch_size(2)
                .timeout(D);
            let started = Instant::now();
            let mut epoch = loader.iter();
            let mut got = Vec::new();
            while let Some(batch) = epoch.try_next().unwrap_or_else(|s| panic!("{name}: {s}")) {
                got.extend(batch);
            }
            let took = started.elapsed();
            assert_eq!(got, (0..24).collect::<Vec<_>>(), "{name}");
            let stats = epoch.stats();
            assert!(stats.stalled.is_empty() && stats.abandoned == 0, "{name}");
            assert_ne!(stats.verdict(), Verdict::Stalled, "{name}");
            // On one thread the epoch lasts 24 loads of D / 8: three timeouts.
            if name == "SequentialEx" {
                assert!(took >= 3 * D, "{name}: {took:?}");
            }
        }
    });
}

/// A drop that comes before the timeout fires, with a load stuck, waits the timeout at most
/// and leaves the load running.
#[test]
fn a_drop_with_a_stuck_load_waits_the_timeout_at_most() {
    watchdog("a drop beside a stuck load", || {
        for (name, executor) in executors() {
            let gate = Arc::new(Gate::default());
            let _opens = Opens(Arc::clone(&gate));
            let door = Arc::clone(&gate);
            let data = from_fn(20, move |i| {
                if i == 1 {
                    door.wait();
                }
                i
            });
            let loader = Loader::new(data, Arc::clone(&executor))
                .buffer(4)
                .timeout(D);
            let mut epoch = loader.iter();
            assert_eq!(epoch.next(), Some(vec![0]), "{name}");
            let dropping = Instant::now();
            drop(epoch);
            let took = dropping.elapsed();
            assert!(took <= D + SLACK, "{name}: the drop took {took:?}");
        }
    });
}

/// A stream whose shard iterator blocks is named by shard and item; one whose `compute`
/// blocks, by stream position. Both drop promptly.
#[test]
fn a_stream_names_the_shard_item_or_the_position_that_hangs() {
    watchdog("a stalled stream", || {
        for (name, executor) in executors() {
            // Shard 1's third item never comes.
            let gate = Arc::new(Gate::default());
            let _opens = Opens(Arc::clone(&gate));
            let door = Arc::clone(&gate);
            let loader = StreamLoader::from_shards(
                vec![0usize, 1, 2],
                move |&shard: &usize| {
                    let door = Arc::clone(&door);
                    (0..5usize).map(move |i| {
                        if shard == 1 && i == 2 {
                            door.wait();
                        }
                        shard * 10 + i
                    })
                },
                |&x: &usize| x,
                Arc::clone(&executor),
            )
            .batch_size(2)
            .timeout(D);
            let mut epoch = loader.iter();
            let (got, stalled, took) = until_stalled(|| epoch.try_next());
            assert!(took >= D && took <= D + SLACK, "{name}: took {took:?}");
            assert_eq!(
                stalled.loading[0].at,
                LoadAt::Pull { shard: 1, item: 2 },
                "{name}: {stalled}"
            );
            assert!(
                stalled.to_string().contains("item 2 of shard 1"),
                "{stalled}"
            );
            // The first window (one batch) came; the second waits for the item that hangs.
            let got: Vec<usize> = got.into_iter().flatten().collect();
            assert_eq!(got, [0, 1], "{name}");
            assert_eq!(epoch.stats().verdict(), Verdict::Stalled, "{name}");
            assert_eq!(epoch.stats().abandoned, 1, "{name}: the puller");
            let dropping = Instant::now();
            drop(epoch);
            assert!(dropping.elapsed() <= SLACK, "{name}");

            // Stream position 5's compute never returns.
            let door = Arc::clone(&gate);
            let loader = StreamLoader::new(
                || 0..12usize,
                move |&x: &usize| {
                    if x == 5 {
                        door.wait();
                    }
                    x
                },
                Arc::clone(&executor),
            )
            .batch_size(3)
            .timeout(D);
            let mut epoch = loader.iter();
            let (got, stalled, took) = until_stalled(|| epoch.try_next());
            assert!(took >= D && took <= D + SLACK, "{name}: took {took:?}");
            assert!(
                stalled.loading.iter().any(|l| l.at == LoadAt::Position(5)),
                "{name}: {stalled}"
            );
            let got: Vec<usize> = got.into_iter().flatten().collect();
            assert_eq!(got, [0, 1, 2], "{name}: ordered, the batch before");
            let stats = epoch.stats();
            assert!(
                stats.stalled == stalled.loading && stats.abandoned >= 1,
                "{name}: {stats:?}"
            );
            let dropping = Instant::now();
            drop(epoch);
            assert!(dropping.elapsed() <= SLACK, "{name}");
        }
    });
}

#[test]
fn a_zero_timeout_is_refused_naming_the_setting_and_a_huge_one_never_fires() {
    let message = |f: fn()| {
        let payload = panic::catch_unwind(f).expect_err("refused");
        foldex_core::exec::message(&*payload).to_owned()
    };
    let indexable = message(|| {
        let _ = Loader::new(from_fn(3, |i| i), SequentialEx).timeout(Duration::ZERO);
    });
    assert_eq!(indexable, "timeout must be more than zero, got 0ns");
    let stream = message(|| {
        let _ =
            StreamLoader::new(|| 0..3usize, |&x: &usize| x, SequentialEx).timeout(Duration::ZERO);
    });
    assert_eq!(stream, "timeout must be more than zero, got 0ns");
    // A deadline past what the clock can name is no deadline: epochs run whole.
    for (name, executor) in executors() {
        let loader = Loader::new(from_fn(9, |i| i), Arc::clone(&executor))
            .batch_size(2)
            .timeout(Duration::MAX);
        for _ in 0..2 {
            let all: Vec<usize> = loader.iter().flatten().collect();
            assert_eq!(all, (0..9).collect::<Vec<_>>(), "{name}");
        }
        let stream = StreamLoader::new(|| 0..9usize, |&x: &usize| x, Arc::clone(&executor))
            .timeout(Duration::MAX);
        assert_eq!(stream.iter().flatten().count(), 9, "{name}");
    }
}

/// A shard that can seek, whose `open_at` (or `item_at`) at a position past its start waits
/// at a gate: a resumption that reopens it hangs there.
struct SlowSeek {
    items: Vec<usize>,
    gate: Arc<Gate>,
    /// Which reopening hangs: `open_at`, else `item_at`.
    open_hangs: bool,
}

impl SeekShard for SlowSeek {
    type Item = usize;
    type Iter = std::vec::IntoIter<usize>;

    fn open_at(&self, position: usize) -> Self::Iter {
        if position > 0 && self.open_hangs {
            self.gate.wait();
        }
        self.items
            .get(position..)
            .unwrap_or_default()
            .to_vec()
            .into_iter()
    }

    fn item_at(&self, position: usize) -> Option<usize> {
        if !self.open_hangs {
            self.gate.wait();
        }
        self.items.get(position).copied()
    }
}

/// A resumed stream whose reopening hangs is named within the timeout as a hung pull is:
/// shards that seek, at the shard and position `open_at` (or `item_at`, for an item of the
/// shuffle buffer) was asked for; shards that replay, at the shard item the replay waits for.
/// The resumed epoch drops promptly.
#[test]
fn a_resumed_stream_names_the_reopening_or_the_replay_that_hangs() {
    watchdog("a stalled resumption", || {
        for (name, executor) in executors() {
            let gate = Arc::new(Gate::default());
            let _opens = Opens(Arc::clone(&gate));
            // Three shards of 10 read in turn (interleave 3), batches of 2: stopped after 4
            // batches, the state's window starts at stream position 2, each shard reopened
            // past its start.
            for open_hangs in [true, false] {
                let what = format!("{name}, seeking, open_at hangs {open_hangs}");
                let shards = (0..3)
                    .map(|s| SlowSeek {
                        items: (s * 100..s * 100 + 10).collect(),
                        gate: Arc::clone(&gate),
                        open_hangs,
                    })
                    .collect();
                let loader =
                    StreamLoader::from_seekable(shards, move |&x: &usize| x, Arc::clone(&executor))
                        .interleave(3)
                        .batch_size(2)
                        .timeout(D);
                // Without a shuffle buffer `item_at` is never asked: a buffer of 2 holds two
                // items to fetch by position.
                let loader = if open_hangs {
                    loader
                } else {
                    loader.shuffle_buffer(2, 5)
                };
                let mut first = loader.iter();
                for _ in 0..4 {
                    assert!(first.next().is_some(), "{what}");
                }
                let state = first.state();
                drop(first);
                let mut resumed = loader.resume(&state).expect("its own state");
                let (got, stalled, took) = until_stalled(|| resumed.try_next());
                assert!(got.is_empty(), "{what}: {got:?}");
                assert!(took >= D && took <= D + SLACK, "{what}: took {took:?}");
                let at = stalled.loading.first().map(|l| l.at);
                assert!(
                    matches!(at, Some(LoadAt::Pull { shard, item })
                        if shard < 3 && (item > 0 || !open_hangs)),
                    "{what}: {stalled}"
                );
                assert!(stalled.to_string().contains(" of shard "), "{stalled}");
                assert_eq!(resumed.stats().verdict(), Verdict::Stalled, "{what}");
                let dropping = Instant::now();
                drop(resumed);
                assert!(dropping.elapsed() <= SLACK, "{what}");
            }

            // Shards that replay: shard 0's item 1 hangs from its second reading on, which is
            // the replay up to the state's stream position 2.
            let readings = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let (door, count) = (Arc::clone(&gate), Arc::clone(&readings));
            let loader = StreamLoader::from_shards(
                vec![0usize, 1, 2],
                move |&shard: &usize| {
                    let again = shard == 0 && count.fetch_add(1, Ordering::Relaxed) > 0;
                    let door = Arc::clone(&door);
                    (0..5usize).map(move |i| {
                        if again && i == 1 {
                            door.wait();
                        }
                        shard * 10 + i
                    })
                },
                |&x: &usize| x,
                Arc::clone(&executor),
            )
            .batch_size(2)
            .timeout(D);
            let mut first = loader.iter();
            for _ in 0..3 {
                assert!(first.next().is_some(), "{name}");
            }
            let state = first.state();
            drop(first);
            assert!(state.position() > 2, "{name}: {}", state.position());
            let mut resumed = loader.resume(&state).expect("its own state");
            let (got, stalled, took) = until_stalled(|| resumed.try_next());
            assert!(got.is_empty(), "{name}: {got:?}");
            assert!(took >= D && took <= D + SLACK, "{name}: took {took:?}");
            assert_eq!(
                stalled.loading.first().map(|l| l.at),
                Some(LoadAt::Pull { shard: 0, item: 1 }),
                "{name}: {stalled}"
            );
            let dropping = Instant::now();
            drop(resumed);
            assert!(dropping.elapsed() <= SLACK, "{name}");
        }
    });
}
