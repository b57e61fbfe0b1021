//! rayon's `tests/drain_vec.rs`: a `Vec`'s range moved out (`pipe_drain`, rayon's
//! `par_drain`).

use super::*;
use foldex_pipeline::sources::PipeDrain;

#[test]
fn drain_vec_yielded() {
    each("drain_vec_yielded", |ex, what| {
        let mut vec_org = vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
        let yielded: Vec<i32> = vec_org.pipe_drain(0..5).collect(ex);
        assert_eq!(&yielded, &[0, 1, 2, 3, 4], "{what}");
        assert_eq!(&vec_org, &[5, 6, 7, 8, 9], "{what}");
    });
}

#[test]
fn drain_vec_dropped() {
    let mut vec_org = vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    let yielded = vec_org.pipe_drain(0..5);
    drop(yielded);
    assert_eq!(&vec_org, &[5, 6, 7, 8, 9]);
}

#[test]
fn drain_vec_empty_range_yielded() {
    each("drain_vec_empty_range_yielded", |ex, what| {
        let mut vec_org = vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
        let yielded: Vec<i32> = vec_org.pipe_drain(5..5).collect(ex);
        assert_eq!(&yielded, &[], "{what}");
        assert_eq!(&vec_org, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], "{what}");
    });
}

#[test]
fn drain_vec_empty_range_dropped() {
    let mut vec_org = vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    let yielded = vec_org.pipe_drain(5..5);
    drop(yielded);
    assert_eq!(&vec_org, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
}
