//! What a dataset reads inside `get`: its epoch, its index, its generator and its worker.

mod common;

use foldex_dataset::{from_fn, rng_for, ItemContext};
use foldex_loader::Loader;
use foldex_threaded::ThreadedEx;
use rand::RngExt;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// Each observation's context as the dataset saw it, and a draw from its generator.
fn seen(len: usize) -> impl foldex_dataset::Dataset<Item = (usize, u64, usize, u32)> {
    from_fn(len, |i| {
        let cx = ItemContext::current().expect("inside a load");
        assert_eq!(cx.index(), i, "the context names the index loaded");
        (
            cx.index(),
            cx.epoch(),
            cx.worker(),
            cx.rng().random_range(0..1_000_000),
        )
    })
}

#[test]
fn every_executor_gives_each_observation_the_same_epoch_index_and_draws() {
    let expected = |epoch: u64| -> Vec<(usize, u64, u32)> {
        (0..203)
            .map(|i| (i, epoch, rng_for(9, epoch, i).random_range(0..1_000_000)))
            .collect()
    };
    for (name, executor) in common::executors() {
        let loader = Loader::new(seen(203), Arc::clone(executor))
            .batch_size(4)
            .buffer(3)
            .seed(9);
        for epoch in 0..2 {
            let mut got: Vec<(usize, u64, u32)> = loader
                .iter()
                .flatten()
                .map(|(i, e, _, draw)| (i, e, draw))
                .collect();
            got.sort_unstable();
            assert_eq!(got, expected(epoch), "{name}, epoch {epoch}");
        }
    }
}

#[test]
fn the_seed_defaults_to_the_shuffle_seed_and_resumption_keeps_the_draws() {
    let loader = || {
        Loader::new(seen(50), ThreadedEx::new().basesize(1))
            .batch_size(5)
            .shuffle(3)
    };
    let whole: Vec<_> = loader().iter().flatten().collect();
    assert!(whole
        .iter()
        .all(|&(i, _, _, d)| d == rng_for(3, 0, i).random_range(0..1_000_000)));
    let first = loader();
    let mut iter = first.iter();
    let mut got: Vec<_> = iter.by_ref().take(4).flatten().collect();
    let state = iter.state();
    drop(iter);
    got.extend(loader().resume(&state).unwrap().flatten());
    let strip = |v: Vec<(usize, u64, usize, u32)>| -> Vec<(usize, u64, u32)> {
        v.into_iter().map(|(i, e, _, d)| (i, e, d)).collect()
    };
    assert_eq!(strip(got), strip(whole));
}

#[test]
fn workers_are_numbered_as_in_the_stats_and_init_runs_once_per_thread_and_epoch() {
    let inits: Arc<Mutex<Vec<(usize, std::thread::ThreadId)>>> = Arc::default();
    let log = Arc::clone(&inits);
    let loader = Loader::new(
        seen(2_000),
        foldex_threaded::ThreadedEx::new().threads(3).basesize(1),
    )
    .batch_size(2)
    .worker_init(move |worker| {
        log.lock()
            .unwrap()
            .push((worker, std::thread::current().id()))
    });
    for epoch in 0..3 {
        inits.lock().unwrap().clear();
        let mut iter = loader.iter();
        let mut items = Vec::new();
        for (_, _, worker, _) in iter.by_ref().flatten() {
            items.push(worker);
        }
        let stats = iter.stats();
        let mut per_worker = vec![0u64; stats.workers.len()];
        for &w in &items {
            per_worker[w] += 1;
        }
        let counted: Vec<u64> = stats.workers.iter().map(|w| w.items).collect();
        assert_eq!(per_worker, counted, "epoch {epoch}: the stats' workers");
        let inits = inits.lock().unwrap();
        let threads: HashSet<_> = inits.iter().map(|&(_, t)| t).collect();
        assert_eq!(
            threads.len(),
            inits.len(),
            "init ran twice on a thread: {inits:?}"
        );
        let numbers: HashSet<usize> = inits.iter().map(|&(w, _)| w).collect();
        assert_eq!(
            numbers,
            items.into_iter().collect(),
            "init ran on every worker"
        );
    }
}

#[test]
fn a_panicking_worker_init_reaches_the_consumer() {
    let loader = Loader::new(from_fn(10, |i| i), foldex_seq::SequentialEx)
        .worker_init(|worker| panic!("worker {worker} could not open its file"));
    let caught = foldex_testkit::watchdog("a panicking worker_init", || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loader.iter().count()))
    });
    let payload = caught.expect_err("the init's panic");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert_eq!(message, "worker 0 could not open its file");
}

#[test]
fn outside_a_loader_there_is_no_context() {
    let d = seen(1);
    let direct = std::panic::catch_unwind(|| foldex_dataset::Dataset::get(&d, 0));
    assert!(direct.is_err(), "get called directly sees no context");
    assert_eq!(ItemContext::current(), None);
}

#[test]
fn a_stream_loaders_items_see_their_stream_positions_and_epoch() {
    use foldex_loader::StreamLoader;
    let loader = StreamLoader::new(
        || 0..300usize,
        |&x: &usize| {
            let cx = ItemContext::current().expect("inside a load");
            assert_eq!(cx.index(), x, "the index is the stream position");
            (cx.epoch(), cx.rng().random_range(0..1_000_000u32))
        },
        ThreadedEx::new().basesize(1),
    )
    .batch_size(7)
    .window(2)
    .seed(4);
    for epoch in 0..2 {
        let got: Vec<(u64, u32)> = loader.iter().flatten().collect();
        let expected: Vec<(u64, u32)> = (0..300)
            .map(|i| (epoch, rng_for(4, epoch, i).random_range(0..1_000_000)))
            .collect();
        assert_eq!(got, expected, "epoch {epoch}");
    }
}

#[test]
fn each_draw_of_a_weighted_sampler_gets_its_own_generator() {
    use foldex_dataset::sampler::Weighted;
    let draws = from_fn(2, |_| ItemContext::current().unwrap().rng().next_u64());
    let loader = Loader::new(draws, ThreadedEx::new().basesize(1))
        .sampler(Weighted::with_replacement(vec![1.0, 3.0], 100, 4).unwrap())
        .unbatched();
    let got: HashSet<u64> = loader.iter().collect();
    assert_eq!(got.len(), 100, "repeated indices drew alike");
}
