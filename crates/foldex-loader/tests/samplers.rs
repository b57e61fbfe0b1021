//! Samplers on every executor: exactly once where they promise it, the documented
//! distribution where they draw, sharding after the sampler, and exact resumption.

mod common;

use common::executors;
use foldex_dataset::{
    from_fn, sampler::ByLength, sampler::Shuffled, sampler::Weighted, EpochOrder, Sampler, Tail,
};
use foldex_loader::{IterError, Loader};
use foldex_threaded::ThreadedEx;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::sync::Arc;

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// Each epoch's indices, in order.
type Epochs = Vec<Vec<usize>>;

/// Every index the loader delivers in each of `epochs` epochs, in delivery order.
fn delivered<S: Sampler + Clone + 'static>(
    executor: &Arc<dyn foldex_core::Executor>,
    len: usize,
    sampler: &S,
    batch_size: usize,
    epochs: usize,
) -> Epochs {
    let loader = Loader::new(from_fn(len, |i| i), Arc::clone(executor))
        .batch_size(batch_size)
        .sampler(sampler.clone());
    (0..epochs)
        .map(|_| loader.iter().flatten().collect())
        .collect()
}

#[test]
fn orders_are_delivered_exactly_on_every_executor() {
    let lengths = prop_oneof![
        Just(0usize),
        Just(1),
        Just(2),
        Just(13),
        Just(97),
        0usize..600
    ];
    let cases = (lengths, 0..executors().len(), 1usize..=12, any::<u64>());
    runner(64)
        .run(&cases, |(len, ex, batch, seed)| {
            let (name, executor) = &executors()[ex];
            let bucket = ByLength::new(
                (0..len).map(|i| i * 31 % 17).collect::<Vec<_>>(),
                batch,
                seed,
            )
            .pool_batches(3);
            let weights: Vec<f64> = (0..len).map(|i| (i % 4) as f64).collect();
            let positive = weights.iter().filter(|&&w| w > 0.0).count();
            let orders: Vec<(Epochs, Epochs)> = vec![
                (
                    delivered(executor, len, &Shuffled::new(seed), batch, 2),
                    (0..2)
                        .map(|e| EpochOrder::new(len, Some(seed), e).iter().collect())
                        .collect(),
                ),
                (
                    delivered(executor, len, &bucket, batch, 2),
                    (0..2)
                        .map(|e| bucket.order(len, e).iter().collect())
                        .collect(),
                ),
            ];
            for (got, expected) in orders {
                prop_assert_eq!(&got, &expected, "{}", name);
                for epoch in got {
                    let mut sorted = epoch;
                    sorted.sort_unstable();
                    prop_assert_eq!(
                        sorted,
                        (0..len).collect::<Vec<_>>(),
                        "{}: exactly once",
                        name
                    );
                }
            }
            if positive > 0 {
                let samples = len / 2 + 1;
                let with = Weighted::with_replacement(weights.clone(), samples, seed).unwrap();
                let got = delivered(executor, len, &with, batch, 1).remove(0);
                prop_assert_eq!(got.len(), samples);
                prop_assert!(got.iter().all(|&i| weights[i] > 0.0), "{}", name);
                let take = samples.min(positive);
                let without = Weighted::without_replacement(weights.clone(), take, seed).unwrap();
                let mut got = delivered(executor, len, &without, batch, 1).remove(0);
                got.sort_unstable();
                got.dedup();
                prop_assert_eq!(got.len(), take, "{}: drawn without replacement", name);
                prop_assert!(got.iter().all(|&i| weights[i] > 0.0), "{}", name);
            }
            Ok(())
        })
        .unwrap();
}

/// Pearson's statistic of `counts` against `expected` (categories with an expectation only).
fn chi_square(counts: &[usize], expected: &[f64]) -> f64 {
    counts
        .iter()
        .zip(expected)
        .filter(|&(_, &e)| e > 0.0)
        .map(|(&c, &e)| (c as f64 - e).powi(2) / e)
        .sum()
}

/// The 0.999 quantile of the chi-square distribution with 4 degrees of freedom: a correct
/// sampler exceeds it with probability 1/1000 per seed.
const CHI2_4_DF_999: f64 = 18.467;

const WEIGHTS: [f64; 6] = [1.0, 2.0, 0.0, 3.0, 4.0, 10.0];

#[test]
fn weighted_draws_with_replacement_follow_the_weights() {
    let total: f64 = WEIGHTS.iter().sum();
    let draws = 20_000;
    let expected: Vec<f64> = WEIGHTS.iter().map(|w| w / total * draws as f64).collect();
    for seed in 0..3 {
        let sampler = Weighted::with_replacement(WEIGHTS, draws, seed).unwrap();
        for (name, executor) in executors() {
            let got = delivered(executor, WEIGHTS.len(), &sampler, 64, 1).remove(0);
            let mut counts = [0usize; 6];
            got.iter().for_each(|&i| counts[i] += 1);
            assert_eq!(counts[2], 0, "{name}: a weight of 0 drawn");
            let stat = chi_square(&counts, &expected);
            assert!(
                stat < CHI2_4_DF_999,
                "{name}, seed {seed}: chi-square {stat:.2} (4 df) for {counts:?} against {expected:?}"
            );
        }
    }
}

#[test]
fn weighted_draws_without_replacement_start_with_each_index_by_its_weight() {
    // The first draw of an epoch is index i with probability w_i / sum(w).
    let total: f64 = WEIGHTS.iter().sum();
    let epochs = 4_000;
    let expected: Vec<f64> = WEIGHTS.iter().map(|w| w / total * epochs as f64).collect();
    let sampler = Weighted::without_replacement(WEIGHTS, 3, 11).unwrap();
    let mut counts = [0usize; 6];
    for epoch in 0..epochs as u64 {
        let order: Vec<usize> = sampler.order(WEIGHTS.len(), epoch).iter().collect();
        counts[order[0]] += 1;
        let mut distinct = order.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 3, "{order:?}");
    }
    let stat = chi_square(&counts, &expected);
    assert!(stat < CHI2_4_DF_999, "chi-square {stat:.2} for {counts:?}");
    // The loader delivers those orders on every executor.
    for (name, executor) in executors() {
        let got = delivered(executor, WEIGHTS.len(), &sampler, 2, 3);
        let expected: Vec<Vec<usize>> = (0..3)
            .map(|e| sampler.order(WEIGHTS.len(), e).iter().collect())
            .collect();
        assert_eq!(got, expected, "{name}");
    }
}

#[test]
fn ranks_share_the_samplers_order_between_them() {
    let weights: Vec<f64> = (0..50).map(|i| 1.0 + (i % 3) as f64).collect();
    let sampler = Weighted::with_replacement(weights, 77, 5).unwrap();
    let order: Vec<usize> = sampler.order(50, 0).iter().collect();
    let mut dealt = vec![None; 77];
    for rank in 0..3 {
        let loader = Loader::new(from_fn(50, |i| i), ThreadedEx::new().basesize(1))
            .sampler(sampler.clone())
            .shard(rank, 3)
            .shard_tail(Tail::Uneven)
            .unbatched();
        for (k, index) in loader.iter().enumerate() {
            let position = rank + 3 * k;
            assert!(dealt[position].replace(index).is_none());
        }
    }
    let dealt: Vec<usize> = dealt.into_iter().map(Option::unwrap).collect();
    assert_eq!(
        dealt, order,
        "the ranks' parts are the order, position by position"
    );
}

#[test]
fn resuming_mid_epoch_with_a_sampler_gives_the_same_remaining_batches() {
    let lengths: Vec<usize> = (0..200).map(|i| i * 13 % 29).collect();
    let loader = || {
        Loader::new(from_fn(200, |i| i), ThreadedEx::new().basesize(1))
            .batch_size(8)
            .sampler(ByLength::new(lengths.clone(), 8, 21).pool_batches(2))
    };
    let whole: Vec<Vec<usize>> = {
        let l = loader();
        l.iter().for_each(drop);
        l.iter().collect()
    };
    let first = loader();
    first.iter().for_each(drop);
    let mut epoch1 = first.iter();
    let mut got: Vec<Vec<usize>> = epoch1.by_ref().take(7).collect();
    let state = epoch1.state();
    drop(epoch1);
    got.extend(loader().resume(&state).unwrap());
    assert_eq!(got, whole);
    // Another sampler seed is refused by name.
    let other = Loader::new(from_fn(200, |i| i), ThreadedEx::new().basesize(1))
        .batch_size(8)
        .sampler(ByLength::new(lengths.clone(), 8, 22));
    let err = other.resume(&state).unwrap_err();
    assert!(err.to_string().contains("seed"), "{err}");
}

#[test]
fn an_order_that_does_not_fit_is_refused_before_the_epoch_starts() {
    struct OffByOne;
    impl Sampler for OffByOne {
        fn order(&self, len: usize, _: u64) -> EpochOrder {
            EpochOrder::listed((1..=len).collect())
        }
    }
    let loader = Loader::new(from_fn(5, |i| i), ThreadedEx::new().basesize(1)).sampler(OffByOne);
    match loader.try_iter() {
        Err(IterError::Sampler(why)) => assert!(
            why.contains("visits index 5, beyond a dataset of length 5"),
            "{why}"
        ),
        other => panic!("expected a sampler error, got {:?}", other.map(|_| ())),
    }
    assert_eq!(
        loader.next_epoch(),
        0,
        "a refused order leaves its epoch number"
    );
    let short_weights = Weighted::with_replacement(vec![1.0; 4], 10, 0).unwrap();
    let err = Loader::new(from_fn(5, |i| i), ThreadedEx::new().basesize(1))
        .sampler(short_weights)
        .try_iter()
        .map(|_| ())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "foldex-loader: Weighted needs one weight per observation: 4 given for a dataset of \
         length 5"
    );
    let panicked = std::panic::catch_unwind(|| {
        Loader::new(from_fn(5, |i| i), ThreadedEx::new().basesize(1))
            .sampler(OffByOne)
            .iter()
            .count()
    });
    assert!(panicked.is_err(), "iter() panics with the same message");
}
