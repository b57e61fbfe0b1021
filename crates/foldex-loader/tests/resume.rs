//! Exact resumption: stop anywhere, resume from the state, and the epoch is whole.

mod common;

use foldex_dataset::{from_fn, sampler::ByLength};
use foldex_loader::{IterError, Loader, LoaderState, ResumeError};
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn loader(executor: &Arc<dyn foldex_core::Executor>, ordered: bool) -> Loader<Numbers> {
    Loader::new(numbers(97), Arc::clone(executor))
        .batch_size(3)
        .buffer(4)
        .shuffle(11)
        .ordered(ordered)
}

/// Takes `stop` batches of epoch 0, saves the state through JSON, resumes on a fresh loader.
fn stop_and_resume(
    executor: &Arc<dyn foldex_core::Executor>,
    ordered: bool,
    stop: usize,
) -> (Vec<usize>, Vec<usize>) {
    let first = loader(executor, ordered);
    let mut iter = first.iter();
    let mut got: Vec<usize> = iter.by_ref().take(stop).flatten().collect();
    let json = serde_json::to_string(&iter.state()).unwrap();
    drop(iter);
    let state: LoaderState = serde_json::from_str(&json).unwrap();
    let second = loader(executor, ordered);
    got.extend(second.resume(&state).unwrap().flatten());
    assert_eq!(
        second.next_epoch(),
        1,
        "after resuming epoch 0 the next iteration is epoch 1"
    );
    (got, second.epoch_order(0).iter().collect())
}

#[test]
fn ordered_resumption_continues_with_exactly_the_next_batch() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            for stop in [0, 1, 7, 32, 33] {
                let (got, epoch) = stop_and_resume(executor, true, stop);
                assert_eq!(got, epoch, "{name}, stopped after {stop}");
            }
        });
    }
}

#[test]
fn unordered_resumption_delivers_every_observation_once() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            for stop in [0, 5, 20, 33] {
                let (mut got, mut epoch) = stop_and_resume(executor, false, stop);
                got.sort_unstable();
                epoch.sort_unstable();
                assert_eq!(got, epoch, "{name}, stopped after {stop}");
            }
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn resumption_at_a_random_point_is_whole(which in 0usize..8, stop in 0usize..34, ordered: bool) {
        let (name, executor) = &common::executors()[which % common::executors().len()];
        let (mut got, mut epoch) = watchdog(name, || stop_and_resume(executor, ordered, stop));
        if !ordered {
            got.sort_unstable();
            epoch.sort_unstable();
        }
        prop_assert_eq!(got, epoch);
    }
}

#[test]
fn unordered_state_is_a_low_water_mark_and_a_few_batches_above_it() {
    // Batch 0 is slow, so later ones are delivered first.
    let slow = Loader::new(
        from_fn(40, |i| {
            if i == 0 {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            i
        }),
        foldex_threaded::ThreadedEx::new().threads(2).basesize(1),
    )
    .buffer(4)
    .ordered(false);
    let mut iter = slow.iter();
    let early: Vec<Vec<usize>> = iter.by_ref().take(3).collect();
    let state = iter.state();
    if !early.contains(&vec![0]) {
        assert_eq!(state.next_batch, 0);
        let mut above: Vec<usize> = early.iter().map(|b| b[0]).collect();
        above.sort_unstable();
        assert_eq!(state.received_above, above);
    }
    assert!(state.received_above.len() <= 3);
}

#[test]
fn resumption_costs_no_loading_of_what_was_received() {
    let loads = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&loads);
    let loader = Loader::new(
        from_fn(1_000, move |i| {
            counted.fetch_add(1, Ordering::Relaxed);
            i
        }),
        ThreadedEx::new().basesize(1),
    )
    .batch_size(10)
    .shuffle(1);
    let state = LoaderState {
        seed: Some(1),
        epoch: 3,
        next_batch: 90,
        received_above: vec![],
        batch_size: 10,
        len: 1_000,
        shard: Some((0, 1)),
        sampler: Some("Shuffled".to_owned()),
        remainder: None,
        epoch_len: Some(1_000),
    };
    let rest: Vec<usize> = loader.resume(&state).unwrap().flatten().collect();
    assert_eq!(
        rest,
        loader.epoch_order(3).iter().skip(900).collect::<Vec<_>>()
    );
    assert_eq!(
        loads.load(Ordering::Relaxed),
        100,
        "only the remaining observations load"
    );
    assert_eq!(loader.next_epoch(), 4);
}

#[test]
fn a_finished_epoch_resumes_empty_and_the_next_epoch_follows() {
    let loader = Loader::new(from_fn(10, |i| i), ThreadedEx::new().basesize(1)).batch_size(5);
    let mut iter = loader.iter();
    iter.by_ref().for_each(drop);
    let state = iter.state();
    assert_eq!(state.next_batch, 2);
    let again = Loader::new(from_fn(10, |i| i), ThreadedEx::new().basesize(1)).batch_size(5);
    assert_eq!(again.resume(&state).unwrap().count(), 0);
    assert_eq!(again.iter().epoch(), 1);
}

type Numbers = foldex_dataset::FromFn<fn(usize) -> usize>;

fn numbers(len: usize) -> Numbers {
    from_fn(len, |i| i)
}

#[test]
fn a_state_from_other_settings_is_refused() {
    let loader = Loader::new(numbers(10), ThreadedEx::new().basesize(1))
        .batch_size(5)
        .shuffle(2);
    let state = loader.iter().state();
    let refused = |l: &Loader<Numbers>| l.resume(&state).map(|_| ()).unwrap_err();
    assert!(matches!(
        refused(
            &Loader::new(numbers(10), ThreadedEx::new().basesize(1))
                .batch_size(5)
                .shuffle(3)
        ),
        ResumeError::Mismatch {
            setting: "seed",
            ..
        }
    ));
    assert!(matches!(
        refused(
            &Loader::new(numbers(10), ThreadedEx::new().basesize(1))
                .batch_size(2)
                .shuffle(2)
        ),
        ResumeError::Mismatch {
            setting: "batch_size",
            ..
        }
    ));
    let err = refused(
        &Loader::new(numbers(11), ThreadedEx::new().basesize(1))
            .batch_size(5)
            .shuffle(2),
    );
    assert!(err.to_string().contains("len"), "{err}");
    // Another sampler with the same seed would continue another order.
    let by_length = ByLength::new(vec![1; 10], 5, 2);
    let err = refused(
        &Loader::new(numbers(10), ThreadedEx::new().basesize(1))
            .batch_size(5)
            .sampler(by_length),
    );
    assert_eq!(
        err.to_string(),
        "foldex-loader: cannot resume: the state has sampler Shuffled, this loader ByLength"
    );
}

/// An epoch whose cheap batches travel in parcels resumes exactly, whether it stopped between
/// parcels or inside one (the rest of that parcel was computed but not received, and loads
/// again): parcels of 8 (a buffer of 16) and of 32 (a buffer of 256).
#[test]
fn resumption_is_exact_inside_a_parcel() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            for (buffer, ordered) in [(16, true), (16, false), (256, true), (256, false)] {
                // Enough batches that an epoch in parcels of 32 still times a few (one ticket
                // in 16) for the next epoch's parcels.
                let loader = Loader::new(numbers(2_000), Arc::clone(executor))
                    .buffer(buffer)
                    .shuffle(5)
                    .ordered(ordered)
                    .unbatched();
                loader.iter().for_each(drop);
                for stop in [0, 8, 13, 45, 250, 1_000] {
                    let mut epoch = loader.next_epoch();
                    let mut iter = loader.iter();
                    // The parcel size comes from the cheapest batch the epoch before timed; an
                    // epoch that a loaded machine timed as dear throughout is run whole, and
                    // the next one measured again.
                    for _ in 0..20 {
                        if iter.stats().parcel > 1 {
                            break;
                        }
                        iter.for_each(drop);
                        epoch = loader.next_epoch();
                        iter = loader.iter();
                    }
                    assert!(
                        iter.stats().parcel > 1,
                        "{name}: cheap batches travel alone (buffer {buffer}, stop {stop}, \
                         ordered {ordered})"
                    );
                    let mut got: Vec<usize> = iter.by_ref().take(stop).collect();
                    let state = iter.state();
                    drop(iter);
                    got.extend(loader.resume(&state).unwrap());
                    let mut want: Vec<usize> = loader.epoch_order(epoch).iter().collect();
                    if !ordered {
                        got.sort_unstable();
                        want.sort_unstable();
                    }
                    assert_eq!(
                        got, want,
                        "{name}, buffer {buffer}, ordered {ordered}, stopped after {stop}"
                    );
                }
            }
        });
    }
}

/// One rank's state never continues another rank's part: the shard is part of the state, and
/// a resume on another rank (or world) is refused naming both.
#[test]
fn a_state_from_another_rank_is_refused() {
    let rank = |r, world| {
        Loader::new(numbers(100), ThreadedEx::new().basesize(1))
            .batch_size(5)
            .shuffle(4)
            .shard(r, world)
    };
    let mut iter = rank(0, 2).iter();
    iter.by_ref().take(3).for_each(drop);
    let state = iter.state();
    drop(iter);
    assert_eq!(state.shard, Some((0, 2)));
    let err = rank(1, 2).resume(&state).map(|_| ()).unwrap_err();
    assert!(
        matches!(
            err,
            ResumeError::Mismatch {
                setting: "shard",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "foldex-loader: cannot resume: the state has shard rank 0 of 2, this loader rank 1 of 2"
    );
    // Another world, and a loader that is not sharded (its 50 observations are as many as
    // the state's), are refused by their shard as well.
    let err = rank(0, 4).resume(&state).map(|_| ()).unwrap_err();
    assert!(err.to_string().contains("rank 0 of 4"), "{err}");
    let unsharded = Loader::new(numbers(50), ThreadedEx::new().basesize(1))
        .batch_size(5)
        .shuffle(4);
    let err = unsharded.resume(&state).map(|_| ()).unwrap_err();
    assert!(
        err.to_string().contains("rank 0 of 1 (not sharded)"),
        "{err}"
    );
    // The right rank resumes, and continues exactly where it stopped.
    let rest: Vec<usize> = rank(0, 2).resume(&state).unwrap().flatten().collect();
    assert_eq!(rest.len(), 50 - 15);
}

/// A state written before the shard was recorded still deserialises; it resumes on a loader
/// that is not sharded, and a sharded one refuses it, since it cannot tell whose it was.
#[test]
fn a_state_without_a_shard_resumes_only_unsharded() {
    let old = r#"{"seed":7,"epoch":2,"next_batch":3,"received_above":[],"batch_size":4,"len":40}"#;
    let state: LoaderState = serde_json::from_str(old).unwrap();
    assert_eq!((state.shard, state.sampler.clone()), (None, None));
    let loader = Loader::new(numbers(40), ThreadedEx::new().basesize(1))
        .batch_size(4)
        .shuffle(7);
    let rest: Vec<usize> = loader.resume(&state).unwrap().flatten().collect();
    assert_eq!(
        rest,
        loader.epoch_order(2).iter().skip(12).collect::<Vec<_>>()
    );
    let sharded = Loader::new(numbers(80), ThreadedEx::new().basesize(1))
        .batch_size(4)
        .shuffle(7)
        .shard(1, 2);
    let err = sharded.resume(&state).map(|_| ()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "foldex-loader: cannot resume: the state has shard none recorded, this loader rank 1 of 2"
    );
}

/// Epochs are numbered below `u64::MAX`: a state at `u64::MAX` is refused (the epoch after it
/// would wrap to 0 and repeat epoch 0's order), and after the epoch `u64::MAX - 1` the loader
/// refuses to start another rather than wrap.
#[test]
fn the_epoch_counter_never_wraps() {
    let loader = Loader::new(numbers(10), ThreadedEx::new().basesize(1))
        .batch_size(5)
        .shuffle(1);
    let mut state = loader.iter().state();
    state.epoch = u64::MAX;
    let err = loader.resume(&state).map(|_| ()).unwrap_err();
    assert_eq!(err, ResumeError::LastEpoch { epoch: u64::MAX });
    assert!(err.to_string().contains("18446744073709551615"), "{err}");
    assert_eq!(loader.next_epoch(), 1, "a refused state changes nothing");

    state.epoch = u64::MAX - 1;
    let last: Vec<usize> = loader.resume(&state).unwrap().flatten().collect();
    assert_eq!(
        last,
        loader.epoch_order(u64::MAX - 1).iter().collect::<Vec<_>>()
    );
    assert_eq!(loader.next_epoch(), u64::MAX);
    let err = loader.try_iter().map(|_| ()).unwrap_err();
    assert_eq!(err, IterError::LastEpoch);
    assert!(err.to_string().contains("wrapping to 0"), "{err}");
    assert_eq!(
        loader.next_epoch(),
        u64::MAX,
        "a refused epoch takes no number"
    );
}
