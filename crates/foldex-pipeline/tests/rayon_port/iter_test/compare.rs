//! The comparisons of rayon's `src/iter/test.rs` (`cmp`, `partial_cmp`, `eq`, `ne`, `lt`,
//! `le`, `gt`, `ge` of two indexable pipelines).

use super::super::*;
use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn check_cmp_direct() {
    each("check_cmp_direct", |ex, what| {
        let result = (0_i32..1024).pipe().cmp(ex, 0_i32..1024);
        assert!(result == std::cmp::Ordering::Equal, "{what}");
    });
}

#[test]
fn check_cmp_to_seq() {
    each("check_cmp_to_seq", |ex, what| {
        assert_eq!(
            (0_i32..1024).pipe().cmp(ex, 0_i32..1024),
            (0..1024).cmp(0..1024),
            "{what}"
        );
    });
}

#[test]
fn check_cmp_rng_to_seq() {
    each("check_cmp_rng_to_seq", |ex, what| {
        let ab = seeded_i32s(2048);
        let (a, b) = ab.split_at(1024);
        for i in 0..a.len() {
            let par_result = a[i..].pipe().cmp(ex, &b[i..]);
            let seq_result = a[i..].iter().cmp(b[i..].iter());
            assert_eq!(par_result, seq_result, "{i}: {what}");
        }
    });
}

#[test]
fn check_cmp_lt_direct() {
    each("check_cmp_lt_direct", |ex, what| {
        let result = (0_i32..1024).pipe().cmp(ex, 1_i32..1024);
        assert!(result == std::cmp::Ordering::Less, "{what}");
    });
}

#[test]
fn check_cmp_lt_to_seq() {
    each("check_cmp_lt_to_seq", |ex, what| {
        assert_eq!(
            (0_i32..1024).pipe().cmp(ex, 1_i32..1024),
            (0..1024).cmp(1..1024),
            "{what}"
        );
    });
}

#[test]
fn check_cmp_gt_direct() {
    each("check_cmp_gt_direct", |ex, what| {
        let result = (1_i32..1024).pipe().cmp(ex, 0_i32..1024);
        assert!(result == std::cmp::Ordering::Greater, "{what}");
    });
}

#[test]
fn check_cmp_gt_to_seq() {
    each("check_cmp_gt_to_seq", |ex, what| {
        assert_eq!(
            (1_i32..1024).pipe().cmp(ex, 0_i32..1024),
            (1..1024).cmp(0..1024),
            "{what}"
        );
    });
}

#[test]
fn check_partial_cmp_direct() {
    each("check_partial_cmp_direct", |ex, what| {
        let result = (0_i32..1024).pipe().partial_cmp(ex, 0_i32..1024);
        assert!(result == Some(std::cmp::Ordering::Equal), "{what}");
    });
}

#[test]
fn check_partial_cmp_to_seq() {
    each("check_partial_cmp_to_seq", |ex, what| {
        let par_result = (0_i32..1024).pipe().partial_cmp(ex, 0_i32..1024);
        let seq_result = (0..1024).partial_cmp(0..1024);
        assert_eq!(par_result, seq_result, "{what}");
    });
}

#[test]
fn check_partial_cmp_rng_to_seq() {
    each("check_partial_cmp_rng_to_seq", |ex, what| {
        let ab = seeded_i32s(2048);
        let (a, b) = ab.split_at(1024);
        for i in 0..a.len() {
            let par_result = a[i..].pipe().partial_cmp(ex, &b[i..]);
            let seq_result = a[i..].iter().partial_cmp(b[i..].iter());
            assert_eq!(par_result, seq_result, "{i}: {what}");
        }
    });
}

#[test]
fn check_partial_cmp_lt_direct() {
    each("check_partial_cmp_lt_direct", |ex, what| {
        let result = (0_i32..1024).pipe().partial_cmp(ex, 1_i32..1024);
        assert!(result == Some(std::cmp::Ordering::Less), "{what}");
    });
}

#[test]
fn check_partial_cmp_lt_to_seq() {
    each("check_partial_cmp_lt_to_seq", |ex, what| {
        let par_result = (0_i32..1024).pipe().partial_cmp(ex, 1_i32..1024);
        let seq_result = (0..1024).partial_cmp(1..1024);
        assert_eq!(par_result, seq_result, "{what}");
    });
}

#[test]
fn check_partial_cmp_gt_direct() {
    each("check_partial_cmp_gt_direct", |ex, what| {
        let result = (1_i32..1024).pipe().partial_cmp(ex, 0_i32..1024);
        assert!(result == Some(std::cmp::Ordering::Greater), "{what}");
    });
}

#[test]
fn check_partial_cmp_gt_to_seq() {
    each("check_partial_cmp_gt_to_seq", |ex, what| {
        let par_result = (1_i32..1024).pipe().partial_cmp(ex, 0_i32..1024);
        let seq_result = (1..1024).partial_cmp(0..1024);
        assert_eq!(par_result, seq_result, "{what}");
    });
}

#[test]
fn check_partial_cmp_none_direct() {
    each("check_partial_cmp_none_direct", |ex, what| {
        let a = vec![f64::NAN, 0.0];
        let b = vec![0.0, 1.0];
        assert!(a.pipe().partial_cmp(ex, &b).is_none(), "{what}");
    });
}

#[test]
fn check_partial_cmp_none_to_seq() {
    each("check_partial_cmp_none_to_seq", |ex, what| {
        let a = vec![f64::NAN, 0.0];
        let b = vec![0.0, 1.0];
        assert_eq!(
            a.pipe().partial_cmp(ex, &b),
            a.iter().partial_cmp(b.iter()),
            "{what}"
        );
    });
}

#[test]
fn check_partial_cmp_late_nan_direct() {
    each("check_partial_cmp_late_nan_direct", |ex, what| {
        let a = vec![0.0, f64::NAN];
        let b = vec![1.0, 1.0];
        let result = a.pipe().partial_cmp(ex, &b);
        assert!(result == Some(std::cmp::Ordering::Less), "{what}");
    });
}

#[test]
fn check_partial_cmp_late_nan_to_seq() {
    each("check_partial_cmp_late_nan_to_seq", |ex, what| {
        let a = vec![0.0, f64::NAN];
        let b = vec![1.0, 1.0];
        assert_eq!(
            a.pipe().partial_cmp(ex, &b),
            a.iter().partial_cmp(b.iter()),
            "{what}"
        );
    });
}

#[test]
fn check_cmp_lengths() {
    each("check_cmp_lengths", |ex, what| {
        // comparisons consider length if they are otherwise equal
        let a = vec![0; 1024];
        let b = vec![0; 1025];
        assert_eq!(a.pipe().cmp(ex, &b), a.iter().cmp(&b), "{what}");
        assert_eq!(
            a.pipe().partial_cmp(ex, &b),
            a.iter().partial_cmp(&b),
            "{what}"
        );
    });
}

#[test]
fn check_eq_direct() {
    each("check_eq_direct", |ex, what| {
        assert!((0_i32..1024).pipe().eq(ex, 0_i32..1024), "{what}");
    });
}

#[test]
fn check_eq_to_seq() {
    each("check_eq_to_seq", |ex, what| {
        let par_result = (0_i32..1024).pipe().eq(ex, 0_i32..1024);
        assert_eq!(par_result, (0..1024).eq(0..1024), "{what}");
    });
}

#[test]
fn check_ne_direct() {
    each("check_ne_direct", |ex, what| {
        assert!((0_i32..1024).pipe().ne(ex, 1_i32..1024), "{what}");
    });
}

#[test]
fn check_ne_to_seq() {
    each("check_ne_to_seq", |ex, what| {
        let par_result = (0_i32..1024).pipe().ne(ex, 1_i32..1025);
        assert_eq!(par_result, (0..1024).ne(1..1025), "{what}");
    });
}

#[test]
fn check_ne_lengths() {
    each("check_ne_lengths", |ex, what| {
        // equality considers length too
        let a = vec![0; 1024];
        let b = vec![0; 1025];
        assert_eq!(a.pipe().eq(ex, &b), a.iter().eq(&b), "{what}");
        assert_eq!(a.pipe().ne(ex, &b), a.iter().ne(&b), "{what}");
    });
}

#[test]
fn check_lt_direct() {
    each("check_lt_direct", |ex, what| {
        assert!((0_i32..1024).pipe().lt(ex, 1_i32..1024), "{what}");
        assert!(!(1_i32..1024).pipe().lt(ex, 0_i32..1024), "{what}");
    });
}

#[test]
fn check_lt_to_seq() {
    each("check_lt_to_seq", |ex, what| {
        let par_result = (0_i32..1024).pipe().lt(ex, 1_i32..1024);
        assert_eq!(par_result, (0..1024).lt(1..1024), "{what}");
    });
}

#[test]
fn check_le_equal_direct() {
    each("check_le_equal_direct", |ex, what| {
        assert!((0_i32..1024).pipe().le(ex, 0_i32..1024), "{what}");
    });
}

#[test]
fn check_le_equal_to_seq() {
    each("check_le_equal_to_seq", |ex, what| {
        let par_result = (0_i32..1024).pipe().le(ex, 0_i32..1024);
        assert_eq!(par_result, (0..1024).le(0..1024), "{what}");
    });
}

#[test]
fn check_le_less_direct() {
    each("check_le_less_direct", |ex, what| {
        assert!((0_i32..1024).pipe().le(ex, 1_i32..1024), "{what}");
    });
}

#[test]
fn check_le_less_to_seq() {
    each("check_le_less_to_seq", |ex, what| {
        let par_result = (0_i32..1024).pipe().le(ex, 1_i32..1024);
        assert_eq!(par_result, (0..1024).le(1..1024), "{what}");
    });
}

#[test]
fn check_gt_direct() {
    each("check_gt_direct", |ex, what| {
        assert!((1_i32..1024).pipe().gt(ex, 0_i32..1024), "{what}");
    });
}

#[test]
fn check_gt_to_seq() {
    each("check_gt_to_seq", |ex, what| {
        let par_result = (1_i32..1024).pipe().gt(ex, 0_i32..1024);
        assert_eq!(par_result, (1..1024).gt(0..1024), "{what}");
    });
}

#[test]
fn check_ge_equal_direct() {
    each("check_ge_equal_direct", |ex, what| {
        assert!((0_i32..1024).pipe().ge(ex, 0_i32..1024), "{what}");
    });
}

#[test]
fn check_ge_equal_to_seq() {
    each("check_ge_equal_to_seq", |ex, what| {
        let par_result = (0_i32..1024).pipe().ge(ex, 0_i32..1024);
        assert_eq!(par_result, (0..1024).ge(0..1024), "{what}");
    });
}

#[test]
fn check_ge_greater_direct() {
    each("check_ge_greater_direct", |ex, what| {
        assert!((1_i32..1024).pipe().ge(ex, 0_i32..1024), "{what}");
    });
}

#[test]
fn check_ge_greater_to_seq() {
    each("check_ge_greater_to_seq", |ex, what| {
        let par_result = (1_i32..1024).pipe().ge(ex, 0_i32..1024);
        assert_eq!(par_result, (1..1024).ge(0..1024), "{what}");
    });
}

/// rayon: `a.par_iter().with_max_len(len).inspect(count).cmp(&b)` for `len` in 1..10, on a
/// 1-thread pool, visits fewer than all. foldex's comparisons are on indexable pipelines, so
/// the count is a `map` (index-preserving) rather than an `inspect` (a transform); the visits
/// are asserted fewer than all on the executors that run in order on one thread, where rayon's
/// 1-thread pool makes them deterministic.
fn short_circuit<T: Clone + Sync + Send>(
    what: &str,
    a: &[T],
    compare: impl Fn(&(dyn Fn(&T) -> T + Sync)) -> bool,
) {
    let counter = AtomicUsize::new(0);
    let count = |x: &T| {
        counter.fetch_add(1, Ordering::SeqCst);
        x.clone()
    };
    assert!(compare(&count), "{what}");
    if what.ends_with("on SequentialEx") || what.contains("NonThreadedEx") {
        assert!(counter.into_inner() < a.len(), "{what}");
    }
}

#[test]
fn check_cmp_short_circuit() {
    each("check_cmp_short_circuit", |ex, what| {
        let a = vec![0; 1024];
        let mut b = a.clone();
        b[42] = 1;
        let expected = std::cmp::Ordering::Less;
        assert_eq!(a.pipe().cmp(ex, &b), expected, "{what}");
        for len in 1..10 {
            short_circuit(what, &a, |count| {
                let a = a.pipe().with_max_len(len).map(count);
                a.cmp(ex, b.pipe().copied()) == expected
            });
        }
    });
}

#[test]
fn check_partial_cmp_short_circuit() {
    each("check_partial_cmp_short_circuit", |ex, what| {
        let a = vec![0; 1024];
        let mut b = a.clone();
        b[42] = 1;
        let expected = Some(std::cmp::Ordering::Less);
        assert_eq!(a.pipe().partial_cmp(ex, &b), expected, "{what}");
        for len in 1..10 {
            short_circuit(what, &a, |count| {
                let a = a.pipe().with_max_len(len).map(count);
                a.partial_cmp(ex, b.pipe().copied()) == expected
            });
        }
    });
}

#[test]
fn check_partial_cmp_nan_short_circuit() {
    each("check_partial_cmp_nan_short_circuit", |ex, what| {
        let a = vec![0.0; 1024];
        let mut b = a.clone();
        b[42] = f64::NAN;
        let expected = None;
        assert_eq!(a.pipe().partial_cmp(ex, &b), expected, "{what}");
        for len in 1..10 {
            short_circuit(what, &a, |count| {
                let a = a.pipe().with_max_len(len).map(count);
                a.partial_cmp(ex, b.pipe().copied()) == expected
            });
        }
    });
}
