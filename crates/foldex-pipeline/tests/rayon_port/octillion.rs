//! rayon's `tests/octillion.rs`: stopping early in a space far larger than memory.

use super::*;
use foldex_core::Source;
use foldex_pipeline::transform::Transform;
use foldex_pipeline::Pipeline;

const OCTILLION: u128 = 1_000_000_000_000_000_000_000_000_000;

#[test]
fn find_first_octillion() {
    each("find_first_octillion", |ex, what| {
        let x = (0..OCTILLION).pipe().find_first(ex, |_| true);
        assert_eq!(x, Some(0), "{what}");
    });
}

#[test]
fn find_first_octillion_inclusive() {
    each("find_first_octillion_inclusive", |ex, what| {
        let x = (0..=OCTILLION).pipe().find_first(ex, |_| true);
        assert_eq!(x, Some(0), "{what}");
    });
}

#[test]
fn find_last_octillion() {
    each("find_last_octillion", |ex, what| {
        let x = (0..OCTILLION).pipe().find_last(ex, |_| true);
        assert_eq!(x, Some(OCTILLION - 1), "{what}");
    });
}

#[test]
fn find_last_octillion_inclusive() {
    each("find_last_octillion_inclusive", |ex, what| {
        let x = (0..=OCTILLION).pipe().find_last(ex, |_| true);
        assert_eq!(x, Some(OCTILLION), "{what}");
    });
}

/// rayon's `octillion_flat`: `0u128..10^27` built of two nested `flat_map`s of `0..10^9`
/// (parallel inner iterators, foldex's `flat_map_pipe`), with `with_max_len(1_000)` on each
/// range as rayon sets it.
fn octillion_flat() -> Pipeline<impl Source<Item = u64>, impl Transform<u64, Out = u128>> {
    (0u32..1_000_000_000)
        .pipe()
        .with_max_len(1_000)
        .map(|i| u64::from(i) * 1_000_000_000)
        .flat_map_pipe(|i| {
            (0u32..1_000_000_000)
                .pipe()
                .with_max_len(1_000)
                .map(move |j| i + u64::from(j))
        })
        .map(|i| u128::from(i) * 1_000_000_000)
        .flat_map_pipe(|i| {
            (0u32..1_000_000_000)
                .pipe()
                .with_max_len(1_000)
                .map(move |j| i + u128::from(j))
        })
}

#[test]
fn find_first_octillion_flat() {
    each("find_first_octillion_flat", |ex, what| {
        let x = octillion_flat().find_first(ex, |_| true);
        assert_eq!(x, Some(0), "{what}");
    });
}

#[test]
fn find_last_octillion_flat() {
    each("find_last_octillion_flat", |ex, what| {
        let x = octillion_flat().find_last(ex, |_| true);
        assert_eq!(x, Some(OCTILLION - 1), "{what}");
    });
}
