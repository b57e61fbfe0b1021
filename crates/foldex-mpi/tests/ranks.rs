//! Folds across 1, 2 and 3 ranks through `MpiEx`'s typed methods, and the loader's shards;
//! each test a subprocess under `mpirun` with a timeout (`common`).

mod common;

use common::{run_under_mpirun, world};

use foldex_mpi::{MpiError, MpiEx};
use foldex_seq::SequentialEx;
use std::ops::ControlFlow;

ranks!(sums_and_ordered_combines_give_the_sequential_answer, || {
    let (_mpi, ex) = world();
    for len in [0usize, 1, 2, 3, 5, 97, 100_003] {
        let sum = ex
            .fold(0..len, || 0u64, |s, i| s + i as u64, |a, b| a + b)
            .unwrap();
        assert_eq!(
            sum,
            (len as u64) * (len as u64).saturating_sub(1) / 2,
            "len {len}"
        );
        // A combine that is not commutative: the digits in index order.
        let digits = ex
            .fold(
                0..len.min(500),
                String::new,
                |mut s, i| {
                    s.push(char::from(b'0' + (i % 10) as u8));
                    s
                },
                |a, b| a + &b,
            )
            .unwrap();
        let expected: String = (0..len.min(500))
            .map(|i| char::from(b'0' + (i % 10) as u8))
            .collect();
        assert_eq!(digits, expected);
    }
    let local_one = MpiEx::world().unwrap().local(SequentialEx);
    let squares = local_one
        .map_reduce(0..1000usize, |x| (x * x) as u64, || 0, |a, b| a + b)
        .unwrap();
    assert_eq!(squares, (0..1000u64).map(|x| x * x).sum::<u64>());
});

/// `0..len` with bounds on the pieces a fold over it runs in (a pipeline's `with_min_len` /
/// `with_max_len`).
struct Bounded(usize, foldex_core::exec::PieceLen);

impl foldex_core::Source for Bounded {
    type Item = usize;
    fn len(&self) -> usize {
        self.0
    }
    fn get(&self, index: usize) -> usize {
        index
    }
    fn piece_len(&self) -> foldex_core::exec::PieceLen {
        self.1
    }
}

ranks!(pieces_keep_the_folds_bounds_across_ranks, || {
    use foldex_core::exec::PieceLen;
    use std::num::NonZeroUsize;
    let (_mpi, ex) = world();
    let n = |n| NonZeroUsize::new(n).unwrap();
    let cases = [
        (0, 1, 1),
        (1, 5, 7),
        (100, 40, 60),
        (1000, 7, 16),
        (5000, 1, 3),
        (999, 300, 2),
    ];
    for (len, min, max) in cases {
        let bounds = PieceLen::ANY.at_least(n(min)).at_most(n(max));
        // Each piece as the (start, end) of its items, one `init` per piece.
        let pieces = ex
            .fold(
                Bounded(len, bounds),
                Vec::<(usize, usize)>::new,
                |mut v, i| {
                    match v.last_mut() {
                        Some(last) if last.1 == i => last.1 += 1,
                        _ => v.push((i, i + 1)),
                    }
                    v
                },
                |mut a, b| {
                    a.extend(b);
                    a
                },
            )
            .unwrap();
        let what = format!("len {len}, min {min}, max {max}: {pieces:?}");
        assert_eq!(
            pieces.iter().map(|p| p.1 - p.0).sum::<usize>(),
            len,
            "{what}"
        );
        let longest = max.max(2 * min - 1);
        for p in &pieces {
            let n = p.1 - p.0;
            assert!(n <= longest && (n >= min || pieces.len() == 1), "{what}");
        }
    }
});

ranks!(a_break_anywhere_gives_the_sequential_try_fold, || {
    let (_mpi, ex) = world();
    let len = 30_000usize;
    // Breaks at every multiple of `every` from `first`; the answer keeps the indices folded
    // before the first break and the break itself.
    for first in [0usize, 1, 9_999, 10_000, 15_000, 29_999, len] {
        let step = |mut seen: Vec<u32>, i: usize| {
            if i >= first && i % 7 == first % 7 {
                seen.push(i as u32);
                ControlFlow::Break(seen)
            } else {
                if i.is_multiple_of(1000) {
                    seen.push(i as u32);
                }
                ControlFlow::Continue(seen)
            }
        };
        let got = ex
            .try_fold(0..len, Vec::new, step, |mut a, b| {
                a.extend(b);
                a
            })
            .unwrap();
        let expected = (0..len).try_fold(Vec::new(), step);
        assert_eq!(got, expected, "break from {first}");
    }
});

ranks!(a_panic_on_one_rank_is_raised_on_every_rank, || {
    let (_mpi, ex) = world();
    let len = 3_000usize;
    let bad = len - 1; // in the last rank's block
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ex.fold(
            0..len,
            || 0u64,
            |s, i| {
                if i == bad {
                    panic!("item {i} is corrupt");
                }
                s + 1
            },
            |a, b| a + b,
        )
    }));
    let payload = caught.expect_err("every rank raises the panic");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap();
    assert_eq!(message, format!("item {bad} is corrupt"));
    // A break before the panic wins, as in a sequential try_fold.
    let flow = ex
        .try_fold(
            0..len,
            || 0usize,
            |n, i| {
                if i == bad {
                    panic!("never reached");
                }
                if i == 10 {
                    ControlFlow::Break(n)
                } else {
                    ControlFlow::Continue(n + 1)
                }
            },
            |a, b| a + b,
        )
        .unwrap();
    assert_eq!(flow, ControlFlow::Break(10));
    // The executor is usable afterwards.
    assert_eq!(
        ex.fold(0..10usize, || 0, |s, i| s + i, |a, b| a + b)
            .unwrap(),
        45
    );
});

ranks!(ranks_that_fold_different_lengths_all_get_an_error, || {
    let (_mpi, ex) = world();
    let len = 100 + ex.rank() * usize::from(ex.size() > 1);
    let err = ex.fold(0..len, || 0usize, |s, _| s + 1, |a, b| a + b);
    if ex.size() == 1 {
        assert_eq!(err, Ok(100));
    } else {
        let per_rank: Vec<u64> = (0..ex.size() as u64).map(|r| 100 + r).collect();
        assert_eq!(err, Err(MpiError::Lengths { per_rank }));
    }
    // Fine again once the lengths agree.
    assert_eq!(ex.fold(0..5usize, || 0, |s, i| s + i, |a, b| a + b), Ok(10));
});

ranks!(
    mpi_before_initialisation_and_after_finalisation_is_refused,
    || {
        assert_eq!(MpiEx::world().unwrap_err(), MpiError::NotInitialized);
        let mpi = foldex_mpi::initialize().unwrap();
        assert_eq!(
            foldex_mpi::initialize().unwrap_err(),
            MpiError::AlreadyInitialized
        );
        let ex = mpi.executor().unwrap();
        assert_eq!(ex.fold(0..3usize, || 0, |s, i| s + i, |a, b| a + b), Ok(3));
        drop(mpi);
        assert_eq!(MpiEx::world().unwrap_err(), MpiError::Finalized);
        assert_eq!(
            ex.fold(0..3usize, || 0, |s, i| s + i, |a, b| a + b),
            Err(MpiError::Finalized)
        );
        assert_eq!(foldex_mpi::initialize().unwrap_err(), MpiError::Finalized);
    }
);

/// Every rank's `items`, concatenated in rank order, on rank 0 (empty elsewhere).
fn gather_to_root(ex: &MpiEx, items: &[u64]) -> Vec<u64> {
    use foldex_mpi::mpi::datatype::PartitionMut;
    use foldex_mpi::mpi::traits::*;
    use foldex_mpi::mpi::Count;
    let comm = foldex_mpi::mpi::topology::SimpleCommunicator::world();
    let root = comm.process_at_rank(0);
    let count = items.len() as Count;
    if ex.rank() == 0 {
        let mut counts = vec![0 as Count; ex.size()];
        root.gather_into_root(&count, &mut counts[..]);
        let displs: Vec<Count> = counts
            .iter()
            .scan(0, |at, &n| {
                let start = *at;
                *at += n;
                Some(start)
            })
            .collect();
        let mut all = vec![0u64; counts.iter().map(|&n| n as usize).sum()];
        let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
        root.gather_varcount_into_root(items, &mut partition);
        all
    } else {
        root.gather_into(&count);
        root.gather_varcount_into(items);
        Vec::new()
    }
}

ranks!(
    every_ranks_part_of_a_loaders_epoch_together_is_the_dataset_once,
    || {
        use foldex_dataset::{from_fn, Tail};
        use foldex_loader::Loader;
        use foldex_threaded::ThreadedEx;
        let (_mpi, ex) = world();
        for (len, tail) in [
            (1_000usize, Tail::Uneven),
            (1_001, Tail::Drop),
            (7, Tail::Pad),
            (2, Tail::Uneven),
        ] {
            let loader = ex.shard(
                Loader::new(from_fn(len, |i| i as u64), ThreadedEx::new().basesize(1))
                    .batch_size(16)
                    .shuffle(5)
                    .shard_tail(tail),
            );
            for epoch in 0..2u64 {
                let mine: Vec<u64> = loader.iter().flatten().collect();
                let all = gather_to_root(&ex, &mine);
                if ex.rank() == 0 {
                    let mut sorted = all.clone();
                    sorted.sort_unstable();
                    let size = ex.size();
                    match tail {
                        Tail::Uneven => assert_eq!(sorted, (0..len as u64).collect::<Vec<_>>()),
                        Tail::Drop => {
                            // Every rank the same count; the last `len % size` of the order left out.
                            assert_eq!(all.len(), len / size * size);
                            sorted.dedup();
                            assert_eq!(sorted.len(), all.len(), "no observation twice");
                        }
                        Tail::Pad => {
                            assert_eq!(all.len(), len.div_ceil(size) * size);
                            sorted.dedup();
                            assert_eq!(sorted, (0..len as u64).collect::<Vec<_>>());
                        }
                    }
                    // The same order on every rank: rank r took positions r, r + size, ...
                    let order = loader.epoch_order(epoch);
                    let mut at = 0;
                    for r in 0..size {
                        let part = loader_part_len(len, size, r, tail);
                        for (k, &index) in all[at..at + part].iter().enumerate() {
                            let position = (r + k * size) % len.max(1);
                            assert_eq!(index as usize, order.get(position), "rank {r}, item {k}");
                        }
                        at += part;
                    }
                }
            }
        }
    }
);

/// How many observations rank `r` loads of an epoch of `len` under `tail`.
fn loader_part_len(len: usize, size: usize, r: usize, tail: foldex_dataset::Tail) -> usize {
    foldex_dataset::Shard::new(r, size, tail).len(len)
}

ranks!(each_rank_resumes_its_own_part, || {
    use foldex_dataset::from_fn;
    use foldex_loader::Loader;
    use foldex_threaded::ThreadedEx;
    let (_mpi, ex) = world();
    let loader = || {
        ex.shard(
            Loader::new(from_fn(500, |i| i as u64), ThreadedEx::new().basesize(1))
                .batch_size(8)
                .shuffle(9),
        )
    };
    let whole: Vec<Vec<u64>> = loader().iter().collect();
    let first = loader();
    let mut iter = first.iter();
    let mut got: Vec<Vec<u64>> = iter.by_ref().take(3).collect();
    let state = iter.state();
    drop(iter);
    assert_eq!(state.shard, Some((ex.rank(), ex.size())));
    got.extend(loader().resume(&state).unwrap());
    assert_eq!(got, whole, "rank {}", ex.rank());
});

/// Every rank's `(states, items)` pushed once, gathered on every rank through `MpiEx`'s fold
/// (one item of `0..size` per rank).
fn gather_everywhere(
    ex: &MpiEx,
    state: Option<&foldex_loader::LoaderState>,
    items: &[u64],
) -> (Vec<foldex_loader::LoaderState>, Vec<u64>) {
    type Part = (Vec<foldex_loader::LoaderState>, Vec<u64>);
    ex.fold(
        0..ex.size(),
        || (Vec::new(), Vec::new()),
        |(mut states, mut all): Part, _| {
            states.extend(state.cloned());
            all.extend_from_slice(items);
            (states, all)
        },
        |(mut states, mut all): Part, (more_states, more): Part| {
            states.extend(more_states);
            all.extend(more);
            (states, all)
        },
    )
    .expect("the gather")
}

ranks!(
    an_epoch_stopped_on_these_ranks_resumes_on_one_more_each_observation_once,
    || {
        use foldex_dataset::{from_fn, Tail};
        use foldex_loader::Loader;
        use foldex_threaded::ThreadedEx;
        let (_mpi, ex) = world();
        let (rank, size) = (ex.rank(), ex.size());
        let len = 203usize;
        let loader = |r, world| {
            Loader::new(from_fn(len, |i| i as u64), ThreadedEx::new().basesize(1))
                .batch_size(4)
                .shuffle(11)
                .shard(r, world)
                .shard_tail(Tail::Uneven)
        };
        // The old world is this job's ranks, each stopping after a different number of batches.
        let old = loader(rank, size);
        let mut iter = old.iter();
        let before: Vec<u64> = iter.by_ref().take(2 * rank + 1).flatten().collect();
        let state = iter.state();
        drop(iter);
        let (states, delivered) = gather_everywhere(&ex, Some(&state), &before);
        assert_eq!(states.len(), size);
        // The new world has one rank more: its last rank runs on rank 0 beside rank 0's part.
        let world = size + 1;
        let merged = loader(0, world).merge_states(&states).unwrap();
        let resumed = |r| -> Vec<u64> {
            loader(r, world)
                .resume(&merged)
                .unwrap()
                .flatten()
                .collect()
        };
        let mut mine = resumed(rank);
        if rank == 0 {
            mine.extend(resumed(size));
        }
        let (_, after) = gather_everywhere(&ex, None, &mine);
        let mut all = delivered;
        all.extend(after);
        all.sort_unstable();
        assert_eq!(
            all,
            (0..len as u64).collect::<Vec<_>>(),
            "rank {rank} of {size}: the epoch before and after the change of world"
        );
    }
);

#[test]
fn a_rank_that_dies_ends_the_job_with_an_error_and_no_rank_hangs() {
    if std::env::var_os("FOLDEX_MPI_CHILD").is_some() {
        let (_mpi, ex) = world();
        let (rank, last) = (ex.rank(), ex.size() - 1);
        // The last rank dies in the middle of its block; the others wait in the gather.
        let _ = ex.fold(
            0..ex.size() * 1000,
            || 0u64,
            |s, i| {
                if rank == last && i == last * 1000 + 500 {
                    std::process::abort();
                }
                s + 1
            },
            |a, b| a + b,
        );
        println!("rank {rank} returned from a fold whose last rank died");
        return;
    }
    for n in 2..=3 {
        let test = "a_rank_that_dies_ends_the_job_with_an_error_and_no_rank_hangs";
        let (status, stdout, stderr) = run_under_mpirun(test, n);
        assert!(!status.success(), "on {n} ranks mpirun reported success");
        assert!(
            !stdout.contains("returned from a fold"),
            "a rank went on: {stdout}"
        );
        // It failed because a rank died, not earlier.
        assert!(
            format!("{stdout}{stderr}").contains("BAD TERMINATION")
                || stderr.contains("signal")
                || stderr.contains("Aborted"),
            "{stdout}\n{stderr}"
        );
    }
}

/// Set on the rank whose partial refuses to encode.
static POISONED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A count whose `Serialize` panics on the poisoned rank.
#[derive(serde::Deserialize)]
struct Fussy(u64);

impl serde::Serialize for Fussy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if POISONED.load(std::sync::atomic::Ordering::Relaxed) {
            panic!("this partial will not be written");
        }
        s.serialize_u64(self.0)
    }
}

ranks!(
    a_partial_that_cannot_be_encoded_is_an_error_on_every_rank,
    || {
        let (_mpi, ex) = world();
        let last = ex.size() - 1;
        POISONED.store(ex.rank() == last, std::sync::atomic::Ordering::Relaxed);
        let got = ex.fold(
            0..100usize,
            || Fussy(0),
            |f, _| Fussy(f.0 + 1),
            |a, b| Fussy(a.0 + b.0),
        );
        match got {
            Err(MpiError::Codec { rank, why }) => {
                assert_eq!(rank, last);
                assert!(why.contains("this partial will not be written"), "{why}");
            }
            other => panic!("expected a codec error, got {:?}", other.map(|f| f.0)),
        }
        POISONED.store(false, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(
            ex.fold(
                0..100usize,
                || Fussy(0),
                |f, _| Fussy(f.0 + 1),
                |a, b| Fussy(a.0 + b.0)
            )
            .map(|f| f.0),
            Ok(100)
        );
    }
);

ranks!(the_ranks_after_a_break_stop_early, || {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (_mpi, ex) = world();
    let ex = ex.local(SequentialEx);
    let per_rank = 20_000usize;
    let folded = AtomicUsize::new(0);
    let flow = ex
        .try_fold(
            0..per_rank * ex.size(),
            || 0usize,
            |n, i| {
                if i == 10 {
                    return ControlFlow::Break(n);
                }
                folded.fetch_add(1, Ordering::Relaxed);
                let started = std::time::Instant::now();
                while started.elapsed() < std::time::Duration::from_micros(20) {}
                ControlFlow::Continue(n + 1)
            },
            |a, b| a + b,
        )
        .unwrap();
    assert_eq!(flow, ControlFlow::Break(10));
    if ex.rank() > 0 {
        // A whole block takes 400 ms; the notice comes within milliseconds.
        let n = folded.load(Ordering::Relaxed);
        assert!(
            n < per_rank / 2,
            "rank {} folded {n} of {per_rank} items",
            ex.rank()
        );
    }
});
