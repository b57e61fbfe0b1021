//! `MpiEx` as an `Executor`: the typed API's encoded folds across 1, 2 and 3 ranks, and what
//! it refuses, the same on every rank (each test a subprocess under `mpirun`: `common`).

mod common;

use common::world;
use foldex_core::codec::Encoded;
use foldex_core::{Executor, ExecutorExt};
use foldex_mpi::Postcard;
use std::ops::ControlFlow::{Break, Continue};
use std::panic::{self, AssertUnwindSafe};

/// The message of the panic `f` raises.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = panic::catch_unwind(AssertUnwindSafe(f)).expect_err("it panics");
    foldex_core::exec::message(&*payload)
}

/// `0 + 1 + ... + 9` by the typed API's fold with a codec (`MpiEx` has a `fold` of its own).
fn sum_below_ten(ex: &foldex_mpi::MpiEx) -> usize {
    ExecutorExt::fold(
        ex,
        0..10usize,
        Encoded(|| 0, Postcard),
        |s, i| s + i,
        |a, b| a + b,
    )
}

ranks!(encoded_folds_give_the_sequential_answer, || {
    let (_mpi, ex) = world();
    let as_dyn: &dyn Executor = &ex;
    for len in [0usize, 1, 2, 3, 5, 97, 100_003] {
        let sum = as_dyn.fold(
            0..len,
            Encoded(|| 0u64, Postcard),
            |s, i| s + i as u64,
            |a, b| a + b,
        );
        assert_eq!(sum, (0..len as u64).sum::<u64>(), "len {len}");
        let digits = ExecutorExt::fold(
            &ex,
            0..len.min(300),
            Encoded(String::new, Postcard),
            |mut s, i| {
                s.push(char::from(b'0' + (i % 10) as u8));
                s
            },
            |a, b| a + &b,
        );
        let expected: String = (0..len.min(300))
            .map(|i| char::from(b'0' + (i % 10) as u8))
            .collect();
        assert_eq!(digits, expected);
        for first in [0, len / 3, len / 2, len.saturating_sub(1), len] {
            // A polynomial hash of the items: associative, not commutative, identity (1, 0).
            let push = |(p, v): (u64, u64), i: usize| {
                (
                    p.wrapping_mul(31),
                    v.wrapping_mul(31).wrapping_add(i as u64),
                )
            };
            let join = |(p, v): (u64, u64), (q, w): (u64, u64)| {
                (p.wrapping_mul(q), v.wrapping_mul(q).wrapping_add(w))
            };
            let step = |acc, i: usize| {
                if i >= first && i % 5 == first % 5 {
                    Break(push(acc, i))
                } else {
                    Continue(push(acc, i))
                }
            };
            let got = as_dyn.try_fold(0..len, Encoded(|| (1, 0), Postcard), step, join);
            assert_eq!(
                got,
                (0..len).try_fold((1, 0), step),
                "len {len}, break from {first}"
            );
        }
    }
});

ranks!(
    a_panic_is_raised_on_every_rank_and_the_executor_goes_on,
    || {
        let (_mpi, ex) = world();
        let message = panic_message(|| {
            ExecutorExt::fold(
                &ex,
                0..3000usize,
                Encoded(|| 0u64, Postcard),
                |s, i| {
                    if i == 2999 {
                        panic!("item {i} is corrupt")
                    } else {
                        s + 1
                    }
                },
                |a, b| a + b,
            );
        });
        assert_eq!(message, "item 2999 is corrupt");
        assert_eq!(sum_below_ten(&ex), 45);
    }
);

ranks!(
    what_cannot_run_across_ranks_is_refused_on_every_rank,
    || {
        let (_mpi, ex) = world();
        // No codec: the typed API's plain folds cannot cross ranks.
        let message = panic_message(|| {
            ExecutorExt::sum::<u64>(&ex, &[1u64, 2, 3][..]);
        });
        assert!(message.contains("given no codec"), "{message}");
        // Ranks that fold different lengths.
        if ex.size() > 1 {
            let len = 100 + ex.rank();
            let message = panic_message(|| {
                ExecutorExt::fold(
                    &ex,
                    0..len,
                    Encoded(|| 0usize, Postcard),
                    |s, _| s + 1,
                    |a, b| a + b,
                );
            });
            assert!(message.contains("different lengths"), "{message}");
        }
        // A fold across ranks started on another thread (MPI is called from one thread only).
        let message = std::thread::scope(|s| {
            s.spawn(|| {
                panic_message(|| {
                    sum_below_ten(&ex);
                })
            })
            .join()
            .unwrap()
        });
        assert!(message.contains("thread other than"), "{message}");
        // A fold across ranks inside a step of another: some ranks only would make its collective
        // calls, so it is refused at the item, and the outer fold raises that on every rank.
        let one_thread = foldex_mpi::MpiEx::world()
            .unwrap()
            .local(foldex_seq::SequentialEx);
        let message = panic_message(|| {
            ExecutorExt::fold(
                &one_thread,
                0..5usize,
                Encoded(|| 0usize, Postcard),
                |s, i| {
                    let inner = Encoded(|| 0, Postcard);
                    s + ExecutorExt::fold(&one_thread, 0..i, inner, |a, _| a + 1, |a, b| a + b)
                },
                |a, b| a + b,
            );
        });
        assert!(message.contains("inside a step"), "{message}");
        // Still usable.
        assert_eq!(sum_below_ten(&ex), 45);
    }
);

ranks!(pipelines_run_across_ranks, || {
    use foldex_pipeline::IntoPipeline;
    let (_mpi, ex) = world();
    let words: Vec<String> = (0..20_011u64).map(|i| format!("w{}", i % 97)).collect();
    let long = words
        .pipe()
        .filter(|w| w.len() == 3)
        .map(|w| w.len() as u64);
    let std_long = || {
        words
            .iter()
            .filter(|w| w.len() == 3)
            .map(|w| w.len() as u64)
    };
    let e = long.encoded(Postcard);
    assert_eq!(e.count(&ex), std_long().count());
    assert_eq!(e.sum::<u64>(&ex), std_long().sum::<u64>());
    let first = words
        .pipe()
        .position_first(&foldex_seq::SequentialEx, |w| w == "w96");
    let across = words
        .pipe()
        .encoded(Postcard)
        .position_first(&ex, |w| w == "w96");
    assert_eq!(across, first);
    // Items the ranks send back are owned: a borrowed `&String` has no codec (it does not compile).
    let found = words
        .pipe()
        .cloned()
        .encoded(Postcard)
        .find_first(&ex, |w| w.ends_with("42"));
    assert_eq!(found.as_ref(), words.iter().find(|w| w.ends_with("42")));
    let order: Vec<u8> = words
        .pipe()
        .map(|w| w.len() as u8)
        .encoded(Postcard)
        .collect(&ex);
    assert_eq!(
        order,
        words.iter().map(|w| w.len() as u8).collect::<Vec<_>>()
    );
});
