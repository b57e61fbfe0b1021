//! Error policies for fallible datasets: fail fast, skip and record, retry.

mod common;

use foldex_dataset::{from_fn, ItemError};
use foldex_loader::{Checked, ErrorPolicy, Loader};
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

fn corrupt_every_seventh(i: usize) -> Result<usize, String> {
    if i % 7 == 3 {
        Err(format!("file {i} is corrupt"))
    } else {
        Ok(i)
    }
}

#[test]
fn skip_leaves_failures_out_and_records_them() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            let loader = Loader::new(
                Checked::new(from_fn(100, corrupt_every_seventh), ErrorPolicy::skip()),
                Arc::clone(executor),
            )
            .batch_size(4)
            .shuffle(3);
            let mut iter = loader.iter();
            assert_eq!(iter.len(), 25);
            let batches: Vec<Vec<usize>> = iter.by_ref().collect();
            assert_eq!(
                batches.len(),
                25,
                "{name}: every batch arrives, some shorter"
            );
            let mut got: Vec<usize> = batches.concat();
            got.sort_unstable();
            assert_eq!(
                got,
                (0..100).filter(|i| i % 7 != 3).collect::<Vec<_>>(),
                "{name}"
            );
            let stats = iter.stats();
            let skipped: Vec<(usize, String)> = stats
                .skipped
                .iter()
                .map(|s| (s.index, s.error.clone()))
                .collect();
            let expected: Vec<(usize, String)> = (0..100)
                .filter(|i| i % 7 == 3)
                .map(|i| (i, format!("file {i} is corrupt")))
                .collect();
            assert_eq!(skipped, expected, "{name}");
            assert!(
                stats.to_string().contains("14 observations skipped"),
                "{stats}"
            );
        });
    }
}

#[test]
#[cfg(panic = "unwind")]
fn fail_fast_stops_the_epoch_with_the_error_as_payload() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            let loader = Loader::new(
                Checked::new(
                    from_fn(100, corrupt_every_seventh),
                    ErrorPolicy::fail_fast(),
                ),
                Arc::clone(executor),
            )
            .batch_size(2);
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loader.iter().count()));
            let payload = outcome.expect_err("the first failure stops the epoch");
            let error = payload
                .downcast_ref::<ItemError<String>>()
                .expect("the payload is the ItemError");
            assert_eq!(error.index % 7, 3, "{name}");
            assert_eq!(
                error.error,
                format!("file {} is corrupt", error.index),
                "{name}"
            );
        });
    }
}

/// Index `i` fails its first `i % 4` attempts.
fn flaky() -> impl foldex_dataset::Dataset<Item = Result<usize, String>> {
    let attempts = Mutex::new(HashMap::<usize, usize>::new());
    from_fn(60, move |i| {
        let mut attempts = attempts.lock().unwrap();
        let n = attempts.entry(i).or_insert(0);
        *n += 1;
        if *n <= i % 4 {
            Err(format!("attempt {n} of {i} timed out"))
        } else {
            Ok(i)
        }
    })
}

#[test]
fn retry_recovers_flaky_loads_and_counts_the_retries() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            let loader = Loader::new(
                Checked::new(flaky(), ErrorPolicy::retry(3)),
                Arc::clone(executor),
            )
            .batch_size(5);
            let mut iter = loader.iter();
            let got: Vec<usize> = iter.by_ref().flatten().collect();
            assert_eq!(got, (0..60).collect::<Vec<_>>(), "{name}");
            let stats = iter.stats();
            assert_eq!(
                stats.retries,
                (0..60).map(|i| i % 4).sum::<usize>() as u64,
                "{name}"
            );
            assert!(stats.skipped.is_empty());
        });
    }
}

#[test]
fn too_few_retries_then_skip() {
    let loader = Loader::new(
        Checked::new(flaky(), ErrorPolicy::retry(1).then_skip()),
        ThreadedEx::new().basesize(1),
    )
    .batch_size(5);
    let mut iter = loader.iter();
    let got: Vec<usize> = iter.by_ref().flatten().collect();
    assert_eq!(got, (0..60).filter(|i| i % 4 <= 1).collect::<Vec<_>>());
    let skipped: Vec<usize> = iter.stats().skipped.iter().map(|s| s.index).collect();
    assert_eq!(skipped, (0..60).filter(|i| i % 4 > 1).collect::<Vec<_>>());
}

#[test]
fn policies_compose_as_documented() {
    assert_eq!(ErrorPolicy::default(), ErrorPolicy::fail_fast());
    assert!(!ErrorPolicy::retry(2).skips());
    assert_eq!(ErrorPolicy::retry(2).then_skip().retries(), 2);
    assert!(ErrorPolicy::skip().skips());
}

#[test]
fn a_batch_of_skipped_observations_arrives_empty() {
    let loader = Loader::new(
        Checked::new(
            from_fn(6, |i| if i < 3 { Err("gone") } else { Ok(i) }),
            ErrorPolicy::skip(),
        ),
        ThreadedEx::new().basesize(1),
    )
    .batch_size(3);
    assert_eq!(
        loader.iter().collect::<Vec<_>>(),
        vec![vec![], vec![3, 4, 5]]
    );
}

#[test]
fn unbatched_skipped_observations_are_not_delivered() {
    for (name, executor) in common::executors() {
        watchdog(name, || {
            let data = Checked::new(from_fn(50, corrupt_every_seventh), ErrorPolicy::skip());
            let mut got: Vec<usize> =
                foldex_loader::eachobsparallel(data, Arc::clone(executor)).collect();
            got.sort_unstable();
            assert_eq!(
                got,
                (0..50).filter(|i| i % 7 != 3).collect::<Vec<_>>(),
                "{name}"
            );
            let reused = Loader::new(
                Checked::new(from_fn(50, corrupt_every_seventh), ErrorPolicy::skip()),
                Arc::clone(executor),
            )
            .unbatched()
            .reuse_buffers(true);
            let in_order: Vec<usize> = reused.iter().map(|i| *i).collect();
            assert_eq!(
                in_order,
                (0..50).filter(|i| i % 7 != 3).collect::<Vec<_>>(),
                "{name}"
            );
        });
    }
}
