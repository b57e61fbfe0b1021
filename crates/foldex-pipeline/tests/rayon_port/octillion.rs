//! rayon's `tests/octillion.rs`: stopping early in a space far larger than memory.

use super::*;

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

/// Fails today (a known gap of issue 34): `find_last` visits one source item's outputs
/// in order, and here one item of the outer range becomes 10^18 items through the nested
/// `flat_map`s; rayon searches each inner range from the right.
#[test]
#[ignore = "find_last visits the outputs of one flat_map item in order: 10^18 of them here"]
fn find_last_octillion_flat() {
    each("find_last_octillion_flat", |ex, what| {
        let x = (0u32..1_000_000_000)
            .pipe()
            .map(|i| u64::from(i) * 1_000_000_000)
            .flat_map(|i| (0u32..1_000_000_000).map(move |j| i + u64::from(j)))
            .map(|i| u128::from(i) * 1_000_000_000)
            .flat_map(|i| (0u32..1_000_000_000).map(move |j| i + u128::from(j)))
            .find_last(ex, |_| true);
        assert_eq!(x, Some(OCTILLION - 1), "{what}");
    });
}

/// rayon's `octillion_flat` is `0u128..10^27` built of three `flat_map`s of `0..10^9`, with
/// `with_max_len(1_000)` on each range; foldex's inner ranges are `std` ones (its `flat_map`
/// reads an item's sequence in the piece that holds the item), so only the outer range has it.
#[test]
fn find_first_octillion_flat() {
    each("find_first_octillion_flat", |ex, what| {
        let x = (0u32..1_000_000_000)
            .pipe()
            .with_max_len(1_000)
            .map(|i| u64::from(i) * 1_000_000_000)
            .flat_map(|i| (0u32..1_000_000_000).map(move |j| i + u64::from(j)))
            .map(|i| u128::from(i) * 1_000_000_000)
            .flat_map(|i| (0u32..1_000_000_000).map(move |j| i + u128::from(j)))
            .find_first(ex, |_| true);
        assert_eq!(x, Some(0), "{what}");
    });
}
