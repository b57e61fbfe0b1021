//! Views, splits, folds, filters and resampling: exactly once (or the documented counts),
//! loaded through a loader on every executor, against the same computed with `std::iter`.

use foldex_auto::AutoEx;
use foldex_core::Executor;
use foldex_data::{view::Subset, DataError, DatasetExt};
use foldex_dataset::{from_fn, sampler::Weighted, Dataset, FromFn};
use foldex_loader::Loader;
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_threaded::ThreadedEx;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::sync::{Arc, OnceLock};

fn executors() -> &'static [(&'static str, Arc<dyn Executor>)] {
    static ALL: OnceLock<Vec<(&'static str, Arc<dyn Executor>)>> = OnceLock::new();
    ALL.get_or_init(|| {
        vec![
            ("SequentialEx", Arc::new(SequentialEx) as Arc<dyn Executor>),
            ("ThreadedEx", Arc::new(ThreadedEx::new().basesize(1))),
            (
                "TaskPoolEx",
                Arc::new(TaskPoolEx::new().ntasks(3).basesize(2)),
            ),
            ("AutoEx", Arc::new(AutoEx::new())),
        ]
    })
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    })
}

type Numbers = FromFn<fn(usize) -> usize>;

fn numbers(len: usize) -> Numbers {
    from_fn(len, std::convert::identity as fn(usize) -> usize)
}

/// Everything a loader on `executor` delivers from `dataset` in one epoch, in order.
fn loaded<D>(executor: &Arc<dyn Executor>, dataset: D) -> Vec<usize>
where
    D: Dataset<Item = usize> + 'static,
{
    Loader::new(dataset, Arc::clone(executor))
        .batch_size(3)
        .iter()
        .flatten()
        .collect()
}

fn lengths() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(1),
        Just(2),
        Just(13),
        Just(97),
        0usize..400
    ]
}

#[test]
fn views_read_what_std_iter_reads() {
    let cases = (lengths(), 0..executors().len(), 0usize..50, any::<u64>());
    runner()
        .run(&cases, |(len, ex, n, seed)| {
            let (name, executor) = &executors()[ex];
            let all: Vec<usize> = (0..len).collect();
            prop_assert_eq!(
                loaded(executor, numbers(len).take(n)),
                all.iter().copied().take(n).collect::<Vec<_>>(),
                "{}",
                name
            );
            prop_assert_eq!(
                loaded(executor, numbers(len).skip(n)),
                all.iter().copied().skip(n).collect::<Vec<_>>(),
                "{}",
                name
            );
            let chained = numbers(len).chain(numbers(n));
            prop_assert_eq!(
                loaded(executor, chained),
                all.iter().copied().chain(0..n).collect::<Vec<_>>(),
                "{}",
                name
            );
            let picks: Vec<usize> = (0..n)
                .map(|k| (k * 7 + seed as usize % 5) % len.max(1))
                .filter(|_| len > 0)
                .collect();
            let subset = numbers(len).subset(picks.clone()).unwrap();
            prop_assert_eq!(loaded(executor, subset), picks, "{}", name);
            let keep = move |x: &usize| (x ^ seed as usize).is_multiple_of(3);
            let filtered = numbers(len).filter(&**executor, keep);
            prop_assert_eq!(
                loaded(executor, filtered),
                all.iter().copied().filter(keep).collect::<Vec<_>>(),
                "{}",
                name
            );
            let zipped = numbers(len).zip(from_fn(len, |i| i * 2)).unwrap();
            let pairs: Vec<(usize, usize)> = Loader::new(zipped, Arc::clone(executor))
                .unbatched()
                .iter()
                .collect();
            prop_assert_eq!(
                pairs,
                all.iter().map(|&i| (i, 2 * i)).collect::<Vec<_>>(),
                "{}",
                name
            );
            Ok(())
        })
        .unwrap();
}

#[test]
fn splits_and_folds_hold_each_observation_exactly_once() {
    let fractions = prop_oneof![
        Just(vec![1.0]),
        Just(vec![0.8, 0.2]),
        Just(vec![0.7, 0.2, 0.1]),
        Just(vec![0.25; 4]),
        Just(vec![0.5, 0.0, 0.5]),
    ];
    let cases = (
        lengths(),
        0..executors().len(),
        fractions,
        2usize..7,
        any::<u64>(),
    );
    runner()
        .run(&cases, |(len, ex, fractions, k, seed)| {
            let (name, executor) = &executors()[ex];
            let parts = numbers(len).random_split(&fractions, seed).unwrap();
            let mut seen: Vec<usize> = Vec::new();
            for (part, fraction) in parts.iter().zip(&fractions) {
                let got = loaded(executor, part.clone());
                prop_assert!(
                    (got.len() as f64 - fraction * len as f64).abs() < fractions.len() as f64
                );
                seen.extend(got);
            }
            seen.sort_unstable();
            prop_assert_eq!(
                &seen,
                &(0..len).collect::<Vec<_>>(),
                "{}: random_split",
                name
            );

            let labels: Vec<u8> = (0..len)
                .map(|i| (i % 3 == 0) as u8 + (i % 7 == 0) as u8)
                .collect();
            let parts = numbers(len)
                .stratified_split(&fractions, &labels, seed)
                .unwrap();
            let mut seen: Vec<usize> = parts
                .iter()
                .flat_map(|p| loaded(executor, p.clone()))
                .collect();
            seen.sort_unstable();
            prop_assert_eq!(
                &seen,
                &(0..len).collect::<Vec<_>>(),
                "{}: stratified_split",
                name
            );
            for (part, fraction) in parts.iter().zip(&fractions) {
                for class in 0..3u8 {
                    let in_class = labels.iter().filter(|&&l| l == class).count() as f64;
                    let in_part = part
                        .source_indices()
                        .iter()
                        .filter(|&&i| labels[i] == class)
                        .count() as f64;
                    prop_assert!(
                        (in_part - fraction * in_class).abs() < fractions.len() as f64,
                        "class {} in a part",
                        class
                    );
                }
            }

            if (2..=len).contains(&k) {
                let folds = numbers(len).k_folds(k, seed).unwrap();
                let mut validated: Vec<usize> = Vec::new();
                for fold in &folds {
                    let validation = loaded(executor, fold.validation.clone());
                    let mut both: Vec<usize> = loaded(executor, fold.train.clone());
                    prop_assert!(
                        validation.len() >= len / k && validation.len() <= len.div_ceil(k)
                    );
                    both.extend(&validation);
                    both.sort_unstable();
                    prop_assert_eq!(&both, &(0..len).collect::<Vec<_>>(), "{}: a fold", name);
                    validated.extend(validation);
                }
                validated.sort_unstable();
                prop_assert_eq!(
                    validated,
                    (0..len).collect::<Vec<_>>(),
                    "{}: the folds' validations",
                    name
                );
            } else {
                let refused = matches!(numbers(len).k_folds(k, seed), Err(DataError::Folds { .. }));
                prop_assert!(refused);
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn resampling_balances_the_classes() {
    let cases = (lengths(), 0..executors().len(), 1u8..5, any::<u64>());
    runner()
        .run(&cases, |(len, ex, classes, seed)| {
            let (name, executor) = &executors()[ex];
            // Class c holds the indices i with i % (c + 2) == 0 first: uneven sizes.
            let labels: Vec<u8> = (0..len)
                .map(|i| {
                    (0..classes)
                        .find(|&c| i % (c as usize + 2) == 0)
                        .unwrap_or(classes)
                })
                .collect();
            let count = |indices: &[usize], class: u8| {
                indices.iter().filter(|&&i| labels[i] == class).count()
            };
            let present: Vec<u8> = (0..=classes).filter(|&c| labels.contains(&c)).collect();
            let sizes: Vec<usize> = present
                .iter()
                .map(|&c| count(&(0..len).collect::<Vec<_>>(), c))
                .collect();

            let over = loaded(executor, numbers(len).oversample(&labels, seed).unwrap());
            let largest = sizes.iter().copied().max().unwrap_or(0);
            for &c in &present {
                prop_assert_eq!(
                    count(&over, c),
                    largest,
                    "{}: oversampled class {}",
                    name,
                    c
                );
            }
            let mut distinct = over.clone();
            distinct.dedup();
            prop_assert_eq!(
                distinct,
                (0..len).collect::<Vec<_>>(),
                "every observation kept"
            );

            let under = loaded(executor, numbers(len).undersample(&labels, seed).unwrap());
            let smallest = sizes.iter().copied().min().unwrap_or(0);
            for &c in &present {
                prop_assert_eq!(
                    count(&under, c),
                    smallest,
                    "{}: undersampled class {}",
                    name,
                    c
                );
            }
            prop_assert!(
                under.windows(2).all(|w| w[0] < w[1]),
                "distinct and in order"
            );
            Ok(())
        })
        .unwrap();
}

#[test]
fn bad_arguments_are_named() {
    let err = numbers(5).subset(vec![0, 4, 5]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "indices[2] is 5, beyond a dataset of length 5"
    );
    let err = numbers(1).subset(vec![1]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "indices[0] is 1, beyond a dataset of length 1"
    );
    let err = numbers(5).random_split(&[0.6, 0.3], 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "fractions [0.6, 0.3] must each be in [0, 1] and sum to 1"
    );
    let err = numbers(5).k_folds(6, 1).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("k = 6 folds of a dataset of length 5"),
        "{err}"
    );
    let err = numbers(1).k_folds(2, 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "k = 2 folds of a dataset of length 1: k must be at least 2 and at most the dataset's \
         length"
    );
    assert!(numbers(5).k_folds(1, 1).is_err());
    let err = numbers(5).zip(numbers(4)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "zip: 4 given for a dataset of length 5; the lengths must be equal"
    );
    let err = numbers(1).zip(numbers(2)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "zip: 2 given for a dataset of length 1; the lengths must be equal"
    );
    let err = numbers(5).oversample(&[1, 2], 0).unwrap_err();
    assert!(err.to_string().starts_with("labels: 2 given"), "{err}");
}

#[test]
fn resuming_a_split_under_a_sampler_gives_the_same_remaining_batches() {
    let parts = numbers(500).random_split(&[0.8, 0.2], 3).unwrap();
    let train: Subset<Numbers> = parts[0].clone();
    let weights: Vec<f64> = (0..train.len()).map(|i| 1.0 + (i % 5) as f64).collect();
    let loader = || {
        Loader::new(train.clone(), ThreadedEx::new().basesize(1))
            .batch_size(16)
            .sampler(Weighted::with_replacement(weights.clone(), 300, 9).unwrap())
    };
    let whole: Vec<Vec<usize>> = loader().iter().collect();
    let first = loader();
    let mut iter = first.iter();
    let mut got: Vec<Vec<usize>> = iter.by_ref().take(5).collect();
    let state = iter.state();
    drop(iter);
    got.extend(loader().resume(&state).unwrap());
    assert_eq!(got, whole);
    assert!(whole
        .iter()
        .flatten()
        .all(|i| train.source_indices().contains(i)));
}

#[test]
fn stratified_parts_keep_the_fractions_when_every_class_is_small() {
    let sizes = |labels: &[usize], fractions: &[f64]| -> Vec<usize> {
        let parts = numbers(labels.len())
            .stratified_split(fractions, labels, 1)
            .unwrap();
        parts.iter().map(Dataset::len).collect()
    };
    let triples: Vec<usize> = (0..300).map(|i| i / 3).collect();
    assert_eq!(sizes(&triples, &[0.5, 0.5]), vec![150, 150]);
    let singletons: Vec<usize> = (0..10).collect();
    assert_eq!(sizes(&singletons, &[0.5, 0.5]), vec![5, 5]);
    assert_eq!(sizes(&singletons, &[0.8, 0.2]), vec![8, 2]);
}
