//! rayon's `tests/octillion.rs`: stopping early in a space far larger than memory.

use super::*;

/// rayon's `octillion_flat` is `0u128..10^27` built of three `flat_map`s of `0..10^9`, with
/// `with_max_len(1_000)` on each range; foldex's inner ranges are `std` ones and it has no
/// `with_max_len` yet.
#[test]
fn find_first_octillion_flat() {
    each("find_first_octillion_flat", |ex, what| {
        let x = (0u32..1_000_000_000)
            .pipe()
            .map(|i| u64::from(i) * 1_000_000_000)
            .flat_map(|i| (0u32..1_000_000_000).map(move |j| i + u64::from(j)))
            .map(|i| u128::from(i) * 1_000_000_000)
            .flat_map(|i| (0u32..1_000_000_000).map(move |j| i + u128::from(j)))
            .find_first(ex, |_| true);
        assert_eq!(x, Some(0), "{what}");
    });
}
