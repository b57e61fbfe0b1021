//! `FoldexDataLoader` as burn's training loop uses it: through `Arc<dyn DataLoader<O>>`, after
//! `to_device`, on every executor kind and several worker counts; and the dataset adapters.

#[path = "../../foldex-loader/tests/common/mod.rs"]
mod common;

use burn::data::dataloader::batcher::Batcher;
use burn::data::dataloader::{DataLoader, DataLoaderBuilder};
use burn::data::dataset::{Dataset as BurnDataset, DatasetError, InMemDataset};
use burn::tensor::{Device, Int, Tensor, TensorData};
use foldex_burn::{FoldexDataLoader, FoldexDataLoaderBuilder, FromBurn, ToBurn, TryToBurn};
use foldex_core::Executor;
use foldex_dataset::Dataset as _;
use foldex_loader::{ErrorPolicy, LoaderState};
use std::sync::atomic::{AtomicU32, Ordering};
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

/// Which items shared a batch with which, over `epochs` (each a list of batches): the number
/// of groups of items linked through shared batches.
fn groups(epochs: &[Vec<Vec<i64>>], len: usize) -> usize {
    let mut parent: Vec<usize> = (0..len).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for batch in epochs.iter().flatten() {
        for pair in batch.windows(2) {
            let (a, b) = (
                root(&mut parent, pair[0] as usize),
                root(&mut parent, pair[1] as usize),
            );
            parent[a] = b;
        }
    }
    (0..len).filter(|&i| root(&mut parent, i) == i).count()
}

/// One epoch's batches as sets: burn's workers deliver theirs in the order they finish them.
fn as_sets(mut batches: Vec<Vec<i64>>) -> Vec<Vec<i64>> {
    batches.iter_mut().for_each(|b| b.sort_unstable());
    batches.sort();
    batches
}

/// The fault the comparison with burn is about, shown on burn 0.22.1's own loader: with `n`
/// workers it shuffles the dataset once and gives each worker a fixed share, which the worker
/// reshuffles every epoch. Items of two shares never meet in a batch, however many epochs
/// run, and the batches change with the number of workers. foldex's loader, on the same
/// settings, mixes the whole dataset, the same way for any number of workers.
#[test]
fn burns_own_loader_keeps_each_workers_share_apart_and_foldex_does_not() {
    let (len, batch_size, seed, epochs) = (64, 4, 3, 6);
    let burn_epochs = |workers: usize| {
        let loader = DataLoaderBuilder::new(Indices)
            .batch_size(batch_size)
            .shuffle(seed)
            .num_workers(workers)
            .build(dataset(len));
        (0..epochs)
            .map(|_| as_sets(epoch(&*loader)))
            .collect::<Vec<_>>()
    };
    let foldex_epochs = |workers: usize| {
        let loader = FoldexDataLoaderBuilder::new(Indices)
            .batch_size(batch_size)
            .shuffle(seed)
            .num_workers(workers)
            .build(dataset(len));
        (0..epochs).map(|_| epoch(&loader)).collect::<Vec<_>>()
    };
    let mut firsts = Vec::new();
    for workers in [1, 2, 4] {
        let mut burn = burn_epochs(workers);
        for e in &burn {
            assert_exactly_once(e, len, batch_size, &format!("burn, {workers} workers"));
        }
        assert_eq!(groups(&burn, len), workers, "burn, {workers} workers");
        assert_ne!(burn[0], burn[1], "burn, {workers} workers: reshuffled");
        firsts.push(burn.swap_remove(0));
        assert_eq!(
            groups(&foldex_epochs(workers), len),
            1,
            "foldex, {workers} workers"
        );
    }
    assert_ne!(firsts[0], firsts[1], "burn: 1 and 2 workers");
    assert_ne!(firsts[1], firsts[2], "burn: 2 and 4 workers");
    assert_ne!(firsts[0], firsts[2], "burn: 1 and 4 workers");
}

/// A burn dataset whose item `i` is `i`, and whose `get(i)` fails the first `fails[i]` times.
struct Flaky {
    fails: Vec<u32>,
    attempts: Vec<AtomicU32>,
}

impl Flaky {
    fn new(fails: &[u32]) -> Self {
        Self {
            fails: fails.to_vec(),
            attempts: fails.iter().map(|_| AtomicU32::new(0)).collect(),
        }
    }
}

impl BurnDataset<usize> for Flaky {
    fn get(&self, index: usize) -> Result<usize, DatasetError> {
        let attempt = self.attempts[index].fetch_add(1, Ordering::Relaxed);
        if attempt < self.fails[index] {
            let why = format!("item {index} is flaky");
            return Err(DatasetError::new(std::io::Error::other(why)));
        }
        Ok(index)
    }

    fn len(&self) -> usize {
        self.fails.len()
    }
}

/// Each policy on every executor kind and on 4 workers, with items failing a random number of
/// times (seeded): the good items come exactly once, in their batches of the epoch's order;
/// a fail-fast epoch delivers the batches before the first failing one, then its error, then
/// ends; skipped items and retries are counted in the stats.
#[test]
fn error_policies_deliver_the_good_items_once_on_every_executor() {
    let policies = [
        ("no policy", None),
        ("fail_fast", Some(ErrorPolicy::fail_fast())),
        ("skip", Some(ErrorPolicy::skip())),
        ("retry(2)", Some(ErrorPolicy::retry(2))),
        (
            "retry(2).then_skip()",
            Some(ErrorPolicy::retry(2).then_skip()),
        ),
    ];
    let mut rng = Rng(0xfa11);
    for (len, batch_size, seed) in settings(4) {
        // Most items load at once; some fail once, twice or three times (then for good under
        // every policy here).
        let fails: Vec<u32> = (0..len)
            .map(|_| match rng.below(12) {
                0 => 1,
                1 => 2,
                2 => 3,
                _ => 0,
            })
            .collect();
        let reference = epoch(
            &FoldexDataLoaderBuilder::new(Indices)
                .batch_size(batch_size)
                .shuffle(seed)
                .build(dataset(len)),
        );
        type Builder = FoldexDataLoaderBuilder<usize, Tensor<1, Int>>;
        type MakeBuilder = Box<dyn Fn() -> Builder>;
        let mut runs: Vec<(&str, MakeBuilder)> = Vec::new();
        for (name, executor) in common::executors() {
            let executor: Arc<dyn Executor> = Arc::clone(executor);
            let builder = move || Builder::new(Indices).executor(Arc::clone(&executor));
            runs.push((name, Box::new(builder)));
        }
        runs.push((
            "4 workers",
            Box::new(|| Builder::new(Indices).num_workers(4)),
        ));
        for (policy_name, policy) in policies {
            let retries = policy.map_or(0, |p| p.retries());
            let bad = |i: i64| fails[i as usize] > retries;
            let error_of = |batch: &[i64]| {
                let first = batch.iter().find(|&&i| bad(i))?;
                Some(format!(
                    "observation {first} failed to load: item {first} is flaky"
                ))
            };
            for (executor_name, builder) in &runs {
                let what = format!(
                    "len {len}, batch size {batch_size}, seed {seed}, {policy_name}, {executor_name}"
                );
                let mut builder = builder().batch_size(batch_size).shuffle(seed);
                if let Some(policy) = policy {
                    builder = builder.errors(policy);
                }
                let loader = builder.build(Flaky::new(&fails));
                let mut iter = loader.iter();
                let got: Vec<Result<Vec<i64>, String>> = iter
                    .by_ref()
                    .map(|b| {
                        b.map(|t| t.into_data().try_to_vec::<i64>().unwrap())
                            .map_err(|e| e.to_string())
                    })
                    .collect();
                let expected: Vec<Result<Vec<i64>, String>> = match policy {
                    Some(p) if p.skips() => reference
                        .iter()
                        .map(|b| b.iter().copied().filter(|&i| !bad(i)).collect::<Vec<_>>())
                        .filter(|b| !b.is_empty())
                        .map(Ok)
                        .collect(),
                    Some(_) => {
                        let failing = reference.iter().position(|b| error_of(b).is_some());
                        let upto = failing.map_or(reference.len(), |k| k + 1);
                        reference[..upto]
                            .iter()
                            .map(|b| error_of(b).map_or(Ok(b.clone()), Err))
                            .collect()
                    }
                    None => reference
                        .iter()
                        .map(|b| error_of(b).map_or(Ok(b.clone()), Err))
                        .collect(),
                };
                assert_eq!(got, expected, "{what}");
                assert!(iter.next().is_none(), "{what}: the epoch is over");
                if policy.is_some_and(|p| p.skips()) {
                    assert!(iter.progress().is_completed(), "{what}: progress");
                }
                drop(iter);
                let stats = loader.stats().expect("the epoch ended");
                let mut skipped: Vec<usize> = stats.skipped.iter().map(|s| s.index).collect();
                skipped.sort_unstable();
                if policy.is_some_and(|p| p.skips()) {
                    let bad_items: Vec<usize> = (0..len).filter(|&i| bad(i as i64)).collect();
                    assert_eq!(skipped, bad_items, "{what}: skipped");
                    let tries: u64 = fails.iter().map(|&f| u64::from(f.min(retries))).sum();
                    assert_eq!(stats.retries, tries, "{what}: retries");
                    let good = (len - bad_items.len()) as u64;
                    assert_eq!(stats.items, good, "{what}: items");
                } else {
                    assert!(skipped.is_empty(), "{what}: nothing is skipped");
                }
                if policy.is_none() {
                    assert_eq!(stats.retries, 0, "{what}: no retries");
                }
            }
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
