//! Settings far beyond what an epoch can use: a buffer of 2^40 or `usize::MAX`, a shuffled
//! dataset of 2^40 observations, an executor that reports `usize::MAX` workers. Nothing is
//! allocated in proportion to them up front: each works, or is refused with an error that
//! names the setting, and the process never aborts.

use foldex_core::{Executor, Job, Partial};
use foldex_dataset::from_fn;
use foldex_loader::{IterError, Loader, MAX_BUFFER};
use foldex_seq::SequentialEx;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;

/// `SequentialEx` that claims more workers than any machine has.
struct Boastful;

impl Executor for Boastful {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        SequentialEx.execute(job)
    }

    fn workers(&self) -> usize {
        usize::MAX
    }
}

#[test]
fn a_buffer_of_two_to_the_40_is_sized_by_the_epoch() {
    watchdog("buffer 2^40", || {
        for ordered in [true, false] {
            let loader = Loader::new(from_fn(100, |i| i), ThreadedEx::new().basesize(1))
                .buffer(1 << 40)
                .ordered(ordered);
            assert_eq!(loader.buffer_size(), 1 << 40);
            for _epoch in 0..3 {
                let mut got: Vec<usize> = loader.iter().flatten().collect();
                got.sort_unstable();
                assert_eq!(got, (0..100).collect::<Vec<_>>(), "ordered = {ordered}");
            }
        }
    });
}

#[test]
fn a_buffer_of_usize_max_works_with_and_without_buffer_reuse() {
    watchdog("buffer usize::MAX", || {
        let loader = Loader::new(from_fn(50, |i| i), ThreadedEx::new().basesize(1))
            .batch_size(3)
            .buffer(usize::MAX);
        let got: Vec<usize> = loader.iter().flatten().collect();
        assert_eq!(got, (0..50).collect::<Vec<_>>());
        let reused = Loader::new(from_fn(50, |i| i), ThreadedEx::new().basesize(1))
            .batch_size(3)
            .buffer(usize::MAX)
            .reuse_buffers(true);
        for _epoch in 0..2 {
            let got: Vec<usize> = reused.iter().flat_map(|b| b.to_vec()).collect();
            assert_eq!(got, (0..50).collect::<Vec<_>>());
        }
    });
}

#[test]
fn a_batch_size_of_usize_max_makes_one_batch_of_the_whole_dataset() {
    let loader = Loader::new(from_fn(10, |i| i), SequentialEx).batch_size(usize::MAX);
    assert_eq!(loader.len(), 1);
    assert_eq!(
        loader.iter().collect::<Vec<_>>(),
        vec![(0..10).collect::<Vec<_>>()]
    );
    assert_eq!(loader.partial(false).len(), 0);
}

#[test]
fn an_executor_that_reports_usize_max_workers_gets_a_default_buffer_that_works() {
    watchdog("usize::MAX workers", || {
        let loader = Loader::new(from_fn(40, |i| i), Boastful);
        assert_eq!(
            loader.buffer_size(),
            MAX_BUFFER,
            "twice the workers, at most MAX_BUFFER"
        );
        let got: Vec<usize> = loader.iter().flatten().collect();
        assert_eq!(got, (0..40).collect::<Vec<_>>());
        let reused = Loader::new(from_fn(40, |i| i), Boastful).reuse_buffers(true);
        let got: Vec<usize> = reused.iter().flat_map(|b| b.to_vec()).collect();
        assert_eq!(got, (0..40).collect::<Vec<_>>());
        let stats = loader.iter().stats();
        assert_eq!(stats.buffer, 40, "the buffer in use is the epoch's");
        // The default buffer is never refused, however large the epoch.
        let huge = Loader::new(from_fn(1 << 40, |i| i), Boastful);
        assert_eq!(
            huge.iter().take(3).flatten().collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
    });
}

#[test]
fn a_shuffled_dataset_of_two_to_the_40_observations_starts_at_once() {
    watchdog("shuffle 2^40", || {
        let len = 1usize << 40;
        let loader = Loader::new(from_fn(len, |i| i), ThreadedEx::new().basesize(1))
            .batch_size(4)
            .shuffle(42);
        let order = loader.epoch_order(0);
        let batches: Vec<Vec<usize>> = loader.iter().take(3).collect();
        let expected: Vec<usize> = (0..12).map(|p| order.get(p)).collect();
        assert_eq!(batches.concat(), expected);
        assert!(expected.iter().all(|&i| i < len));
        let mut distinct = expected.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 12);
    });
}

#[test]
fn a_dataset_of_usize_max_observations_loads_in_batches_and_shards() {
    watchdog("usize::MAX observations", || {
        let loader = Loader::new(from_fn(usize::MAX, |i| i), SequentialEx)
            .batch_size(1 << 10)
            .shuffle(1)
            .shard(2, 3);
        let order = loader.epoch_order(0);
        let first = loader.iter().next().expect("a first batch");
        let expected: Vec<usize> = (0..1 << 10).map(|p| order.get(2 + 3 * p)).collect();
        assert_eq!(first, expected);
    });
}

#[test]
fn an_epoch_of_more_batches_than_a_channel_can_number_is_refused_by_name() {
    let loader = Loader::new(from_fn(usize::MAX, |i| i), SequentialEx);
    let err = loader.try_iter().expect_err("usize::MAX batches of one");
    assert!(matches!(err, IterError::TooManyBatches { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains("batch_size") && message.contains(&usize::MAX.to_string()),
        "{message}"
    );
    assert_eq!(loader.next_epoch(), 0, "a refused epoch takes no number");
}

#[test]
fn a_buffer_larger_than_max_buffer_is_refused_by_name_for_an_epoch_as_large() {
    let loader = Loader::new(from_fn(1 << 40, |i| i), SequentialEx).buffer(1 << 40);
    let err = loader.try_iter().expect_err("2^40 places");
    assert_eq!(
        err,
        IterError::BufferTooLarge {
            buffer: 1 << 40,
            batches: 1 << 40
        }
    );
    let message = err.to_string();
    assert!(message.contains("buffer 1099511627776"), "{message}");
    assert!(message.contains(&MAX_BUFFER.to_string()), "{message}");
    // At the limit it works.
    let at_most = Loader::new(from_fn(1 << 40, |i| i), SequentialEx).buffer(MAX_BUFFER);
    assert_eq!(at_most.iter().next(), Some(vec![0]));
}
