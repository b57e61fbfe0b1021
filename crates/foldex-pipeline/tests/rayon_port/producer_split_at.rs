//! rayon's `tests/producer_split_at.rs` checks every `Producer::split_at` (rayon's plumbing)
//! at every triple of points. foldex's counterpart is the executor's split of the indices: each
//! check collects the pipeline, its `rev`, and every sub-range `skip(i).take(j - i)` (and its
//! `rev`), on every executor (basesize 1 and 7 among them).

use super::*;
use foldex_pipeline::sources::IntoOwnedPipeline;

macro_rules! check {
    ($name:expr, $expected:expr, $pipe:expr) => {
        each($name, |ex, what| {
            let expected = &$expected;
            {
                let got: Vec<_> = $pipe.collect(ex);
                assert_eq!(got[..], expected[..], "{what}");
            }
            {
                let rev: Vec<_> = $pipe.rev().collect(ex);
                assert!(rev.iter().eq(expected.iter().rev()), "rev: {what}");
            }
            for i in 0..=expected.len() {
                for j in i..=expected.len() {
                    {
                        let part: Vec<_> = $pipe.skip(i).take(j - i).collect(ex);
                        assert_eq!(part[..], expected[i..j], "{i}..{j}: {what}");
                    }
                    let part: Vec<_> = $pipe.skip(i).take(j - i).rev().collect(ex);
                    assert!(
                        part.iter().eq(expected[i..j].iter().rev()),
                        "{i}..{j} rev: {what}"
                    );
                }
            }
        })
    };
}

/// The pipelines that are not indexable (a transform after the source) have no `rev`,
/// `skip` or `take`: only their order is checked.
macro_rules! check_forward {
    ($name:expr, $expected:expr, $pipe:expr) => {
        each($name, |ex, what| {
            let expected = &$expected;
            let got: Vec<_> = $pipe.collect(ex);
            assert_eq!(got[..], expected[..], "{what}");
        })
    };
}

/// rayon takes the array by value; foldex takes arrays by reference.
#[test]
fn array() {
    let a = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    check!("array", a, a.pipe().copied());
}

#[test]
fn range() {
    let v: Vec<i32> = (0..10).collect();
    check!("range", v, (0_i32..10).pipe());
}

#[test]
fn range_inclusive() {
    let v: Vec<u16> = (0u16..=10).collect();
    check!("range_inclusive", v, (0u16..=10).pipe());
}

#[test]
fn slice_iter() {
    let s: Vec<i32> = (0..10).collect();
    let v: Vec<&i32> = s.iter().collect();
    check!("slice_iter", v, s.pipe());
}

#[test]
fn slice_iter_mut() {
    let mut s: Vec<i32> = (0..10).collect();
    let mut v: Vec<i32> = s.clone();
    check!(
        "slice_iter_mut",
        v.iter_mut().collect::<Vec<_>>(),
        (&mut s).pipe()
    );
}

#[test]
fn slice_chunks() {
    let s: Vec<i32> = (0..10).collect();
    for len in 1..s.len() + 2 {
        let v: Vec<&[i32]> = s.chunks(len).collect();
        check!("slice_chunks", v, s.pipe().chunks(len));
    }
}

#[test]
fn slice_chunks_mut() {
    let mut s: Vec<i32> = (0..10).collect();
    let mut v: Vec<i32> = s.clone();
    for len in 1..s.len() + 2 {
        check!(
            "slice_chunks_mut",
            v.chunks_mut(len).collect::<Vec<_>>(),
            (&mut s).pipe().chunks_mut(len)
        );
    }
}

#[test]
fn slice_windows() {
    let s: Vec<i32> = (0..10).collect();
    let v: Vec<&[i32]> = s.windows(2).collect();
    check!("slice_windows", v, s.pipe().windows(2));
}

#[test]
fn vec() {
    let v: Vec<i32> = (0..10).collect();
    check!("vec", v, from_vec(v.clone()));
}

#[test]
fn chain() {
    let v: Vec<i32> = (0..10).collect();
    check!("chain", v, (0_i32..5).pipe().chain(5_i32..10));
}

#[test]
fn cloned() {
    let v: Vec<i32> = (0..10).collect();
    check!("cloned", v, v.pipe().cloned());
}

#[test]
fn copied() {
    let v: Vec<i32> = (0..10).collect();
    check!("copied", v, v.pipe().copied());
}

#[test]
fn enumerate() {
    let v: Vec<(usize, i32)> = (0..10).enumerate().collect();
    check!("enumerate", v, (0_i32..10).pipe().enumerate());
}

#[test]
fn step_by() {
    let v: Vec<i32> = (0..10).step_by(2).collect();
    check!("step_by", v, (0_i32..10).pipe().step_by(2));
}

#[test]
fn step_by_unaligned() {
    let v: Vec<i32> = (0..10).step_by(3).collect();
    check!("step_by_unaligned", v, (0_i32..10).pipe().step_by(3));
}

/// `inspect` is a transform in foldex: the pipeline after it is not indexable.
#[test]
fn inspect() {
    let v: Vec<i32> = (0..10).collect();
    check_forward!("inspect", v, (0_i32..10).pipe().inspect(|_| ()));
}

#[test]
fn map() {
    let v: Vec<i32> = (0..10).collect();
    check!("map", v, v.pipe().map(Clone::clone));
}

/// `map_init` is a transform in foldex: the pipeline after it is not indexable.
#[test]
fn map_init() {
    let v: Vec<i32> = (0..10).collect();
    check_forward!("map_init", v, v.pipe().map_init(|| vec![0], |_, &x| x));
}

#[test]
fn rev() {
    let v: Vec<i32> = (0..10).rev().collect();
    check!("rev", v, (0_i32..10).pipe().rev());
}

#[test]
fn with_max_len() {
    let v: Vec<i32> = (0..10).collect();
    check!("with_max_len", v, v.pipe().with_max_len(1).cloned());
}

#[test]
fn with_min_len() {
    let v: Vec<i32> = (0..10).collect();
    check!("with_min_len", v, v.pipe().with_min_len(1).cloned());
}

#[test]
fn zip() {
    let v: Vec<(i32, i32)> = (0..10).zip(10..20).collect();
    check!("zip", v, (0_i32..10).pipe().zip(10_i32..20));
    check!("zip", v[..5], (0_i32..5).pipe().zip(10_i32..20));
    check!("zip", v[..5], (0_i32..10).pipe().zip(10_i32..15));
}

#[test]
fn empty() {
    check!(
        "empty",
        Vec::<i32>::new(),
        foldex_pipeline::sources::empty::<i32>()
    );
}

#[test]
fn once() {
    check!("once", [42], foldex_pipeline::sources::once(42));
}

/// rayon's `Some(0).into_par_iter()`; the `Option` by reference as well.
#[test]
fn option() {
    check!("option", [0], Some(0).into_pipe());
    check!("option", [0], Some(0).pipe().copied());
}

#[test]
fn repeat_n() {
    let v: Vec<_> = std::iter::repeat_n(1, 5).collect();
    check!("repeat_n", v, foldex_pipeline::sources::repeat_n(1, 5));
}

#[test]
fn slice_chunks_exact() {
    let s: Vec<i32> = (0..10).collect();
    for len in 1..s.len() + 2 {
        let v: Vec<&[i32]> = s.chunks_exact(len).collect();
        check!("slice_chunks_exact", v, s.pipe().chunks_exact(len));
    }
}

#[test]
fn slice_rchunks() {
    let s: Vec<i32> = (0..10).collect();
    for len in 1..s.len() + 2 {
        let v: Vec<&[i32]> = s.rchunks(len).collect();
        check!("slice_rchunks", v, s.pipe().rchunks(len));
    }
}

#[test]
fn slice_rchunks_exact() {
    let s: Vec<i32> = (0..10).collect();
    for len in 1..s.len() + 2 {
        let v: Vec<&[i32]> = s.rchunks_exact(len).collect();
        check!("slice_rchunks_exact", v, s.pipe().rchunks_exact(len));
    }
}

#[test]
fn update() {
    let v: Vec<i32> = (0..10).collect();
    check!("update", v, (0_i32..10).pipe().update(|_| ()));
}

#[test]
fn interleave() {
    let v = [0, 10, 1, 11, 2, 12, 3, 4];
    check!("interleave", v, (0_i32..5).pipe().interleave(10_i32..13));
    check!(
        "interleave",
        v[..6],
        (0_i32..3).pipe().interleave(10_i32..13)
    );
    let v = [0, 10, 1, 11, 2, 12, 13, 14];
    check!("interleave", v, (0_i32..3).pipe().interleave(10_i32..15));
}

/// rayon's `chunks` of any indexed iterator; here of a range (items `Vec<i32>`).
#[test]
fn chunks() {
    let s: Vec<i32> = (0..10).collect();
    let v: Vec<Vec<i32>> = s.chunks(2).map(|c| c.to_vec()).collect();
    check!("chunks", v, (0_i32..10).pipe().chunks(2));
}

#[test]
fn panic_fuse() {
    let v: Vec<i32> = (0..10).collect();
    check!("panic_fuse", v, (0_i32..10).pipe().panic_fuse());
}

/// `intersperse` is a transform in foldex: the pipeline after it is not indexable.
#[test]
fn intersperse() {
    let v = [0, -1, 1, -1, 2, -1, 3, -1, 4];
    check_forward!("intersperse", v, (0_i32..5).pipe().intersperse(-1));
}

/// `map_with` is a transform in foldex: the pipeline after it is not indexable.
#[test]
fn map_with() {
    let v: Vec<i32> = (0..10).collect();
    check_forward!("map_with", v, v.pipe().map_with(vec![0], |_, &x| x));
}
