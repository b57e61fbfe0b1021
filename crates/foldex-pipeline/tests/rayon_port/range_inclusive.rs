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

/// rayon's `opt_len()` is foldex's `len()`. rayon's two ranges of `usize::MAX + 1` items and
/// more (`opt_len() == None`) are left out: a `u64` range stays indexable in foldex, and those
/// panic in `pipe()`, naming the way through a `u128` range (docs/pipelines.md's rayon table).
#[test]
#[cfg(target_pointer_width = "64")]
fn test_u64_opt_len() {
    assert_eq!((0..=100u64).pipe().len(), 101);
    assert_eq!((0..=usize::MAX as u64 - 1).pipe().len(), usize::MAX);
    each("test_u64_opt_len", |ex, what| {
        assert_eq!((0..=100u64).pipe().count(ex), 101, "{what}");
        let last = (0..=usize::MAX as u64 - 1).pipe().skip(usize::MAX - 2);
        assert_eq!(
            last.collect::<Vec<_>>(ex),
            [u64::MAX - 2, u64::MAX - 1],
            "{what}"
        );
    });
}

/// rayon runs it on 8 threads "or this will take forever"; foldex's `find_last` stops
/// from the right on every executor.
#[test]
#[cfg(target_pointer_width = "64")]
fn test_usize_i64_overflow() {
    let iter = (-2..=i64::MAX).pipe();
    assert_eq!(iter.len(), i64::MAX as usize + 3);
    each("test_usize_i64_overflow", |ex, what| {
        assert_eq!(iter.find_last(ex, |_| true), Some(i64::MAX), "{what}");
    });
}
