//! Exact resumption of a stream loader: stop anywhere, resume from the state (twice), and the
//! epoch is whole: the same batches in the same order (ordered), the same batches once
//! (unordered), whether the shards are replayed or opened at their positions, when a state of
//! one kind is resumed by the other; and resumed in worlds of other sizes, where each old
//! rank's part keeps its order.

mod common;

use foldex_core::Executor;
use foldex_dataset::ItemContext;
use foldex_loader::stream::{SeekShard, StreamState};
use foldex_loader::{ResumeError, StreamLoader};
use foldex_testkit::watchdog;
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// What a batch's item is: the pulled item, and the context it was computed in (its stream
/// position, epoch and first random draw), so that a resumed epoch is seen to give its items the
/// same contexts.
type Out = (u32, usize, u64, u64);

/// How the shards are reopened on resumption.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// `from_shards`: replayed from their start.
    Replayed,
    /// `from_seekable` over `Vec`s.
    SeekVec,
    /// `from_seekable` over `Arc`s of a dataset (`Arc<Vec<u32>>`).
    SeekDataset,
}

#[derive(Debug, Clone)]
struct Settings {
    lens: Vec<usize>,
    interleave: usize,
    shuffle: Option<(usize, u64)>,
    batch: usize,
    window: usize,
    buffer: usize,
    ordered: bool,
    partial: bool,
    source: Source,
    /// Epochs run before the one that is stopped and resumed.
    earlier_epochs: u64,
}

fn shards(lens: &[usize]) -> Vec<Vec<u32>> {
    lens.iter()
        .enumerate()
        .map(|(s, &len)| (0..len as u32).map(|i| s as u32 * 1000 + i).collect())
        .collect()
}

fn compute(&x: &u32) -> Out {
    let cx = ItemContext::current().expect("inside a load");
    (x, cx.index(), cx.epoch(), cx.rng().next_u64())
}

fn loader(s: &Settings, executor: &Arc<dyn Executor>) -> StreamLoader<u32, Out> {
    let data = shards(&s.lens);
    let executor = Arc::clone(executor);
    let loader = match s.source {
        Source::Replayed => StreamLoader::from_shards(data, Vec::clone, compute, executor),
        Source::SeekVec => StreamLoader::from_seekable(data, compute, executor),
        Source::SeekDataset => {
            let data: Vec<Arc<Vec<u32>>> = data.into_iter().map(Arc::new).collect();
            StreamLoader::from_seekable(data, compute, executor)
        }
    };
    let mut loader = loader
        .interleave(s.interleave)
        .batch_size(s.batch)
        .window(s.window)
        .buffer(s.buffer)
        .ordered(s.ordered)
        .partial(s.partial);
    if let Some((size, seed)) = s.shuffle {
        loader = loader.shuffle_buffer(size, seed);
    }
    for _ in 0..s.earlier_epochs {
        loader.iter().for_each(drop);
    }
    loader
}

/// Through JSON, as a checkpoint would keep it.
fn round_trip(state: &StreamState) -> StreamState {
    let json = serde_json::to_string(state).unwrap();
    let back: StreamState = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, state);
    back
}

fn source() -> impl Strategy<Value = Source> {
    prop_oneof![
        Just(Source::Replayed),
        Just(Source::SeekVec),
        Just(Source::SeekDataset)
    ]
}

fn settings() -> impl Strategy<Value = Settings> {
    (
        prop::collection::vec(prop_oneof![Just(0usize), Just(1), 0usize..25], 0..5),
        1usize..4,
        prop::option::of((1usize..12, any::<u64>())),
        1usize..5,
        1usize..4,
        1usize..4,
        any::<bool>(),
        any::<bool>(),
        source(),
        0u64..2,
    )
        .prop_map(
            |(lens, interleave, shuffle, batch, window, buffer, ordered, partial, source, e)| {
                Settings {
                    lens,
                    interleave,
                    shuffle,
                    batch,
                    window,
                    buffer,
                    ordered,
                    partial,
                    source,
                    earlier_epochs: e,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Stop after `stop` batches, resume (on another executor, with shards that seek or not),
    /// stop again after `again`, resume again: what was delivered is the uninterrupted epoch,
    /// in its order when ordered.
    #[test]
    fn a_resumed_stream_delivers_the_rest_of_its_epoch_exactly_once(
        s in settings(),
        stop in 0usize..30,
        again in 0usize..30,
        windows_after in (1usize..6, 1usize..6),
        sources_after in (source(), source()),
        executors in (0usize..64, 0usize..64, 0usize..64),
    ) {
        let all = common::executors();
        let pick = |i: usize| &all[i % all.len()];
        let (a, b, c) = (pick(executors.0), pick(executors.1), pick(executors.2));
        let what = format!("{s:?} on {}, {}, {}", a.0, b.0, c.0);
        watchdog(&what, || {
            let whole: Vec<Vec<Out>> = loader(&s, &a.1).iter().collect();

            let first = loader(&s, &a.1);
            let mut epoch = first.iter();
            let mut got: Vec<Vec<Out>> = epoch.by_ref().take(stop).collect();
            let state = round_trip(&epoch.state());
            drop(epoch);
            assert_eq!(state.epoch(), s.earlier_epochs);

            // The window size may differ on resumption: the state's window is pulled again
            // whole, and the windows after it follow the resuming loader's setting. So may the
            // shards' kind: a state whose buffer is not tagged is replayed by a seeking loader,
            // one whose buffer is tagged is replayed by a loader that cannot seek.
            let second = loader(&Settings { window: windows_after.0, source: sources_after.0, ..s.clone() }, &b.1);
            let mut epoch = second.resume(&state).unwrap();
            got.extend(epoch.by_ref().take(again));
            let state = round_trip(&epoch.state());
            drop(epoch);
            assert_eq!(second.iter().epoch(), s.earlier_epochs + 1, "the epoch after the resumed one");

            let third = loader(&Settings { window: windows_after.1, source: sources_after.1, ..s.clone() }, &c.1);
            got.extend(third.resume(&state).unwrap());

            if s.ordered {
                assert_eq!(got, whole);
            } else {
                let (mut got, mut whole) = (got, whole);
                got.sort();
                whole.sort();
                assert_eq!(got, whole);
            }
        });
    }
}

/// A shard that counts the items it gives, opened at any position.
struct Counted {
    len: u32,
    read: Arc<AtomicUsize>,
}

impl SeekShard for Counted {
    type Item = u32;
    type Iter = Box<dyn Iterator<Item = u32> + Send>;

    fn open_at(&self, position: usize) -> Self::Iter {
        let read = Arc::clone(&self.read);
        Box::new((position as u32..self.len).inspect(move |_| {
            read.fetch_add(1, Ordering::Relaxed);
        }))
    }
}

#[test]
fn a_seekable_shard_is_not_read_again_from_its_start_and_another_is() {
    let read = Arc::new(AtomicUsize::new(0));
    let executor: Arc<dyn Executor> = Arc::new(foldex_threaded::ThreadedEx::new().basesize(1));
    let seekable = || {
        let shard = Counted {
            len: 1000,
            read: Arc::clone(&read),
        };
        StreamLoader::from_seekable(vec![shard], |&x: &u32| x, Arc::clone(&executor))
            .batch_size(10)
            .window(2)
            .shuffle_buffer(8, 3)
    };
    let replayed = || {
        let read = Arc::clone(&read);
        let open = move |_: &()| {
            Counted {
                len: 1000,
                read: Arc::clone(&read),
            }
            .open_at(0)
        };
        StreamLoader::from_shards(vec![()], open, |&x: &u32| x, Arc::clone(&executor))
            .batch_size(10)
            .window(2)
            .shuffle_buffer(8, 3)
    };
    for (name, seeks) in [("seekable", true), ("replayed", false)] {
        let make = || if seeks { seekable() } else { replayed() };
        let whole: Vec<Vec<u32>> = make().iter().collect();
        let mut epoch = make().iter();
        let head: Vec<Vec<u32>> = epoch.by_ref().take(60).collect();
        let state = epoch.state();
        drop(epoch);
        assert_eq!(state.position(), 600, "{name}");
        read.store(0, Ordering::Relaxed);
        let tail: Vec<Vec<u32>> = make().resume(&state).unwrap().collect();
        assert_eq!([head, tail].concat(), whole, "{name}");
        let read = read.load(Ordering::Relaxed);
        // The rest of the stream (400 items) and the window being delivered (at most 20); the
        // shuffle buffer's 8 items are fetched one by one when seeking, replayed otherwise.
        if seeks {
            assert!(read <= 400 + 20 + 8, "{name}: read {read} items");
        } else {
            assert!(
                read >= 1000,
                "{name}: read {read} items, so it did not replay"
            );
        }
    }
}

#[test]
fn a_state_from_other_settings_is_refused_naming_both_sides() {
    let executor: Arc<dyn Executor> = Arc::new(foldex_seq::SequentialEx);
    let make = |shards: usize, interleave: usize, shuffle: usize, batch: usize| {
        let data: Vec<Vec<u32>> = (0..shards).map(|s| vec![s as u32; 5]).collect();
        StreamLoader::from_seekable(data, |&x: &u32| x, Arc::clone(&executor))
            .interleave(interleave)
            .shuffle_buffer(shuffle, 1)
            .batch_size(batch)
    };
    let mut epoch = make(4, 2, 3, 2).iter();
    epoch.next();
    let state = epoch.state();
    drop(epoch);
    let refused = |loader: StreamLoader<u32, u32>| match loader.resume(&state) {
        Err(e) => e,
        Ok(_) => panic!("resumed under other settings"),
    };
    let cases = [
        (refused(make(5, 2, 3, 2)), "shards", "4", "5"),
        (refused(make(4, 3, 3, 2)), "interleave", "2", "3"),
        (
            refused(make(4, 2, 4, 2)),
            "shuffle_buffer",
            "3 items, seed 1",
            "4 items, seed 1",
        ),
        (refused(make(4, 2, 3, 1)), "batch_size", "2", "1"),
        (
            refused(make(4, 2, 3, 2).shard(1, 2)),
            "shard",
            "rank 0 of 1",
            "rank 1 of 2",
        ),
    ];
    for (err, setting, state, loader) in cases {
        assert_eq!(
            err,
            ResumeError::Mismatch {
                setting,
                state: state.to_owned(),
                loader: loader.to_owned()
            }
        );
        assert_eq!(
            err.to_string(),
            format!("foldex-loader: cannot resume: the state has {setting} {state}, this loader {loader}")
        );
    }
    assert!(make(4, 2, 3, 2).resume(&state).is_ok());
}

#[test]
fn a_shard_shorter_than_the_state_says_fails_the_resumed_epoch_naming_it() {
    let executor: Arc<dyn Executor> = Arc::new(foldex_seq::SequentialEx);
    let make = |len: u32| {
        StreamLoader::from_shards(
            vec![len],
            |&len| 0..len,
            |&x: &u32| x,
            Arc::clone(&executor),
        )
        .batch_size(2)
        .window(1)
    };
    let mut epoch = make(20).iter();
    epoch.by_ref().take(5).for_each(drop);
    let state = epoch.state();
    drop(epoch);
    watchdog("a shorter shard", || {
        let mut resumed = make(4).resume(&state).unwrap();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| resumed.next()));
        let message = foldex_core::exec::message(&*caught.expect_err("the shard changed"));
        // The replay ends at stream position 4, before the state's window at 8.
        for part in [
            "the state is at stream position 8, 1 shards opened, (shard, items read) [(0, 8)]",
            "replaying its shards reaches stream position 4",
            "a shard changed since the state was taken",
        ] {
            assert!(message.contains(part), "{message}");
        }
    });
}

#[test]
fn unordered_batches_received_past_a_slow_one_are_not_delivered_again() {
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;
    let held = Arc::new(AtomicBool::new(false));
    let executor: Arc<dyn Executor> =
        Arc::new(foldex_threaded::ThreadedEx::new().threads(3).basesize(1));
    let make = || {
        let held = Arc::clone(&held);
        let slow = move |&x: &u32| {
            // Item 5 waits while `held` is set (at most two seconds, should the consumer have
            // taken it on to help), so that batches after it are received before it.
            for _ in 0..2000 {
                if x != 5 || !held.load(Ordering::Relaxed) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            x
        };
        StreamLoader::from_seekable(
            vec![(0..40u32).collect::<Vec<_>>()],
            slow,
            Arc::clone(&executor),
        )
        .window(16)
        .buffer(8)
        .ordered(false)
    };
    watchdog("a slow item, unordered", || {
        held.store(true, Ordering::Relaxed);
        let mut epoch = make().iter();
        let mut got: Vec<u32> = epoch.by_ref().take(9).flatten().collect();
        let state = round_trip(&epoch.state());
        held.store(false, Ordering::Relaxed);
        drop(epoch);
        assert!(
            !got.contains(&5) && got.iter().any(|&x| x > 5),
            "batches after the slow one came first: {got:?}"
        );
        assert_eq!(state.position(), 5, "every item below 5 was received");
        got.extend(make().resume(&state).unwrap().flatten());
        got.sort_unstable();
        assert_eq!(got, (0..40).collect::<Vec<_>>());
    });
}

/// The old rank whose stream delivered `batch`: its items' shard, dealt by `shard % world`.
fn old_rank(batch: &[Out], world: usize) -> usize {
    let shard = batch[0].0 as usize / 1000;
    assert!(
        batch
            .iter()
            .all(|o| o.0 as usize / 1000 % world == shard % world),
        "a batch mixes old ranks: {batch:?}"
    );
    shard % world
}

/// A world size, a stop point (in batches) for each of its ranks, and which executor each uses.
fn world() -> impl Strategy<Value = Vec<(usize, usize)>> {
    prop::collection::vec((0usize..12, 0usize..64), 1..=6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// An epoch started on `old` ranks, each stopped at its own batch, resumed on `new` ranks,
    /// each stopped again, then resumed on `last` ranks: each old rank's part of what was
    /// delivered is its uninterrupted epoch (in its order when ordered), so the union is the
    /// epoch's items, each once.
    #[test]
    fn a_stream_epoch_resumes_whole_in_worlds_of_other_sizes(
        s in settings(),
        lens in prop::collection::vec(prop_oneof![Just(0usize), 0usize..20], 0..9),
        old in world(),
        new in world(),
        last in world(),
    ) {
        let s = Settings { lens, ..s };
        let all = common::executors();
        let pick = |i: usize| &all[i % all.len()].1;
        let what = format!("{s:?}, worlds {old:?}, {new:?}, {last:?}");
        let rank = |r: usize, world: usize, executor: usize| loader(&s, pick(executor)).shard(r, world);
        watchdog(&what, || {
            let w = old.len();
            let whole: Vec<Vec<Vec<Out>>> = (0..w).map(|i| rank(i, w, 0).iter().collect()).collect();
            let mut got: Vec<Vec<Vec<Out>>> = vec![Vec::new(); w];
            let mut keep = |batches: Vec<Vec<Out>>| {
                for batch in batches {
                    got[old_rank(&batch, w)].push(batch);
                }
            };

            let mut states = Vec::new();
            for (i, &(stop, executor)) in old.iter().enumerate() {
                let mut epoch = rank(i, w, executor).iter();
                keep(epoch.by_ref().take(stop).collect());
                states.push(round_trip(&epoch.state()));
            }

            // The new world stops each rank somewhere; its states, gathered in any order,
            // resume again.
            let mut gathered = Vec::new();
            for (r, &(stop, executor)) in new.iter().enumerate().rev() {
                let loader = rank(r, new.len(), executor);
                let mut epoch = loader.resume_in_world(&states).unwrap();
                let dealt: Vec<usize> = (r..w).step_by(new.len()).collect();
                assert_eq!(epoch.old_ranks(), dealt);
                assert_eq!(epoch.epoch(), s.earlier_epochs);
                keep(epoch.by_ref().take(stop).collect());
                let state: Vec<StreamState> = epoch.state().iter().map(round_trip).collect();
                assert_eq!(state.len(), dealt.len());
                gathered.extend(state);
                drop(epoch);
                assert_eq!(loader.iter().epoch(), s.earlier_epochs + 1, "the epoch after it");
            }

            for (r, &(_, executor)) in last.iter().enumerate() {
                let mut epoch = rank(r, last.len(), executor).resume_in_world(&gathered).unwrap();
                let batches: Vec<Vec<Out>> = epoch.by_ref().collect();
                let stats = epoch.stats();
                assert_eq!(stats.batches, batches.len() as u64);
                assert_eq!(stats.items, batches.iter().map(Vec::len).sum::<usize>() as u64);
                keep(batches);
            }

            for (i, (got, whole)) in got.into_iter().zip(whole).enumerate() {
                if s.ordered {
                    assert_eq!(got, whole, "old rank {i}");
                } else {
                    let (mut got, mut whole) = (got, whole);
                    got.sort();
                    whole.sort();
                    assert_eq!(got, whole, "old rank {i}");
                }
            }
        });
    }
}

#[test]
fn states_that_are_not_one_epoch_of_one_world_are_refused_naming_both_sides() {
    let executor: Arc<dyn Executor> = Arc::new(foldex_seq::SequentialEx);
    let make = |rank: usize, world: usize, batch: usize| {
        let data: Vec<Vec<u32>> = (0..5).map(|s| vec![s as u32; 4]).collect();
        StreamLoader::from_seekable(data, |&x: &u32| x, Arc::clone(&executor))
            .interleave(2)
            .batch_size(batch)
            .shard(rank, world)
    };
    let state = |rank: usize, world: usize, epochs: usize| {
        let loader = make(rank, world, 2);
        for _ in 0..epochs {
            loader.iter().for_each(drop);
        }
        let mut epoch = loader.iter();
        epoch.next();
        epoch.state()
    };
    let three: Vec<StreamState> = (0..3).map(|r| state(r, 3, 0)).collect();
    let refused = |states: &[StreamState]| {
        // Every rank of the new world refuses the same list with the same error.
        let errors: Vec<ResumeError> = (0..2)
            .map(|r| make(r, 2, 2).resume_in_world(states).expect_err("refused"))
            .collect();
        assert_eq!(errors[0], errors[1]);
        errors[0].to_string()
    };
    let cases = [
        (vec![], "no stream state to resume in another world"),
        (
            three[..2].to_vec(),
            "2 stream states given, of a world of 3 ranks (rank 0's state says so): resuming \
             in another world takes one state of each old rank",
        ),
        (
            vec![three[0].clone(), three[1].clone(), three[1].clone()],
            "rank 1's stream state given twice (of a world of 3 ranks)",
        ),
        (
            vec![three[0].clone(), three[1].clone(), state(1, 2, 0)],
            "rank 1's stream state is of a world of 2 ranks, rank 0's of 3",
        ),
        (
            vec![three[0].clone(), three[1].clone(), state(2, 3, 1)],
            "rank 2's stream state is of epoch 1, rank 0's of epoch 0",
        ),
    ];
    for (states, why) in cases {
        assert_eq!(
            refused(&states),
            format!("foldex-loader: cannot resume: {why}")
        );
    }
    // Other settings: the setting and both sides named.
    let err = make(0, 2, 3).resume_in_world(&three).expect_err("refused");
    assert_eq!(
        err,
        ResumeError::Mismatch {
            setting: "batch_size",
            state: "2".to_owned(),
            loader: "3".to_owned()
        }
    );
    // The states of one world's ranks resume in the same world, and in one rank.
    assert!(make(1, 3, 2).resume_in_world(&three).is_ok());
    assert!(make(0, 1, 2).resume_in_world(&three).is_ok());
}
