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
