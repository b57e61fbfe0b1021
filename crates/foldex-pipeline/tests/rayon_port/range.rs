//! rayon's `src/range.rs` (its tests module).

use super::*;

/// rayon's `opt_len()` is foldex's `len()`. rayon's second half runs only where `u64` ranges
/// can be longer than `usize::MAX` (32-bit targets): on 64-bit ones every `u64` range has a
/// length, as here.
#[test]
#[cfg(target_pointer_width = "64")]
fn test_u64_opt_len() {
    assert_eq!((0..100u64).pipe().len(), 100);
    assert_eq!((0..usize::MAX as u64).pipe().len(), usize::MAX);
    each("test_u64_opt_len", |ex, what| {
        assert_eq!((0..100u64).pipe().count(ex), 100, "{what}");
        let last = (0..usize::MAX as u64).pipe().skip(usize::MAX - 2);
        assert_eq!(
            last.collect::<Vec<_>>(ex),
            [u64::MAX - 2, u64::MAX - 1],
            "{what}"
        );
    });
}

/// A `u128` range is not indexable (it may be longer than `usize::MAX`), as in rayon, and has
/// no `len()`: rayon's `opt_len() == Some(n)` is the count, or (too many items to count) the
/// position of the last item, `n - 1`; its ranges longer than `usize::MAX`
/// (`opt_len() == None`) are searched from both ends.
#[test]
fn test_u128_opt_len() {
    each("test_u128_opt_len", |ex, what| {
        assert_eq!((0..100u128).pipe().count(ex), 100, "{what}");
        let short = (0..usize::MAX as u128).pipe();
        let last = short.position_last(ex, |_| true);
        assert_eq!(last, Some(usize::MAX - 1), "{what}");
        for end in [1 + usize::MAX as u128, u128::MAX] {
            let long = (0..end).pipe();
            assert_eq!(long.find_first(ex, |_| true), Some(0), "{what}");
            assert_eq!(long.find_last(ex, |_| true), Some(end - 1), "{what}");
        }
    });
}

/// As in `range_inclusive`.
#[test]
#[cfg(target_pointer_width = "64")]
fn test_usize_i64_overflow() {
    let iter = (-2..i64::MAX).pipe();
    assert_eq!(iter.len(), i64::MAX as usize + 2);
    each("test_usize_i64_overflow", |ex, what| {
        assert_eq!(iter.find_last(ex, |_| true), Some(i64::MAX - 1), "{what}");
    });
}
