//! The fork–join promises ([`check_join`]): `ExecutorExt::join` on any executor.

use crate::{basesizes, quietly, run_property, Boom};
use foldex_core::{Basesize, Executor, ExecutorExt};
use proptest::prelude::*;
use std::panic;
use std::sync::atomic::{AtomicU8, Ordering};

/// A join tree over the leaves `range`: halves split at `mid` (a pseudo-random point, so trees
/// are uneven), runs of at most `grain` leaves at the bottom. Every leaf bumps its counter;
/// then a run holding leaves in `panics` panics with the first of them. Returns the sum of the leaves' indices.
fn tree(ex: &dyn Executor, counts: &[AtomicU8], range: (usize, usize), shape: &Shape) -> usize {
    let (start, end) = range;
    if end - start <= shape.grain {
        for count in &counts[start..end] {
            count.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(&first) = shape
            .panics
            .iter()
            .filter(|&&i| (start..end).contains(&i))
            .min()
        {
            panic::panic_any(Boom(first));
        }
        return (start..end).sum();
    }
    let mid = start
        + 1
        + (start.wrapping_mul(31) ^ end.wrapping_mul(17) ^ shape.seed) % (end - start - 1);
    let (a, b) = ex.join(
        || tree(ex, counts, (start, mid), shape),
        || tree(ex, counts, (mid, end), shape),
    );
    a + b
}

#[derive(Debug, Clone)]
struct Shape {
    grain: usize,
    seed: usize,
    panics: Vec<usize>,
}

/// Fork–join: `join` returns both results as `(a(), b())` does, in uneven trees of nested
/// joins (every leaf runs exactly once, lengths `0..=3000`); when leaves panic, every leaf
/// still runs once and the payload raised is the first panicking leaf's by position, and the
/// executor keeps working afterwards; joins nest in folds and folds in joins; the halves may
/// borrow the caller's stack mutably, one half each.
pub fn check_join<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_join_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_join`] through `&dyn Executor`, compiled once.
pub(crate) fn check_join_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let shapes = (
        1usize..=40,
        any::<usize>(),
        proptest::collection::vec(0usize..3000, 0..3),
    );
    run_property(
        "join",
        (0usize..=3000, shapes, basesizes()),
        |(len, (grain, seed, panics), bs)| {
            let ex = make(bs);
            let ex: &dyn Executor = &*ex;
            let panics: Vec<usize> = panics.into_iter().filter(|&i| i < len).collect();
            let shape = Shape {
                grain,
                seed,
                panics,
            };
            let counts: Vec<AtomicU8> = (0..len).map(|_| AtomicU8::new(0)).collect();
            let got = quietly(|| tree(ex, &counts, (0, len), &shape));
            for (i, count) in counts.iter().enumerate() {
                prop_assert_eq!(count.load(Ordering::Relaxed), 1, "leaf {} ran", i);
            }
            match (got, shape.panics.iter().min()) {
                (Ok(sum), None) => prop_assert_eq!(sum, len * len.saturating_sub(1) / 2),
                (Err(payload), Some(&first)) => {
                    prop_assert_eq!(payload.downcast_ref::<Boom>(), Some(&Boom(first)))
                }
                (Ok(_), Some(first)) => prop_assert!(false, "leaf {first}'s panic was lost"),
                (Err(_), None) => prop_assert!(false, "a panic where no leaf panicked"),
            }

            // Reuse after a panic, nested both ways, and borrowing the stack mutably.
            let nested = ex.map_reduce(
                0..len.min(64),
                |i| {
                    let (a, b) = ex.join(|| ex.sum::<usize>(0..i), || i);
                    a + b
                },
                || 0,
                |a, b| a + b,
            );
            let n = len.min(64);
            prop_assert_eq!(nested, n * n.saturating_sub(1) * n.saturating_add(1) / 6);
            let mut buf = vec![0usize; len];
            let (left, right) = buf.split_at_mut(len / 2);
            let ((), ()) = ex.join(
                || left.iter_mut().enumerate().for_each(|(i, x)| *x = i),
                || {
                    let half = len / 2;
                    let inner = ex.sum::<usize>(0..right.len());
                    right
                        .iter_mut()
                        .enumerate()
                        .for_each(|(i, x)| *x = half + i);
                    assert_eq!(inner, right.len() * right.len().saturating_sub(1) / 2);
                },
            );
            prop_assert!(buf.iter().enumerate().all(|(i, &x)| x == i));
            Ok(())
        },
    );
}
