//! Elastic resumption: ranks of one world stop anywhere, their states merge, and the ranks of
//! another world deliver exactly the rest of the epoch, with their tail policy applied to it.

mod common;

use foldex_dataset::{from_fn, sampler::ByLength, FromFn, Tail};
use foldex_loader::{Loader, LoaderState, ResumeError};
use foldex_seq::SequentialEx;
use foldex_testkit::watchdog;
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::sync::Arc;

type Numbers = FromFn<fn(usize) -> usize>;

fn numbers(len: usize) -> Numbers {
    from_fn(len, (|i| i) as fn(usize) -> usize)
}

/// Numbers of which every sixth takes a millisecond: unordered ranks receive later batches
/// before earlier ones, and stop with some above their first missing one.
fn uneven_numbers(len: usize) -> Numbers {
    from_fn(len, |i| {
        if i % 6 == 0 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        i
    })
}

/// The settings every rank of every world shares.
#[derive(Debug, Clone, Copy)]
struct Common {
    len: usize,
    batch_size: usize,
    tail: Tail,
    partial: bool,
    /// Shuffled with this seed, or sequential.
    seed: Option<u64>,
    /// Every sixth observation is slow ([`uneven_numbers`]).
    slow: bool,
}

/// How one rank runs: on which executor, with which buffer, in order or not.
#[derive(Debug, Clone, Copy)]
struct Run {
    executor: usize,
    buffer: usize,
    ordered: bool,
}

fn loader(c: Common, run: Run, shard: (usize, usize)) -> Loader<Numbers> {
    let executors = common::executors();
    let executor = Arc::clone(&executors[run.executor % executors.len()].1);
    let dataset = if c.slow {
        uneven_numbers(c.len)
    } else {
        numbers(c.len)
    };
    let loader = Loader::new(dataset, executor)
        .batch_size(c.batch_size)
        .partial(c.partial)
        .buffer(run.buffer)
        .ordered(run.ordered)
        .shard(shard.0, shard.1)
        .shard_tail(c.tail);
    match c.seed {
        Some(seed) => loader.shuffle(seed),
        None => loader,
    }
}

/// The model of one rank's part, written from the documented rule: rank `r` of `world` takes
/// the remainder's `r`-th, `r + world`-th, … observations, its tail policy deciding about the
/// last `count % world`; padding repeats the epoch's first observations. Each entry is
/// `(observation, is_padding)`, cut into batches as the loader cuts them.
fn model_part(
    c: Common,
    order: &[usize],
    remainder: &[usize],
    (rank, world): (usize, usize),
) -> Vec<Vec<(usize, bool)>> {
    let count = remainder.len();
    let share = match c.tail {
        Tail::Pad => count.div_ceil(world),
        Tail::Drop => count / world,
        Tail::Uneven => count / world + usize::from(rank < count % world),
    };
    let part: Vec<(usize, bool)> = (0..share)
        .map(|q| {
            let i = rank + q * world;
            if i < count {
                (remainder[i], false)
            } else {
                (order[(i - count) % order.len()], true)
            }
        })
        .collect();
    part.chunks(c.batch_size)
        .filter(|b| c.partial || b.len() == c.batch_size)
        .map(<[_]>::to_vec)
        .collect()
}

/// What one rank of one round delivered, checked against the model: ordered, exactly its
/// part's first batches; unordered, exactly the batches its state says it received.
fn check_rank(
    delivered: &[Vec<usize>],
    state: &LoaderState,
    part: &[Vec<(usize, bool)>],
    ordered: bool,
    what: &str,
) -> Vec<(usize, bool)> {
    let mut received: Vec<usize> = (0..state.next_batch).collect();
    received.extend(&state.received_above);
    assert!(
        received.iter().all(|&b| b < part.len()),
        "{what}: state {state:?} beyond the model's {} batches",
        part.len()
    );
    let values = |batches: &[Vec<(usize, bool)>]| -> Vec<Vec<usize>> {
        batches
            .iter()
            .map(|b| b.iter().map(|&(v, _)| v).collect())
            .collect()
    };
    if ordered {
        assert!(state.received_above.is_empty(), "{what}: {state:?}");
        assert_eq!(
            delivered,
            &values(&part[..state.next_batch])[..],
            "{what}: ordered delivery is the part's first batches"
        );
    } else {
        let mut got = delivered.to_vec();
        got.sort_unstable();
        let mut expected: Vec<Vec<usize>> = received
            .iter()
            .map(|&b| values(&part[b..=b]).remove(0))
            .collect();
        expected.sort_unstable();
        assert_eq!(
            got, expected,
            "{what}: unordered delivery is what the state says"
        );
    }
    received
        .iter()
        .flat_map(|&b| part[b].iter().copied())
        .collect()
}

/// One scenario: worlds one after the other, each rank of each world but the last stopping
/// after `stops` batches (each rank its own, or all the same when `in_step`).
#[derive(Debug, Clone)]
struct Scenario {
    common: Common,
    worlds: Vec<usize>,
    /// Per world, per rank: a fraction of its batches to take before stopping.
    stops: Vec<Vec<f64>>,
    runs: Vec<Vec<Run>>,
    in_step: bool,
    /// Through JSON, or as it is.
    json: bool,
    /// The epoch that stops (the ranks of the first world start it afresh).
    epoch: u64,
}

fn through_json(state: LoaderState, json: bool) -> LoaderState {
    if json {
        serde_json::from_str(&serde_json::to_string(&state).unwrap()).unwrap()
    } else {
        state
    }
}

/// Runs `s` and checks every rank of every world against the model, and the union of all
/// against the epoch.
fn run(s: &Scenario) {
    let c = s.common;
    let order: Vec<usize> = loader(c, s.runs[0][0], (0, 1))
        .epoch_order(s.epoch)
        .iter()
        .collect();
    // Positions of the global order not yet delivered (a repeat by padding never counts).
    let mut remainder: Vec<usize> = order.clone();
    let mut delivered: Vec<usize> = Vec::new();
    let mut merged: Option<LoaderState> = None;
    for (round, &world) in s.worlds.iter().enumerate() {
        let last = round + 1 == s.worlds.len();
        let parts: Vec<_> = (0..world)
            .map(|r| model_part(c, &order, &remainder, (r, world)))
            .collect();
        let stop_all = s.stops[round][0];
        let most = parts.iter().map(Vec::len).max().unwrap_or(0);
        let mut states = Vec::new();
        let mut this_round: Vec<(usize, bool)> = Vec::new();
        for (rank, part) in parts.iter().enumerate() {
            let run = s.runs[round][rank];
            let what = format!("{s:?}: round {round}, rank {rank} of {world}");
            let l = loader(c, run, (rank, world));
            // In step, every rank takes the same number of batches (all, when it has fewer).
            let stop = if last {
                usize::MAX
            } else if s.in_step {
                (most as f64 * stop_all) as usize
            } else {
                (part.len() as f64 * s.stops[round][rank]) as usize
            };
            let (got, state) = watchdog(&what, || {
                let mut iter = match &merged {
                    None => {
                        (0..s.epoch).for_each(|_| drop(l.iter()));
                        l.iter()
                    }
                    Some(state) => l.resume(state).unwrap(),
                };
                assert_eq!(iter.epoch(), s.epoch);
                assert_eq!(l.next_epoch(), s.epoch + 1);
                let got: Vec<Vec<usize>> = iter.by_ref().take(stop).collect();
                (got, iter.state())
            });
            assert_eq!(
                state.remainder,
                merged.as_ref().and_then(|m| m.remainder.clone())
            );
            this_round.extend(check_rank(&got, &state, part, run.ordered, &what));
            states.push(through_json(state, s.json));
        }
        delivered.extend(this_round.iter().filter(|&&(_, pad)| !pad).map(|&(v, _)| v));
        if last {
            // What the last world left out (its tail, partial(false)) is all that is missing.
            let left_out: BTreeSet<usize> = remainder
                .iter()
                .copied()
                .filter(|v| !this_round.contains(&(*v, false)))
                .collect();
            let mut all = delivered.clone();
            all.sort_unstable();
            let mut expected: Vec<usize> = order
                .iter()
                .copied()
                .filter(|v| !left_out.contains(v))
                .collect();
            expected.sort_unstable();
            assert_eq!(
                all, expected,
                "{s:?}: every observation once, but what the tail left out"
            );
            if c.tail == Tail::Uneven && c.partial {
                assert!(
                    left_out.is_empty(),
                    "{s:?}: Uneven and partial leave nothing out"
                );
            }
            break;
        }
        remainder.retain(|v| !delivered.contains(v));
        // Merge, in any order of the states, on a loader of either world.
        states.rotate_left(round % world);
        let merger = loader(c, s.runs[round][0], (0, s.worlds[round + 1]));
        let all_ranks = merger.merge_states(&states).unwrap();
        let next = if s.in_step && states.iter().all(|st| st.received_above.is_empty()) {
            let one = merger.merge_in_step(&states[round % world]).unwrap();
            assert_eq!(
                one, all_ranks,
                "{s:?}: in step, one state says what all say"
            );
            one
        } else {
            all_ranks
        };
        let rest = next.remainder.as_ref().unwrap();
        let listed: Vec<usize> = (0..rest.count()).map(|i| order[rest.position(i)]).collect();
        assert_eq!(
            listed, remainder,
            "{s:?}: the merged remainder after round {round}"
        );
        merged = Some(through_json(next, s.json));
    }
}

fn scenario() -> impl Strategy<Value = Scenario> {
    let common = (
        0usize..60,
        1usize..5,
        prop_oneof![Just(Tail::Pad), Just(Tail::Drop), Just(Tail::Uneven)],
        any::<bool>(),
        proptest::option::of(any::<u64>()),
        proptest::bool::weighted(0.25),
    )
        .prop_map(|(len, batch_size, tail, partial, seed, slow)| Common {
            len,
            batch_size,
            tail,
            partial,
            seed,
            slow,
        });
    let run = (0usize..16, 1usize..6, any::<bool>()).prop_map(|(executor, buffer, ordered)| Run {
        executor,
        buffer,
        ordered,
    });
    let world = proptest::collection::vec(
        (
            1usize..=9,
            proptest::collection::vec(0.0f64..=1.0, 9),
            proptest::collection::vec(run, 9),
        ),
        2..=3,
    );
    let flags = (any::<bool>(), any::<bool>(), 0u64..2);
    (common, world, flags).prop_map(|(common, worlds, (in_step, json, epoch))| Scenario {
        common,
        worlds: worlds.iter().map(|w| w.0).collect(),
        stops: worlds.iter().map(|w| w.1.clone()).collect(),
        runs: worlds.iter().map(|w| w.2.clone()).collect(),
        in_step,
        json,
        epoch,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    /// Random worlds before and after (1..=9 ranks, two or three worlds), random stop points
    /// per rank or in step, shuffled or sequential, any tail and `partial`, random executors,
    /// buffers and delivery order: every rank delivers exactly its part of the remainder, and
    /// all together the epoch once, but what the last world's tail left out.
    #[test]
    fn the_worlds_together_deliver_the_epoch_once(s in scenario()) {
        run(&s);
    }
}

#[test]
fn ranks_in_step_resume_in_any_world_as_the_uninterrupted_epoch_would() {
    // Four ranks take three batches each; the same four ranks resumed from rank 2's state
    // deliver what they would have delivered uninterrupted.
    let c = Common {
        len: 50,
        batch_size: 2,
        tail: Tail::Pad,
        partial: true,
        seed: Some(3),
        slow: false,
    };
    let run = Run {
        executor: 1,
        buffer: 2,
        ordered: true,
    };
    let mut state = None;
    for r in 0..4 {
        let mut iter = loader(c, run, (r, 4)).iter();
        iter.by_ref().take(3).for_each(drop);
        if r == 2 {
            state = Some(iter.state());
        }
    }
    let merged = loader(c, run, (0, 4))
        .merge_in_step(&state.unwrap())
        .unwrap();
    // O(1): nothing is listed above the first position not delivered.
    let rest = merged.remainder.as_ref().unwrap();
    assert_eq!((rest.start, rest.done.len()), (3 * 2 * 4, 0));
    for r in 0..4 {
        let resumed: Vec<Vec<usize>> = loader(c, run, (r, 4)).resume(&merged).unwrap().collect();
        let whole: Vec<Vec<usize>> = loader(c, run, (r, 4)).iter().skip(3).collect();
        assert_eq!(resumed, whole, "rank {r}");
    }
}

fn rank(len: usize, seed: u64, shard: (usize, usize)) -> Loader<Numbers> {
    Loader::new(numbers(len), SequentialEx)
        .batch_size(3)
        .shuffle(seed)
        .shard(shard.0, shard.1)
}

fn stopped_states(len: usize, seed: u64, world: usize) -> Vec<LoaderState> {
    (0..world)
        .map(|r| {
            let mut iter = rank(len, seed, (r, world)).iter();
            iter.by_ref().take(r + 1).for_each(drop);
            iter.state()
        })
        .collect()
}

#[test]
fn states_from_other_settings_are_refused_naming_both_sides() {
    let states = stopped_states(40, 7, 3);
    let refused = |l: Loader<Numbers>| l.merge_states(&states).unwrap_err().to_string();
    assert_eq!(
        refused(rank(40, 8, (0, 2))),
        "foldex-loader: cannot resume: the state has seed Some(7), this loader Some(8)"
    );
    assert_eq!(
        refused(rank(41, 7, (0, 2))),
        "foldex-loader: cannot resume: the state has epoch length 40, this loader 41"
    );
    let by_length = Loader::new(numbers(40), SequentialEx)
        .batch_size(3)
        .sampler(ByLength::new(vec![1; 40], 3, 7));
    assert_eq!(
        refused(by_length),
        "foldex-loader: cannot resume: the state has sampler Shuffled, this loader ByLength"
    );
    // In step too, and on resuming a merged state.
    let err = rank(41, 7, (1, 2)).merge_in_step(&states[1]).unwrap_err();
    assert!(
        err.to_string().contains("epoch length 40, this loader 41"),
        "{err}"
    );
    let merged = rank(40, 7, (0, 2)).merge_states(&states).unwrap();
    let err = rank(40, 9, (1, 2)).resume(&merged).map(|_| ()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "foldex-loader: cannot resume: the state has seed Some(7), this loader Some(9)"
    );
    let err = rank(44, 7, (1, 2)).resume(&merged).map(|_| ()).unwrap_err();
    assert!(
        matches!(
            err,
            ResumeError::Mismatch {
                setting: "epoch length",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn states_that_are_not_one_world_are_refused() {
    let three = stopped_states(40, 7, 3);
    let merger = rank(40, 7, (0, 2));
    let inconsistent = |states: &[LoaderState]| match merger.merge_states(states) {
        Err(ResumeError::Inconsistent(why)) => why,
        other => panic!("{other:?}"),
    };
    assert_eq!(inconsistent(&[]), "no state to merge");
    assert_eq!(
        inconsistent(&three[..2]),
        "2 states given, of a world of 3 ranks (rank 0's state says so): merging takes one \
         state of each rank"
    );
    let twice = [three[0].clone(), three[1].clone(), three[1].clone()];
    assert_eq!(inconsistent(&twice), "rank 1's state is given twice");
    let mut mixed = stopped_states(40, 7, 2);
    mixed.push(three[2].clone());
    assert_eq!(
        inconsistent(&mixed[1..]),
        "rank 1's state is of a world of 2 ranks, rank 2's of 3"
    );
    let mut other_epoch = three.clone();
    other_epoch[2].epoch = 1;
    assert_eq!(
        inconsistent(&other_epoch),
        "rank 0's state is of epoch 0, rank 2's of epoch 1"
    );
    // A rank's state from another world resumes nothing: merge first.
    let err = merger.resume(&three[0]).map(|_| ()).unwrap_err();
    assert!(
        err.to_string()
            .contains("rank 0 of 3, this loader rank 0 of 2"),
        "{err}"
    );
    // Unordered ranks are not in step by one state's word.
    let mut early = three[0].clone();
    early.received_above = vec![3];
    let err = rank(40, 7, (0, 3)).merge_in_step(&early).unwrap_err();
    assert!(
        err.to_string().contains("merge every rank's state"),
        "{err}"
    );
    // A world of usize::MAX ranks in step: the ranks beyond the epoch's 40 hold nothing, and
    // merging does not visit them.
    let mut huge = three[0].clone();
    (huge.shard, huge.len) = (Some((0, usize::MAX)), 1);
    let merged = watchdog("a world of usize::MAX", || {
        rank(40, 7, (0, 3)).merge_in_step(&huge).unwrap()
    });
    assert_eq!(merged.remainder.unwrap().count(), 0);
    // A corrupt remainder is named.
    let mut merged = merger.merge_states(&three).unwrap();
    merged.remainder.as_mut().unwrap().done = vec![39, 2];
    let err = merger.resume(&merged).map(|_| ()).unwrap_err();
    assert!(err.to_string().contains("must be ascending"), "{err}");
}

#[test]
fn a_state_taken_after_an_elastic_resumption_resumes_its_own_part() {
    let states = stopped_states(40, 7, 3);
    let merged = rank(40, 7, (0, 2)).merge_states(&states).unwrap();
    let whole: Vec<Vec<usize>> = rank(40, 7, (1, 2)).resume(&merged).unwrap().collect();
    let mut iter = rank(40, 7, (1, 2)).resume(&merged).unwrap();
    let head: Vec<Vec<usize>> = iter.by_ref().take(2).collect();
    let state = iter.state();
    drop(iter);
    assert_eq!(state.remainder, merged.remainder);
    let tail: Vec<Vec<usize>> = rank(40, 7, (1, 2)).resume(&state).unwrap().collect();
    assert_eq!([head, tail].concat(), whole);
    // Another rank of the same world refuses it.
    let err = rank(40, 7, (0, 2)).resume(&state).map(|_| ()).unwrap_err();
    assert!(
        err.to_string()
            .contains("rank 1 of 2, this loader rank 0 of 2"),
        "{err}"
    );
}

#[test]
fn recycled_batches_resume_in_another_world_as_owned_ones_do() {
    let states = stopped_states(40, 7, 3);
    let merged = rank(40, 7, (0, 2)).merge_states(&states).unwrap();
    for r in 0..2 {
        let owned: Vec<Vec<usize>> = rank(40, 7, (r, 2)).resume(&merged).unwrap().collect();
        let reused = rank(40, 7, (r, 2)).reuse_buffers(true);
        let recycled: Vec<Vec<usize>> = reused
            .resume(&merged)
            .unwrap()
            .map(|batch| batch.to_vec())
            .collect();
        assert_eq!(recycled, owned, "rank {r}");
        assert!(!owned.is_empty());
    }
}
