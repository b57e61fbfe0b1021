//! `FoldexDataLoader` as burn's training loop uses it: through `Arc<dyn DataLoader<O>>`, after
//! `to_device`, on every executor kind and several worker counts; and the dataset adapters.

#[path = "../../foldex-loader/tests/common/mod.rs"]
mod common;

use burn::data::dataloader::batcher::Batcher;
use burn::data::dataloader::DataLoader;
use burn::data::dataset::{Dataset as BurnDataset, DatasetError, InMemDataset};
use burn::tensor::{Device, Int, Tensor, TensorData};
use foldex_burn::{FoldexDataLoader, FoldexDataLoaderBuilder, FromBurn, ToBurn, TryToBurn};
use foldex_core::Executor;
use foldex_dataset::Dataset as _;
use foldex_loader::LoaderState;
use std::sync::Arc;

/// Batches of item values as a tensor on the loader's device.
#[derive(Clone)]
struct Indices;

impl Batcher<usize, Tensor<1, Int>> for Indices {
    fn batch(&self, items: Vec<usize>, device: &Device) -> Tensor<1, Int> {
        let n = items.len();
        let values: Vec<i64> = items.into_iter().map(|i| i as i64).collect();
        Tensor::from_data(TensorData::new(values, [n]), device)
    }
}

type Loader = FoldexDataLoader<usize, Tensor<1, Int>>;

/// Item `i` is `i`.
fn dataset(len: usize) -> InMemDataset<usize> {
    InMemDataset::new((0..len).collect())
}

/// One epoch's batches, read back from their tensors.
fn epoch(loader: &dyn DataLoader<Tensor<1, Int>>) -> Vec<Vec<i64>> {
    loader
        .iter()
        .map(|batch| batch.unwrap().into_data().try_to_vec::<i64>().unwrap())
        .collect()
}

/// A small seeded generator (SplitMix64) for the random settings.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

/// `(len, batch_size, seed)` settings, the same every run.
fn settings(cases: usize) -> Vec<(usize, usize, u64)> {
    let mut rng = Rng(0x5eed);
    (0..cases)
        .map(|_| {
            let len = 16 + rng.below(150) as usize;
            let batch_size = 1 + rng.below(17) as usize;
            (len, batch_size, rng.below(u64::MAX))
        })
        .collect()
}

/// Every item of `0..len` once, in batches of `batch_size` (the last one shorter).
fn assert_exactly_once(batches: &[Vec<i64>], len: usize, batch_size: usize, what: &str) {
    let sizes: Vec<usize> = batches.iter().map(Vec::len).collect();
    let expected: Vec<usize> = (0..len)
        .step_by(batch_size)
        .map(|start| batch_size.min(len - start))
        .collect();
    assert_eq!(sizes, expected, "{what}: batch sizes");
    let mut items: Vec<i64> = batches.concat();
    items.sort_unstable();
    assert_eq!(items, (0..len as i64).collect::<Vec<_>>(), "{what}: items");
}

/// burn issue #3282 is the fault this rules out: with several workers, burn's shuffle repeats
/// one pattern every epoch. Here each epoch's order is a function of (seed, epoch) alone: the
/// same for 1, 2 and 4 workers and for every executor, and another every epoch.
#[test]
fn epochs_differ_and_are_identical_for_any_worker_count() {
    let device = Device::default();
    for (len, batch_size, seed) in settings(6) {
        let run = |builder: FoldexDataLoaderBuilder<usize, Tensor<1, Int>>| {
            let handle = builder
                .batch_size(batch_size)
                .shuffle(seed)
                .build(dataset(len));
            // As burn's `Learner` does: `to_device` once, then `iter` once per epoch.
            let loader = handle.to_device(&device);
            (0..3).map(|_| epoch(&*loader)).collect::<Vec<_>>()
        };
        let reference = run(FoldexDataLoaderBuilder::new(Indices).num_workers(1));
        let what = format!("len {len}, batch size {batch_size}, seed {seed}");
        for (e, batches) in reference.iter().enumerate() {
            assert_exactly_once(batches, len, batch_size, &format!("{what}, epoch {e}"));
        }
        for a in 0..3 {
            for b in a + 1..3 {
                assert_ne!(
                    reference[a], reference[b],
                    "{what}: epochs {a} and {b} alike"
                );
            }
        }
        for workers in [0, 2, 4] {
            let epochs = run(FoldexDataLoaderBuilder::new(Indices).num_workers(workers));
            assert_eq!(epochs, reference, "{what}: {workers} workers");
        }
        for (name, executor) in common::executors() {
            let executor: Arc<dyn Executor> = Arc::clone(executor);
            let epochs = run(FoldexDataLoaderBuilder::new(Indices).executor(executor));
            assert_eq!(epochs, reference, "{what}: {name}");
        }
    }
}

/// Progress counts items, up to `num_items` at the end of each epoch; not shuffled, the
/// batches come in the dataset's order.
#[test]
fn progress_counts_items_and_unshuffled_epochs_keep_the_order() {
    for (len, batch_size, _) in settings(4) {
        let loader = FoldexDataLoaderBuilder::new(Indices)
            .batch_size(batch_size)
            .num_workers(2)
            .build(dataset(len));
        assert_eq!(loader.num_items(), len);
        for _ in 0..2 {
            let mut iter = loader.iter();
            assert_eq!(iter.progress().items_processed, 0);
            let mut seen = Vec::new();
            while let Some(batch) = iter.next() {
                seen.extend(batch.unwrap().into_data().try_to_vec::<i64>().unwrap());
                assert_eq!(iter.progress().items_processed, seen.len());
                assert_eq!(iter.progress().items_total, len);
            }
            assert!(iter.progress().is_completed());
            assert_eq!(seen, (0..len as i64).collect::<Vec<_>>());
        }
        let stats = loader.stats().expect("an epoch ran");
        assert_eq!(
            (stats.items, stats.batches),
            (len as u64, len.div_ceil(batch_size) as u64)
        );
    }
}

/// A run stopped mid-epoch continues after a restart with exactly the batches it had not
/// received, then the epochs after it, as the uninterrupted run has them.
#[test]
fn a_restarted_run_resumes_mid_epoch_exactly() {
    let device = Device::default();
    let mut rng = Rng(7);
    for (len, batch_size, seed) in settings(6) {
        let build = |workers: usize| {
            FoldexDataLoaderBuilder::new(Indices)
                .batch_size(batch_size)
                .shuffle(seed)
                .num_workers(workers)
                .build(dataset(len))
        };
        let uninterrupted = build(1).to_device(&device);
        let whole: Vec<Vec<Vec<i64>>> = (0..4).map(|_| epoch(&*uninterrupted)).collect();

        // The first run: two epochs, then part of the third.
        let handle = Arc::new(build(2));
        let training = handle.to_device(&device);
        epoch(&*training);
        epoch(&*training);
        let batches = whole[2].len();
        let taken = rng_below(&mut rng, batches + 1);
        let head: Vec<Vec<i64>> = training
            .iter()
            .take(taken)
            .map(|b| b.unwrap().into_data().try_to_vec::<i64>().unwrap())
            .collect();
        let state = handle
            .state()
            .expect("the handle sees the training loop's epochs");
        assert_eq!((state.epoch, state.next_batch), (2, taken));
        drop(training);
        // Saved beside burn's checkpoint, and read back after the restart.
        let saved = serde_json::to_string(&state).unwrap();
        let state: LoaderState = serde_json::from_str(&saved).unwrap();

        // The restart: a new loader, resumed before burn moves it to its device.
        let restarted = build(rng_below(&mut rng, 5));
        restarted.resume_from(&state).unwrap();
        let training = restarted.to_device(&device);
        let mut iter = training.iter();
        assert_eq!(iter.progress().items_processed, head.concat().len());
        let tail: Vec<Vec<i64>> = iter
            .by_ref()
            .map(|b| b.unwrap().into_data().try_to_vec::<i64>().unwrap())
            .collect();
        drop(iter);
        let what = format!("len {len}, batch size {batch_size}, seed {seed}, {taken} taken");
        assert_eq!([head, tail].concat(), whole[2], "{what}");
        assert_eq!(epoch(&*training), whole[3], "{what}: the epoch after");
    }
}

fn rng_below(rng: &mut Rng, n: usize) -> usize {
    rng.below(n as u64) as usize
}

/// A state from other settings is refused, naming the setting; a `slice` out of range panics
/// naming both ends.
#[test]
fn mismatched_states_and_slices_are_refused_clearly() {
    let loader: Loader = FoldexDataLoaderBuilder::new(Indices)
        .batch_size(4)
        .shuffle(1)
        .build(dataset(20));
    epoch(&loader);
    let state = loader.state().unwrap();
    let other: Loader = FoldexDataLoaderBuilder::new(Indices)
        .batch_size(5)
        .shuffle(1)
        .build(dataset(20));
    let err = other.resume_from(&state).unwrap_err().to_string();
    assert!(err.contains("batch"), "{err}");
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        loader.slice(5, 21);
    }));
    let message = *caught.unwrap_err().downcast::<String>().unwrap();
    assert_eq!(message, "slice 5..21 is not within the loader's 20 items");
}

/// `slice` loads items `start..end` exactly once per epoch, shuffled anew every epoch, and
/// goes on with the epoch numbers of the loader it was cut from.
#[test]
fn slices_load_their_range_and_continue_the_epochs() {
    let loader: Loader = FoldexDataLoaderBuilder::new(Indices)
        .batch_size(3)
        .shuffle(9)
        .num_workers(2)
        .build(dataset(40));
    epoch(&loader);
    let slice = loader.slice(10, 30);
    assert_eq!(slice.num_items(), 20);
    let first = epoch(&*slice);
    let second = epoch(&*slice);
    assert_ne!(first, second);
    for batches in [&first, &second] {
        let mut items = batches.concat();
        items.sort_unstable();
        assert_eq!(items, (10..30).collect::<Vec<_>>());
    }
    // The same slice of a loader that had not run an epoch starts one epoch earlier.
    let fresh: Loader = FoldexDataLoaderBuilder::new(Indices)
        .batch_size(3)
        .shuffle(9)
        .build(dataset(40));
    let fresh_slice = fresh.slice(10, 30);
    epoch(&*fresh_slice);
    assert_eq!(epoch(&*fresh_slice), first);
}

/// A failed item fails its batch with the dataset's error; the epoch goes on.
#[test]
fn a_failed_item_fails_its_batch_and_the_epoch_goes_on() {
    let files = TryToBurn::new(foldex_dataset::from_fn(10, |i| {
        if i == 6 {
            Err(std::fmt::Error)
        } else {
            Ok(i)
        }
    }));
    let loader = FoldexDataLoaderBuilder::new(Indices)
        .batch_size(4)
        .num_workers(2)
        .build(files);
    let results: Vec<bool> = loader.iter().map(|b| b.is_ok()).collect();
    assert_eq!(results, vec![true, false, true]);
}

/// The adapters read each other item by item: burn → foldex → burn gives the same items,
/// and an index past the end is an error, not a panic.
#[test]
fn adapters_read_both_ways() {
    let burn_side = InMemDataset::new(vec!["a", "b", "c"]);
    let foldex_side = FromBurn::new(burn_side);
    assert_eq!(foldex_side.len(), 3);
    assert_eq!(foldex_side.get(2).unwrap(), "c");
    let back = ToBurn::new(foldex_side.clone().map(Result::unwrap));
    assert_eq!(BurnDataset::len(&back), 3);
    let items: Vec<&str> = back.iter().map(Result::unwrap).collect();
    assert_eq!(items, vec!["a", "b", "c"]);
    let err: DatasetError = back.get(3).unwrap_err();
    assert_eq!(
        err.to_string(),
        "index 3 is out of bounds of a dataset of 3 items"
    );
    // The foldex side shares the burn dataset: no copy.
    assert_eq!(Arc::strong_count(foldex_side.inner()), 2);
}
