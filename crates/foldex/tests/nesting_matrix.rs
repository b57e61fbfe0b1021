//! The nesting matrix: every ordered pair and triple of executors, a fold nested in `step`, in
//! `combine` and in a loader's `get`, and `spawn_fold` joined or dropped inside a step. Each
//! case must finish (under a watchdog), never abort, and give the sequential answer.
//!
//! The executors: `SequentialEx`, `ThreadedEx` on the global pool and on a second pool of its
//! own, and `TaskPoolEx` in foreground and background mode, each with basesize 1 so that every
//! fold splits as far as it can. The pools are shared by all cases, as a program's would be.
use foldex::prelude::*;
use foldex_testkit::watchdog;
use std::sync::{Arc, OnceLock};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Sequential,
    ThreadedGlobal,
    ThreadedOwn,
    PoolForeground,
    PoolBackground,
}

const KINDS: [Kind; 5] = [
    Kind::Sequential,
    Kind::ThreadedGlobal,
    Kind::ThreadedOwn,
    Kind::PoolForeground,
    Kind::PoolBackground,
];

fn executor(kind: Kind) -> Arc<dyn Executor> {
    static EXECUTORS: OnceLock<Vec<Arc<dyn Executor>>> = OnceLock::new();
    let all = EXECUTORS.get_or_init(|| {
        vec![
            Arc::new(SequentialEx),
            Arc::new(ThreadedEx::new().basesize(1)),
            Arc::new(ThreadedEx::new().threads(2).basesize(1)),
            Arc::new(TaskPoolEx::new().ntasks(2).basesize(1).background(false)),
            Arc::new(TaskPoolEx::new().ntasks(3).basesize(1).background(true)),
        ]
    });
    let at = KINDS.iter().position(|&k| k == kind).expect("a kind");
    Arc::clone(&all[at])
}

/// Every chain of `depth` executors.
fn chains(depth: usize) -> Vec<Vec<Kind>> {
    (0..depth).fold(vec![vec![]], |chains, _| {
        chains
            .iter()
            .flat_map(|chain| {
                KINDS.iter().map(move |&k| {
                    let mut longer = chain.clone();
                    longer.push(k);
                    longer
                })
            })
            .collect()
    })
}

/// Items per level: enough to split on every executor, small enough that triples stay quick.
const OUTER: usize = 24;

/// The sum over `0..n` of the next level's value at `i % 7`, folded on `chain[0]` with the
/// inner level inside `step`; the innermost level is `0..n` summed.
fn nested_in_step(chain: &[Kind], n: usize) -> usize {
    match chain.split_first() {
        None => (0..n).sum(),
        Some((&first, rest)) => executor(first).map_reduce(
            0..n,
            |i| nested_in_step(rest, i % 7) + i,
            || 0,
            |a, b| a + b,
        ),
    }
}

/// The same numbers with `SequentialEx` at every level.
fn expected(depth: usize, n: usize) -> usize {
    nested_in_step(&vec![Kind::Sequential; depth], n)
}

/// The sum of `0..n` on `chain[0]`, whose `combine` runs the next level and checks its answer
/// (adding nothing, so that `combine` stays associative with `0` as its identity).
fn nested_in_combine(chain: &[Kind], n: usize) -> usize {
    match chain.split_first() {
        None => (0..n).sum(),
        Some((&first, rest)) => {
            let want: usize = (0..5).sum();
            executor(first).fold(
                0..n,
                || 0,
                |acc, i| acc + i,
                |a, b| {
                    assert_eq!(nested_in_combine(rest, 5), want, "inner fold in combine");
                    a + b
                },
            )
        }
    }
}

/// A loader on `chain[0]` whose `get` runs the rest of the chain as nested folds.
fn nested_in_get(chain: &[Kind], n: usize) -> usize {
    let (&first, rest) = chain.split_first().expect("a loader needs an executor");
    let rest = rest.to_vec();
    let loader = Loader::new(
        foldex::from_fn(n, move |i| nested_in_step(&rest, i % 7) + i),
        executor(first),
    )
    .batch_size(3)
    .buffer(2);
    loader.iter().flatten().sum()
}

fn all_cases(depth: usize) {
    for chain in chains(depth) {
        watchdog(&format!("nesting {chain:?}"), || {
            assert_eq!(
                nested_in_step(&chain, OUTER),
                expected(depth, OUTER),
                "{chain:?}: inner folds in step"
            );
            assert_eq!(
                nested_in_combine(&chain, OUTER),
                (0..OUTER).sum::<usize>(),
                "{chain:?}: inner folds in combine"
            );
            assert_eq!(
                nested_in_get(&chain, OUTER),
                expected(depth, OUTER),
                "{chain:?}: inner folds in a loader's get"
            );
        });
    }
}

#[test]
fn pairs_of_executors_nest() {
    all_cases(2);
}

#[test]
fn triples_of_executors_nest() {
    all_cases(3);
}

/// A fold spawned inside a step of another (or the same) executor, joined there or dropped
/// there, for every pair: the step's thread may be the only one left to run it.
#[test]
fn spawned_folds_joined_or_dropped_inside_a_step() {
    for outer in KINDS {
        for inner in KINDS {
            watchdog(&format!("spawn_fold on {inner:?} inside {outer:?}"), || {
                let spawner = executor(inner);
                let total = executor(outer).map_reduce(
                    0..8,
                    |i| {
                        let joined = spawner
                            .spawn_fold(0..i * 10, || 0, |a, x| a + x, |a, b| a + b)
                            .join();
                        drop(spawner.spawn_fold(0..100usize, || 0, |a, x| a + x, |a, b| a + b));
                        joined
                    },
                    || 0,
                    |a, b| a + b,
                );
                let want: usize = (0..8).map(|i| (0..i * 10).sum::<usize>()).sum();
                assert_eq!(total, want, "spawn_fold on {inner:?} inside {outer:?}");
            });
        }
    }
}
