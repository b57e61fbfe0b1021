//! rayon's `src/range_inclusive.rs` (its tests module).

use super::*;

/// rayon's `opt_len()` is foldex's `len()` (an inclusive `u32` range has a length on
/// 64-bit targets); the counts are checked on every executor too.
#[test]
#[cfg(target_pointer_width = "64")]
fn test_u32_opt_len() {
    assert_eq!((0..=100u32).pipe().len(), 101);
    assert_eq!((0..=u32::MAX - 1).pipe().len(), u32::MAX as usize);
    assert_eq!((0..=u32::MAX).pipe().len(), u32::MAX as usize + 1);
    each("test_u32_opt_len", |ex, what| {
        assert_eq!((0..=100u32).pipe().count(ex), 101, "{what}");
        let last = (0..=u32::MAX)
            .pipe()
            .skip(u32::MAX as usize - 2)
            .collect::<Vec<u32>>(ex);
        assert_eq!(last, [u32::MAX - 2, u32::MAX - 1, u32::MAX], "{what}");
    });
}

/// An inclusive `u64` range is not indexable (it may hold `usize::MAX + 1` items), as in rayon,
/// and has no `len()`: rayon's `opt_len() == Some(n)` is the count, or (too many items to
/// count) the position of the last item, `n - 1`; its two ranges of `usize::MAX + 1` items and
/// more (`opt_len() == None`) are searched from both ends.
#[test]
#[cfg(target_pointer_width = "64")]
fn test_u64_opt_len() {
    each("test_u64_opt_len", |ex, what| {
        assert_eq!((0..=100u64).pipe().count(ex), 101, "{what}");
        let short = (0..=usize::MAX as u64 - 1).pipe();
        assert_eq!(
            short.position_last(ex, |_| true),
            Some(usize::MAX - 1),
            "{what}"
        );
        assert_eq!(short.find_last(ex, |_| true), Some(u64::MAX - 1), "{what}");
        for long in [(0..=usize::MAX as u64).pipe(), (0..=u64::MAX).pipe()] {
            assert_eq!(long.find_first(ex, |_| true), Some(0), "{what}");
            assert_eq!(long.find_last(ex, |_| true), Some(u64::MAX), "{what}");
            let top = long.find_last(ex, |x| x % 3 == 1);
            assert_eq!(top, Some(u64::MAX - 2), "{what}");
        }
    });
}

/// As `test_u64_opt_len`, for `u128`.
#[test]
fn test_u128_opt_len() {
    each("test_u128_opt_len", |ex, what| {
        assert_eq!((0..=100u128).pipe().count(ex), 101, "{what}");
        let short = (0..=usize::MAX as u128 - 1).pipe();
        let last = short.position_last(ex, |_| true);
        assert_eq!(last, Some(usize::MAX - 1), "{what}");
        for end in [usize::MAX as u128, u128::MAX] {
            let long = (0..=end).pipe();
            assert_eq!(long.find_first(ex, |_| true), Some(0), "{what}");
            assert_eq!(long.find_last(ex, |_| true), Some(end), "{what}");
        }
    });
}

/// rayon runs it on 8 threads "or this will take forever"; foldex's `find_last` stops
/// from the right on every executor. rayon's `opt_len()` is the position of the last item
/// plus one: an inclusive `i64` range has no `len()`.
#[test]
#[cfg(target_pointer_width = "64")]
fn test_usize_i64_overflow() {
    let iter = (-2..=i64::MAX).pipe();
    each("test_usize_i64_overflow", |ex, what| {
        let last = iter.position_last(ex, |_| true);
        assert_eq!(last.map(|p| p + 1), Some(i64::MAX as usize + 3), "{what}");
        assert_eq!(iter.find_last(ex, |_| true), Some(i64::MAX), "{what}");
    });
}
