//! rayon's `src/iter/test.rs`.

use super::*;
use foldex_pipeline::sources::{empty, once, repeat_n, IntoOwnedPipeline, PipeStr};
use foldex_pipeline::{Either, ParallelExtend};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::fmt::Debug;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

mod compare;

#[test]
fn execute() {
    each("execute", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let b: Vec<i32> = a.pipe().map(|&i| i + 1).collect(ex);
        let c: Vec<i32> = (0..1024).map(|i| i + 1).collect();
        assert_eq!(b, c, "{what}");
    });
}

#[test]
fn execute_cloned() {
    each("execute_cloned", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let b: Vec<i32> = a.pipe().cloned().collect(ex);
        let c: Vec<i32> = (0..1024).collect();
        assert_eq!(b, c, "{what}");
    });
}

#[test]
fn execute_range() {
    each("execute_range", |ex, what| {
        let b: Vec<i32> = (0i32..1024).pipe().map(|i| i + 1).collect(ex);
        let c: Vec<i32> = (0..1024).map(|i| i + 1).collect();
        assert_eq!(b, c, "{what}");
    });
}

#[test]
fn execute_pseudo_indexed_range() {
    each("execute_pseudo_indexed_range", |ex, what| {
        let range = i128::MAX - 1024..i128::MAX;
        // An i128 range is not indexable in foldex (it may be longer than usize::MAX), as
        // rayon's is pseudo-indexed: its length is a count, and `map` follows a stage.
        let a = range.clone().pipe();
        assert_eq!(a.count(ex), 1024, "{what}");
        let b: Vec<i128> = a.filter_map(|i| Some(i + 1)).collect(ex);
        let c: Vec<i128> = range.map(|i| i + 1).collect();
        assert_eq!(b, c, "{what}");
    });
}

/// rayon checks that `map` keeps the iterator indexed; a foldex pipeline has `len` only
/// while it is indexable, so this is the same check at compile time.
#[test]
fn check_map_indexed() {
    let a = [1, 2, 3];
    assert_eq!(a.pipe().map(|x| x).len(), 3);
}

#[test]
fn map_sum() {
    each("map_sum", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let r1: i32 = a.pipe().map(|&i| i + 1).sum(ex);
        let r2: i32 = a.iter().map(|&i| i + 1).sum();
        assert_eq!(r1, r2, "{what}");
    });
}

#[test]
fn map_reduce() {
    each("map_reduce", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let r1 = a.pipe().map(|&i| i + 1).reduce(ex, || 0, |i, j| i + j);
        let r2: i32 = a.iter().map(|&i| i + 1).sum();
        assert_eq!(r1, r2, "{what}");
    });
}

#[test]
fn map_reduce_with() {
    each("map_reduce_with", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let r1 = a.pipe().map(|&i| i + 1).reduce_with(ex, |i, j| i + j);
        let r2: i32 = a.iter().map(|&i| i + 1).sum();
        assert_eq!(r1, Some(r2), "{what}");
    });
}

/// rayon: `with_max_len(1).fold(..)` is a `map`: one accumulator per item, on every executor.
#[test]
fn fold_map_reduce() {
    each("fold_map_reduce", |ex, what| {
        let r1 = (0_i32..32)
            .pipe()
            .with_max_len(1)
            .fold_pieces(Vec::new, |mut v, e| {
                v.push(e);
                v
            })
            .map(|v| vec![v])
            .reduce_with(ex, |mut v_a, v_b| {
                v_a.extend(v_b);
                v_a
            });
        let want: Vec<Vec<i32>> = (0..32).map(|i| vec![i]).collect();
        assert_eq!(r1, Some(want), "{what}");
    });
}

#[test]
fn check_step_by() {
    each("check_step_by", |ex, what| {
        let a: Vec<i32> = (0..1024).step_by(2).collect();
        let b: Vec<i32> = (0i32..1024).pipe().step_by(2).collect(ex);
        assert_eq!(a, b, "{what}");
    });
}

#[test]
fn check_step_by_unaligned() {
    each("check_step_by_unaligned", |ex, what| {
        let a: Vec<i32> = (0..1029).step_by(10).collect();
        let b: Vec<i32> = (0i32..1029).pipe().step_by(10).collect(ex);
        assert_eq!(a, b, "{what}");
    });
}

#[test]
fn check_step_by_rev() {
    each("check_step_by_rev", |ex, what| {
        let a: Vec<i32> = (0..1024).step_by(2).rev().collect();
        let b: Vec<i32> = (0i32..1024).pipe().step_by(2).rev().collect(ex);
        assert_eq!(a, b, "{what}");
    });
}

#[test]
fn check_enumerate() {
    each("check_enumerate", |ex, what| {
        let a: Vec<usize> = (0..1024).rev().collect();
        let b: Vec<usize> = a.pipe().enumerate().map(|(i, &x)| i + x).collect(ex);
        assert_eq!(b.len(), a.len(), "{what}");
        assert!(b.iter().all(|&x| x == a.len() - 1), "{what}");
    });
}

#[test]
fn check_enumerate_rev() {
    each("check_enumerate_rev", |ex, what| {
        let a: Vec<usize> = (0..1024).rev().collect();
        let b: Vec<usize> = a.pipe().enumerate().rev().map(|(i, &x)| i + x).collect(ex);
        assert_eq!(b.len(), a.len(), "{what}");
        assert!(b.iter().all(|&x| x == a.len() - 1), "{what}");
    });
}

#[test]
fn check_increment() {
    each("check_increment", |ex, what| {
        let mut a: Vec<usize> = (0..1024).rev().collect();
        (&mut a).pipe().enumerate().for_each(ex, |(i, v)| *v += i);
        assert!(a.iter().all(|&x| x == a.len() - 1), "{what}");
    });
}

#[test]
fn check_skip() {
    each("check_skip", |ex, what| {
        let a: Vec<usize> = (0..1024).collect();

        let v1: Vec<&usize> = a.pipe().skip(16).collect(ex);
        let v2 = a.iter().skip(16).collect::<Vec<_>>();
        assert_eq!(v1, v2, "{what}");

        let v1: Vec<&usize> = a.pipe().skip(2048).collect(ex);
        let v2 = a.iter().skip(2048).collect::<Vec<_>>();
        assert_eq!(v1, v2, "{what}");

        let v1: Vec<&usize> = a.pipe().skip(0).collect(ex);
        #[allow(clippy::iter_skip_zero)]
        let v2 = a.iter().skip(0).collect::<Vec<_>>();
        assert_eq!(v1, v2, "{what}");

        // The skipped elements' side effects are executed.
        let num = AtomicUsize::new(0);
        a.pipe()
            .map(|&n| num.fetch_add(n, Ordering::Relaxed))
            .skip(512)
            .count(ex);
        assert_eq!(
            num.load(Ordering::Relaxed),
            a.iter().sum::<usize>(),
            "{what}"
        );
    });
}

#[test]
fn check_take() {
    each("check_take", |ex, what| {
        let a: Vec<usize> = (0..1024).collect();
        for n in [16, 2048, 0] {
            let v1: Vec<&usize> = a.pipe().take(n).collect(ex);
            let v2 = a.iter().take(n).collect::<Vec<_>>();
            assert_eq!(v1, v2, "take {n}: {what}");
        }
    });
}

#[test]
fn check_inspect() {
    each("check_inspect", |ex, what| {
        let a = AtomicUsize::new(0);
        let b: usize = (0_usize..1024)
            .pipe()
            .inspect(|&i| {
                a.fetch_add(i, Ordering::Relaxed);
            })
            .sum(ex);
        assert_eq!(a.load(Ordering::Relaxed), b, "{what}");
    });
}

#[test]
fn check_move() {
    each("check_move", |ex, what| {
        let a = vec![vec![1, 2, 3]];
        let ptr = a[0].as_ptr();
        let b: Vec<Vec<i32>> = from_vec(a).collect(ex);
        // A simple move leaves the inner vec unchanged.
        assert_eq!(ptr, b[0].as_ptr(), "{what}");
    });
}

#[derive(Clone)]
struct DropCounter<'a>(&'a AtomicUsize);
impl Drop for DropCounter<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// rayon's third step splits the producer at 5 and takes one item; here `find_first`
/// takes the first item of the owned vector and every other one is dropped unvisited.
#[test]
fn check_drops() {
    each("check_drops", |ex, what| {
        let c = AtomicUsize::new(0);
        let a = vec![DropCounter(&c); 10];

        let b: Vec<DropCounter<'_>> = from_vec(a.clone()).collect(ex);
        assert_eq!(c.load(Ordering::Relaxed), 0, "{what}");

        drop(from_vec(b));
        assert_eq!(c.load(Ordering::Relaxed), 10, "{what}");

        let first = from_vec(a).find_first(ex, |_| true);
        assert!(first.is_some(), "{what}");
        drop(first);
        assert_eq!(c.load(Ordering::Relaxed), 20, "{what}");
    });
}

#[test]
fn check_slice_indexed() {
    let a = vec![1, 2, 3];
    assert_eq!(a.pipe().len(), 3);
}

#[test]
fn check_slice_mut_indexed() {
    let mut a = vec![1, 2, 3];
    assert_eq!((&mut a).pipe().len(), 3);
}

#[test]
fn check_vec_indexed() {
    let a = vec![1, 2, 3];
    assert_eq!(from_vec(a).len(), 3);
}

#[test]
fn check_range_indexed() {
    assert_eq!((1i32..5).pipe().len(), 4);
}

#[test]
fn check_zip() {
    each("check_zip", |ex, what| {
        let mut a: Vec<usize> = (0..1024).rev().collect();
        let b: Vec<usize> = (0..1024).collect();
        (&mut a).pipe().zip(&b[..]).for_each(ex, |(a, &b)| *a += b);
        assert!(a.iter().all(|&x| x == a.len() - 1), "{what}");
    });
}

#[test]
fn check_zip_into_par_iter() {
    each("check_zip_into_par_iter", |ex, what| {
        let mut a: Vec<usize> = (0..1024).rev().collect();
        let b: Vec<usize> = (0..1024).collect();
        (&mut a).pipe().zip(&b).for_each(ex, |(a, &b)| *a += b);
        assert!(a.iter().all(|&x| x == a.len() - 1), "{what}");
    });
}

#[test]
fn check_zip_into_mut_par_iter() {
    each("check_zip_into_mut_par_iter", |ex, what| {
        let a: Vec<usize> = (0..1024).rev().collect();
        let mut b: Vec<usize> = (0..1024).collect();
        a.pipe().zip(&mut b).for_each(ex, |(&a, b)| *b += a);
        assert!(b.iter().all(|&x| x == b.len() - 1), "{what}");
    });
}

#[test]
fn check_zip_range() {
    each("check_zip_range", |ex, what| {
        let mut a: Vec<usize> = (0..1024).rev().collect();
        (&mut a)
            .pipe()
            .zip(0usize..1024)
            .for_each(ex, |(a, b)| *a += b);
        assert!(a.iter().all(|&x| x == a.len() - 1), "{what}");
    });
}

#[test]
fn check_sum_filtered_ints() {
    each("check_sum_filtered_ints", |ex, what| {
        let a: Vec<i32> = vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        let par_sum_evens: i32 = a.pipe().filter(|&x| (x & 1) == 0).sum(ex);
        let seq_sum_evens: i32 = a.iter().filter(|&x| (x & 1) == 0).sum();
        assert_eq!(par_sum_evens, seq_sum_evens, "{what}");
    });
}

#[test]
fn check_sum_filtermap_ints() {
    each("check_sum_filtermap_ints", |ex, what| {
        let a: Vec<i32> = vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        let half = |&x: &i32| if (x & 1) == 0 { Some(x as u32) } else { None };
        let par_sum_evens: u32 = a.pipe().filter_map(half).sum(ex);
        let seq_sum_evens: u32 = a.iter().filter_map(half).sum();
        assert_eq!(par_sum_evens, seq_sum_evens, "{what}");
    });
}

/// rayon's inner iterator is a parallel one; foldex's `flat_map` takes a `std` iterator.
#[test]
fn check_flat_map_nested_ranges() {
    each("check_flat_map_nested_ranges", |ex, what| {
        let v: i32 = (0_i32..10)
            .pipe()
            .flat_map_pipe(|i| (0_i32..10).pipe().map(move |j| (i, j)))
            .map(|(i, j)| i * j)
            .sum(ex);
        let w: i32 = (0_i32..10)
            .flat_map(|i| (0_i32..10).map(move |j| (i, j)))
            .map(|(i, j)| i * j)
            .sum();
        assert_eq!(v, w, "{what}");
    });
}

#[test]
fn check_empty_flat_map_sum() {
    each("check_empty_flat_map_sum", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let empty = &a[..0];

        // empty on the inside
        let b: i32 = a.pipe().flat_map_pipe(|_| empty.pipe()).sum(ex);
        assert_eq!(b, 0, "{what}");

        // empty on the outside
        let c: i32 = empty.pipe().flat_map_pipe(|_| a.pipe()).sum(ex);
        assert_eq!(c, 0, "{what}");
    });
}

#[test]
fn check_chunks() {
    each("check_chunks", |ex, what| {
        let a: Vec<i32> = vec![1, 5, 10, 4, 100, 3, 1000, 2, 10000, 1];
        let par_sum_product_pairs: i32 = a
            .pipe()
            .chunks(2)
            .map(|c| c.iter().product::<i32>())
            .sum(ex);
        let seq_sum_product_pairs: i32 = a.chunks(2).map(|c| c.iter().product::<i32>()).sum();
        assert_eq!(par_sum_product_pairs, 12345, "{what}");
        assert_eq!(par_sum_product_pairs, seq_sum_product_pairs, "{what}");

        let par_sum_product_triples: i32 = a
            .pipe()
            .chunks(3)
            .map(|c| c.iter().product::<i32>())
            .sum(ex);
        let seq_sum_product_triples: i32 = a.chunks(3).map(|c| c.iter().product::<i32>()).sum();
        assert_eq!(
            par_sum_product_triples,
            5_0 + 12_00 + 20_000_000 + 1,
            "{what}"
        );
        assert_eq!(par_sum_product_triples, seq_sum_product_triples, "{what}");
    });
}

#[test]
fn check_chunks_mut() {
    each("check_chunks_mut", |ex, what| {
        let mut a: Vec<i32> = vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        let mut b: Vec<i32> = a.clone();
        (&mut a)
            .pipe()
            .chunks_mut(2)
            .for_each(ex, |c| c[0] = c.iter().sum());
        b.chunks_mut(2).for_each(|c| c[0] = c.iter().sum());
        assert_eq!(a, &[3, 2, 7, 4, 11, 6, 15, 8, 19, 10], "{what}");
        assert_eq!(a, b, "{what}");

        let mut a: Vec<i32> = vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        let mut b: Vec<i32> = a.clone();
        (&mut a)
            .pipe()
            .chunks_mut(3)
            .for_each(ex, |c| c[0] = c.iter().sum());
        b.chunks_mut(3).for_each(|c| c[0] = c.iter().sum());
        assert_eq!(a, &[6, 2, 3, 15, 5, 6, 24, 8, 9, 10], "{what}");
        assert_eq!(a, b, "{what}");
    });
}

#[test]
fn check_windows() {
    each("check_windows", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        for size in [2, 100, 1_000_000] {
            let par: Vec<&[i32]> = a.pipe().windows(size).collect(ex);
            let seq: Vec<&[i32]> = a.windows(size).collect();
            assert_eq!(par, seq, "windows({size}): {what}");
        }

        let par: Vec<(&[i32], &[i32])> = a
            .pipe()
            .windows(2)
            .chain(a.pipe().windows(1_000_000))
            .zip(a.pipe().windows(2))
            .collect(ex);
        let seq: Vec<(&[i32], &[i32])> = a
            .windows(2)
            .chain(a.windows(1_000_000))
            .zip(a.windows(2))
            .collect();
        assert_eq!(par, seq, "{what}");
    });
}

#[test]
fn check_options() {
    each("check_options", |ex, what| {
        let mut a = vec![None, Some(1), None, None, Some(2), Some(4)];

        assert_eq!(7, a.pipe().flat_map(|opt| opt).sum::<i32>(ex), "{what}");
        assert_eq!(7, a.pipe().flat_map(|opt| opt).sum::<i32>(ex), "{what}");

        (&mut a)
            .pipe()
            .flat_map(|opt| opt)
            .for_each(ex, |x| *x = *x * *x);

        assert_eq!(21, from_vec(a).flat_map(|opt| opt).sum::<i32>(ex), "{what}");
    });
}

#[test]
fn check_count() {
    each("check_count", |ex, what| {
        let c0 = (0_u32..24 * 1024).filter(|i| i % 2 == 0).count();
        let c1 = (0_u32..24 * 1024).pipe().filter(|i| i % 2 == 0).count(ex);
        assert_eq!(c0, c1, "{what}");
    });
}

#[test]
fn find_first_or_last() {
    each("find_first_or_last", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();

        let p = a.pipe();
        assert_eq!(
            p.find_first(ex, |&&x| x % 42 == 41),
            Some(&41_i32),
            "{what}"
        );
        assert_eq!(
            p.find_first(ex, |&&x| x % 19 == 1 && x % 53 == 0),
            Some(&742_i32),
            "{what}"
        );
        assert_eq!(p.find_first(ex, |&&x| x < 0), None, "{what}");

        assert_eq!(p.position_first(ex, |&x| x % 42 == 41), Some(41_usize));
        assert_eq!(
            p.position_first(ex, |&x| x % 19 == 1 && x % 53 == 0),
            Some(742_usize),
            "{what}"
        );
        assert_eq!(p.position_first(ex, |&x| x < 0), None, "{what}");

        assert_eq!(
            p.find_last(ex, |&&x| x % 42 == 41),
            Some(&1007_i32),
            "{what}"
        );
        assert_eq!(
            p.find_last(ex, |&&x| x % 19 == 1 && x % 53 == 0),
            Some(&742_i32),
            "{what}"
        );
        assert_eq!(p.find_last(ex, |&&x| x < 0), None, "{what}");

        assert_eq!(
            p.position_last(ex, |&x| x % 42 == 41),
            Some(1007_usize),
            "{what}"
        );
        assert_eq!(
            p.position_last(ex, |&x| x % 19 == 1 && x % 53 == 0),
            Some(742_usize),
            "{what}"
        );
        assert_eq!(p.position_last(ex, |&x| x < 0), None, "{what}");
    });
}

#[test]
fn check_find_not_present() {
    each("check_find_not_present", |ex, what| {
        let counter = AtomicUsize::new(0);
        let value: Option<i32> = (0_i32..2048).pipe().find_any(ex, |&p| {
            counter.fetch_add(1, Ordering::SeqCst);
            p >= 2048
        });
        assert!(value.is_none(), "{what}");
        // Every single one was visited.
        assert_eq!(counter.load(Ordering::SeqCst), 2048, "{what}");
    });
}

/// rayon asserts some match in 1024..1096, and that not every item was visited. foldex's
/// `find_any` is `find_first`: 1024 on every executor. The visits: exactly 1025 on
/// `SequentialEx`; on a pool fewer than 2048 only as likely as in rayon (a worker
/// descheduled just before item 1024 lets the others visit everything to its right before
/// the stop is known), so they are not asserted there.
#[test]
fn check_find_is_present() {
    each("check_find_is_present", |ex, what| {
        let counter = AtomicUsize::new(0);
        let value: Option<i32> = (0_i32..2048).pipe().find_any(ex, |&p| {
            counter.fetch_add(1, Ordering::SeqCst);
            (1024..1096).contains(&p)
        });
        assert_eq!(value, Some(1024), "{what}");
        let visited = counter.load(Ordering::SeqCst);
        if what.ends_with("SequentialEx") {
            assert_eq!(visited, 1025, "{what}");
        }
    });
}

#[test]
fn par_iter_collect_option() {
    each("par_iter_collect_option", |ex, what| {
        let a: Option<Vec<_>> = (0_i32..2048).map(Some).collect();
        let b: Option<Vec<_>> = (0_i32..2048).pipe().map(Some).collect(ex);
        assert_eq!(a, b, "{what}");

        let c: Option<Vec<_>> = (0_i32..2048)
            .pipe()
            .map(|x| if x == 1234 { None } else { Some(x) })
            .collect(ex);
        assert_eq!(c, None, "{what}");
    });
}

/// rayon's last case returns some `Err(x)` with `x % 100 == 99`; foldex's is the first by
/// index, `Err(99)`.
#[test]
fn par_iter_collect_result() {
    each("par_iter_collect_result", |ex, what| {
        let a: Result<Vec<_>, ()> = (0_i32..2048).map(Ok).collect();
        let b: Result<Vec<_>, ()> = (0_i32..2048).pipe().map(Ok).collect(ex);
        assert_eq!(a, b, "{what}");

        let c: Result<Vec<_>, _> = (0_i32..2048)
            .pipe()
            .map(|x| if x == 1234 { Err(x) } else { Ok(x) })
            .collect(ex);
        assert_eq!(c, Err(1234), "{what}");

        let d: Result<Vec<_>, _> = (0_i32..2048)
            .pipe()
            .map(|x| if x % 100 == 99 { Err(x) } else { Ok(x) })
            .collect(ex);
        assert_eq!(d, Err(99), "{what}");
    });
}

#[test]
fn par_iter_collect() {
    each("par_iter_collect", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let b: Vec<i32> = a.pipe().map(|&i| i + 1).collect(ex);
        let c: Vec<i32> = (0..1024).map(|i| i + 1).collect();
        assert_eq!(b, c, "{what}");
    });
}

#[test]
fn par_iter_collect_hashmap() {
    each("par_iter_collect_hashmap", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let b: HashMap<i32, String> = a.pipe().map(|&i| (i, format!("{i}"))).collect(ex);
        assert_eq!(&b[&3], "3", "{what}");
        assert_eq!(b.len(), 1024, "{what}");
    });
}

#[test]
fn par_iter_collect_hashset() {
    each("par_iter_collect_hashset", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let b: HashSet<i32> = a.pipe().cloned().collect(ex);
        assert_eq!(b.len(), 1024, "{what}");
    });
}

#[test]
fn par_iter_collect_btreemap() {
    each("par_iter_collect_btreemap", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let b: BTreeMap<i32, String> = a.pipe().map(|&i| (i, format!("{i}"))).collect(ex);
        assert_eq!(&b[&3], "3", "{what}");
        assert_eq!(b.len(), 1024, "{what}");
    });
}

#[test]
fn par_iter_collect_btreeset() {
    each("par_iter_collect_btreeset", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let b: BTreeSet<i32> = a.pipe().cloned().collect(ex);
        assert_eq!(b.len(), 1024, "{what}");
    });
}

#[test]
fn par_iter_unindexed_flat_map() {
    each("par_iter_unindexed_flat_map", |ex, what| {
        let b: Vec<i64> = (0_i64..1024).pipe().flat_map(Some).collect(ex);
        let c: Vec<i64> = (0_i64..1024).flat_map(Some).collect();
        assert_eq!(b, c, "{what}");
    });
}

#[test]
fn min_max() {
    each("min_max", |ex, what| {
        let a = seeded_i32s(1024);
        for i in 0..=a.len() {
            let slice = &a[..i];
            assert_eq!(slice.pipe().min(ex), slice.iter().min(), "{i}: {what}");
            assert_eq!(slice.pipe().max(ex), slice.iter().max(), "{i}: {what}");
        }
    });
}

/// Duplicate keys, with the position as a second field: ties resolve as `std`'s.
fn with_duplicates() -> Vec<(i32, u16)> {
    let r = seeded_i32s(512);
    r.iter().chain(&r).cloned().zip(0..).collect()
}

#[test]
fn min_max_by() {
    each("min_max_by", |ex, what| {
        let a = with_duplicates();
        for i in 0..=a.len() {
            let slice = &a[..i];
            assert_eq!(
                slice.pipe().min_by(ex, |x, y| x.0.cmp(&y.0)),
                slice.iter().min_by(|x, y| x.0.cmp(&y.0)),
                "{i}: {what}"
            );
            assert_eq!(
                slice.pipe().max_by(ex, |x, y| x.0.cmp(&y.0)),
                slice.iter().max_by(|x, y| x.0.cmp(&y.0)),
                "{i}: {what}"
            );
        }
    });
}

#[test]
fn min_max_by_key() {
    each("min_max_by_key", |ex, what| {
        let a = with_duplicates();
        for i in 0..=a.len() {
            let slice = &a[..i];
            assert_eq!(
                slice.pipe().min_by_key(ex, |x| x.0),
                slice.iter().min_by_key(|x| x.0),
                "{i}: {what}"
            );
            assert_eq!(
                slice.pipe().max_by_key(ex, |x| x.0),
                slice.iter().max_by_key(|x| x.0),
                "{i}: {what}"
            );
        }
    });
}

#[test]
fn check_rev() {
    each("check_rev", |ex, what| {
        let a: Vec<usize> = (0..1024).rev().collect();
        let b: Vec<usize> = (0..1024).collect();
        assert!(
            a.pipe().rev().zip(from_vec(b)).all(ex, |(&a, b)| a == b),
            "{what}"
        );
    });
}

/// rayon's `unzip_into_vecs` fills two given vectors; foldex's `unzip` makes them.
#[test]
fn check_unzip_into_vecs() {
    each("check_unzip_into_vecs", |ex, what| {
        let (a, b): (Vec<usize>, Vec<i32>) =
            (0_i32..1024).pipe().map(|i| i * i).enumerate().unzip(ex);
        let (c, d): (Vec<_>, Vec<_>) = (0_i32..1024).map(|i| i * i).enumerate().unzip();
        assert_eq!(a, c, "{what}");
        assert_eq!(b, d, "{what}");
    });
}

#[test]
fn check_unzip() {
    each("check_unzip", |ex, what| {
        let squares = || (0_i32..1024).pipe().map(|i| i * i).enumerate();
        let seq = || (0_i32..1024).map(|i| i * i).enumerate();

        // indexed, unindexed
        let (a, b): (Vec<_>, HashSet<_>) = squares().unzip(ex);
        let (c, d): (Vec<_>, HashSet<_>) = seq().unzip();
        assert_eq!(a, c, "{what}");
        assert_eq!(b, d, "{what}");

        // unindexed, indexed
        let (a, b): (HashSet<_>, Vec<_>) = squares().unzip(ex);
        let (c, d): (HashSet<_>, Vec<_>) = seq().unzip();
        assert_eq!(a, c, "{what}");
        assert_eq!(b, d, "{what}");

        // indexed, indexed
        let (a, b): (Vec<_>, Vec<_>) = squares().unzip(ex);
        let (c, d): (Vec<_>, Vec<_>) = seq().unzip();
        assert_eq!(a, c, "{what}");
        assert_eq!(b, d, "{what}");

        // unindexed producer
        let (a, b): (Vec<_>, Vec<_>) = (0_i32..1024)
            .pipe()
            .filter_map(|i| Some((i, i * i)))
            .unzip(ex);
        let (c, d): (Vec<_>, Vec<_>) = (0_i32..1024).map(|i| (i, i * i)).unzip();
        assert_eq!(a, c, "{what}");
        assert_eq!(b, d, "{what}");
    });
}

#[test]
fn check_partition() {
    each("check_partition", |ex, what| {
        let (a, b): (Vec<_>, Vec<_>) = (0_i32..1024).pipe().partition(ex, |&i| i % 3 == 0);
        let (c, d): (Vec<_>, Vec<_>) = (0_i32..1024).partition(|&i| i % 3 == 0);
        assert_eq!(a, c, "{what}");
        assert_eq!(b, d, "{what}");
    });
}

#[test]
#[should_panic(expected = "chunk size must be at least 1")]
fn check_chunks_zero_size() {
    let _: Vec<Vec<i32>> = from_vec(vec![1, 2, 3]).chunks(0).collect(&SequentialEx);
}

#[test]
fn check_slice_split() {
    each("check_slice_split", |ex, what| {
        let v: Vec<_> = (0..1000).collect();
        for m in 1..100 {
            let a: Vec<_> = v.split(|x| x % m == 0).collect();
            let b: Vec<_> = v.pipe().split(move |x| x % m == 0).collect(ex);
            assert_eq!(a, b, "{m}: {what}");
        }

        // same as std::slice::split() examples
        let slice = [10, 40, 33, 20];
        let v: Vec<_> = slice.pipe().split(|num| num % 3 == 0).collect(ex);
        assert_eq!(v, &[&slice[..2], &slice[3..]], "{what}");

        let slice = [10, 40, 33];
        let v: Vec<_> = slice.pipe().split(|num| num % 3 == 0).collect(ex);
        assert_eq!(v, &[&slice[..2], &slice[..0]], "{what}");

        let slice = [10, 6, 33, 20];
        let v: Vec<_> = slice.pipe().split(|num| num % 3 == 0).collect(ex);
        assert_eq!(v, &[&slice[..1], &slice[..0], &slice[3..]], "{what}");
    });
}

#[test]
fn check_binary_heap() {
    each("check_binary_heap", |ex, what| {
        let a: BinaryHeap<i32> = (0..10).collect();
        assert_eq!(45, a.pipe().sum::<i32>(ex), "{what}");
        assert_eq!(45, a.into_pipe().sum::<i32>(ex), "{what}");
    });
}

#[test]
fn check_btree_map() {
    each("check_btree_map", |ex, what| {
        let mut a: BTreeMap<i32, i32> = (0..10).map(|i| (i, -i)).collect();
        assert_eq!(45, a.pipe().map(|(&k, _)| k).sum::<i32>(ex), "{what}");
        assert_eq!(-45, a.pipe().map(|(_, &v)| v).sum::<i32>(ex), "{what}");
        (&mut a).pipe().for_each(ex, |(k, v)| *v += *k);
        assert_eq!(0, a.into_pipe().map(|(_, v)| v).sum::<i32>(ex), "{what}");
    });
}

#[test]
fn check_btree_set() {
    each("check_btree_set", |ex, what| {
        let a: BTreeSet<i32> = (0..10).collect();
        assert_eq!(45, a.pipe().sum::<i32>(ex), "{what}");
        assert_eq!(45, a.into_pipe().sum::<i32>(ex), "{what}");
    });
}

#[test]
fn check_hash_map() {
    each("check_hash_map", |ex, what| {
        let mut a: HashMap<i32, i32> = (0..10).map(|i| (i, -i)).collect();
        assert_eq!(45, a.pipe().map(|(&k, _)| k).sum::<i32>(ex), "{what}");
        assert_eq!(-45, a.pipe().map(|(_, &v)| v).sum::<i32>(ex), "{what}");
        (&mut a).pipe().for_each(ex, |(k, v)| *v += *k);
        assert_eq!(0, a.into_pipe().map(|(_, v)| v).sum::<i32>(ex), "{what}");
    });
}

#[test]
fn check_hash_set() {
    each("check_hash_set", |ex, what| {
        let a: HashSet<i32> = (0..10).collect();
        assert_eq!(45, a.pipe().sum::<i32>(ex), "{what}");
        assert_eq!(45, a.into_pipe().sum::<i32>(ex), "{what}");
    });
}

/// foldex has no `&mut LinkedList` source (rayon's `par_iter_mut` of a list): the list is
/// negated with std's `iter_mut`, between the two sums rayon checks.
#[test]
fn check_linked_list() {
    each("check_linked_list", |ex, what| {
        let mut a: LinkedList<i32> = (0..10).collect();
        assert_eq!(45, a.pipe().sum::<i32>(ex), "{what}");
        a.iter_mut().for_each(|x| *x = -*x);
        assert_eq!(-45, a.into_pipe().sum::<i32>(ex), "{what}");
    });
}

#[test]
fn check_vec_deque() {
    each("check_vec_deque", |ex, what| {
        let mut a: VecDeque<i32> = (0..10).collect();
        // try to get it to wrap around
        a.drain(..5);
        a.extend(0..5);
        assert_eq!(45, a.pipe().sum::<i32>(ex), "{what}");
        (&mut a).pipe().for_each(ex, |x| *x = -*x);
        assert_eq!(-45, a.into_pipe().sum::<i32>(ex), "{what}");
    });
}

#[test]
fn check_repeat_n_zip_left() {
    each("check_repeat_n_zip_left", |ex, what| {
        let v = vec![4, 4, 4, 4];
        let mut fours: Vec<_> = repeat_n(4, usize::MAX).zip(from_vec(v)).collect(ex);
        assert_eq!(fours.len(), 4, "{what}");
        while let Some(item) = fours.pop() {
            assert_eq!(item, (4, 4), "{what}");
        }
    });
}

#[test]
fn check_repeat_n_zip_right() {
    each("check_repeat_n_zip_right", |ex, what| {
        let v = vec![4, 4, 4, 4];
        let mut fours: Vec<_> = from_vec(v).zip(repeat_n(4, usize::MAX)).collect(ex);
        assert_eq!(fours.len(), 4, "{what}");
        while let Some(item) = fours.pop() {
            assert_eq!(item, (4, 4), "{what}");
        }
    });
}

#[test]
fn check_empty() {
    each("check_empty", |ex, what| {
        // rayon's closure is `|_| unreachable!()`.
        let v: Vec<i32> = empty().filter(|_| -> bool { unreachable!() }).collect(ex);
        assert!(v.is_empty(), "{what}");
        let v: Vec<i32> = empty().collect(ex);
        assert!(v.is_empty(), "{what}");
        let v: Vec<(i32, i32)> = empty().zip(1_i32..10).collect(ex);
        assert!(v.is_empty(), "{what}");
    });
}

#[test]
fn check_once() {
    each("check_once", |ex, what| {
        let v: Vec<i32> = once(42).filter(|_| true).collect(ex);
        assert_eq!(v, &[42], "{what}");
        let v: Vec<i32> = once(42).collect(ex);
        assert_eq!(v, &[42], "{what}");
        let v: Vec<(i32, i32)> = once(42).zip(1_i32..10).collect(ex);
        assert_eq!(v, &[(42, 1)], "{what}");
    });
}

#[test]
fn check_zip_eq() {
    each("check_zip_eq", |ex, what| {
        let mut a: Vec<usize> = (0..1024).rev().collect();
        let b: Vec<usize> = (0..1024).collect();
        (&mut a)
            .pipe()
            .zip_eq(&b[..])
            .for_each(ex, |(a, &b)| *a += b);
        assert!(a.iter().all(|&x| x == a.len() - 1), "{what}");
    });
}

#[test]
fn check_zip_eq_into_par_iter() {
    each("check_zip_eq_into_par_iter", |ex, what| {
        let mut a: Vec<usize> = (0..1024).rev().collect();
        let b: Vec<usize> = (0..1024).collect();
        (&mut a).pipe().zip_eq(&b).for_each(ex, |(a, &b)| *a += b);
        assert!(a.iter().all(|&x| x == a.len() - 1), "{what}");
    });
}

#[test]
fn check_zip_eq_into_mut_par_iter() {
    each("check_zip_eq_into_mut_par_iter", |ex, what| {
        let a: Vec<usize> = (0..1024).rev().collect();
        let mut b: Vec<usize> = (0..1024).collect();
        a.pipe().zip_eq(&mut b).for_each(ex, |(&a, b)| *b += a);
        assert!(b.iter().all(|&x| x == b.len() - 1), "{what}");
    });
}

#[test]
fn check_zip_eq_range() {
    each("check_zip_eq_range", |ex, what| {
        let mut a: Vec<usize> = (0..1024).rev().collect();
        (&mut a)
            .pipe()
            .zip_eq(0usize..1024)
            .for_each(ex, |(a, b)| *a += b);
        assert!(a.iter().all(|&x| x == a.len() - 1), "{what}");
    });
}

#[test]
fn check_interleave_eq() {
    each("check_interleave_eq", |ex, what| {
        let xs: Vec<usize> = (0..10).collect();
        let ys: Vec<usize> = (10..20).collect();
        let actual: Vec<usize> = xs.pipe().interleave(&ys).map(|&i| i).collect(ex);
        let expected: Vec<usize> = (0..10)
            .zip(10..20)
            .flat_map(|(i, j)| vec![i, j].into_iter())
            .collect();
        assert_eq!(expected, actual, "{what}");
    });
}

/// rayon's cases for `interleave` (and, `shortest`, for `interleave_shortest`): the two
/// inputs and the expected items.
fn interleave_cases(shortest: bool) -> Vec<(Vec<usize>, Vec<usize>, Vec<usize>)> {
    let pairs = |a: std::ops::Range<usize>, b: std::ops::Range<usize>| -> Vec<usize> {
        a.zip(b).flat_map(|(i, j)| vec![i, j].into_iter()).collect()
    };
    if shortest {
        vec![
            ((0..9).collect(), vec![10], vec![0, 10, 1]),
            (vec![10], (0..9).collect(), vec![10, 0]),
            ((0..5).collect(), (5..10).collect(), pairs(0..5, 5..10)),
            (vec![], (0..9).collect(), vec![]),
            ((0..9).collect(), vec![], vec![0]),
            (
                (0..50).collect(),
                (50..100).collect(),
                pairs(0..50, 50..100),
            ),
        ]
    } else {
        vec![
            (
                (0..9).collect(),
                vec![10],
                vec![0, 10, 1, 2, 3, 4, 5, 6, 7, 8],
            ),
            (
                vec![10],
                (0..9).collect(),
                vec![10, 0, 1, 2, 3, 4, 5, 6, 7, 8],
            ),
            ((0..5).collect(), (5..10).collect(), pairs(0..5, 5..10)),
            (vec![], (0..9).collect(), (0..9).collect()),
            ((0..9).collect(), vec![], (0..9).collect()),
            (
                (0..50).collect(),
                (50..100).collect(),
                pairs(0..50, 50..100),
            ),
        ]
    }
}

#[test]
fn check_interleave_uneven() {
    each("check_interleave_uneven", |ex, what| {
        for (i, (xs, ys, expected)) in interleave_cases(false).into_iter().enumerate() {
            let res: Vec<usize> = xs.pipe().interleave(&ys).map(|&i| i).collect(ex);
            assert_eq!(expected, res, "Case {i} failed: {what}");
            let res: Vec<usize> = xs.pipe().interleave(&ys).rev().map(|&i| i).collect(ex);
            assert_eq!(
                expected.into_iter().rev().collect::<Vec<usize>>(),
                res,
                "Case {i} reversed failed: {what}"
            );
        }
    });
}

#[test]
fn check_interleave_shortest() {
    each("check_interleave_shortest", |ex, what| {
        for (i, (xs, ys, expected)) in interleave_cases(true).into_iter().enumerate() {
            let res: Vec<usize> = xs.pipe().interleave_shortest(&ys).map(|&i| i).collect(ex);
            assert_eq!(expected, res, "Case {i} failed: {what}");
            let res: Vec<usize> = xs
                .pipe()
                .interleave_shortest(&ys)
                .rev()
                .map(|&i| i)
                .collect(ex);
            assert_eq!(
                expected.into_iter().rev().collect::<Vec<usize>>(),
                res,
                "Case {i} reversed failed: {what}"
            );
        }
    });
}

#[test]
fn check_chunks_even_size() {
    each("check_chunks_even_size", |ex, what| {
        assert_eq!(
            vec![vec![1, 2, 3], vec![4, 5, 6], vec![7, 8, 9]],
            (1_i32..10).pipe().chunks(3).collect::<Vec<Vec<i32>>>(ex),
            "{what}"
        );
    });
}

#[test]
fn check_chunks_empty() {
    each("check_chunks_empty", |ex, what| {
        let v: Vec<i32> = vec![];
        let expected: Vec<Vec<i32>> = vec![];
        assert_eq!(
            expected,
            from_vec(v).chunks(2).collect::<Vec<Vec<i32>>>(ex),
            "{what}"
        );
    });
}

#[test]
fn check_chunks_len() {
    assert_eq!(4, (0_i32..8).pipe().chunks(2).len());
    assert_eq!(3, (0_i32..9).pipe().chunks(3).len());
    assert_eq!(3, (0_i32..8).pipe().chunks(3).len());
    assert_eq!(1, [1].pipe().chunks(3).len());
    assert_eq!(0, (0_i32..0).pipe().chunks(3).len());
}

/// rayon's `v.par_iter().chunks(n)` gives `Vec<&u32>`; foldex's `chunks` of a slice gives
/// sub-slices, so the chunks of `copied()` items (`Vec<u32>`) are compared.
#[test]
fn check_chunks_uneven() {
    each("check_chunks_uneven", |ex, what| {
        let cases: Vec<(Vec<u32>, usize, Vec<Vec<u32>>)> = vec![
            ((0..5).collect(), 3, vec![vec![0, 1, 2], vec![3, 4]]),
            (vec![1], 5, vec![vec![1]]),
            ((0..4).collect(), 3, vec![vec![0, 1, 2], vec![3]]),
        ];
        for (i, (v, n, expected)) in cases.into_iter().enumerate() {
            let res: Vec<Vec<u32>> = v.pipe().copied().chunks(n).collect(ex);
            assert_eq!(expected, res, "Case {i} failed: {what}");

            let res: Vec<Vec<u32>> = from_vec(v).chunks(n).rev().collect(ex);
            assert_eq!(
                expected.into_iter().rev().collect::<Vec<Vec<u32>>>(),
                res,
                "Case {i} reversed failed: {what}"
            );
        }
    });
}

#[test]
fn check_update() {
    each("check_update", |ex, what| {
        let mut v: Vec<Vec<_>> = vec![vec![1], vec![3, 2, 1]];
        (&mut v).pipe().update(|v| v.push(0)).for_each(ex, |_| ());
        assert_eq!(v, vec![vec![1, 0], vec![3, 2, 1, 0]], "{what}");
    });
}

/// Finding: rayon's `Some(1).into_par_iter().chain(unindexed)` does not compile in foldex:
/// an indexable pipeline's `chain` takes an indexable one only (see the comment below).
#[test]
fn check_chain() {
    each("check_chain", |ex, what| {
        // stays indexed in the face of madness
        let res: Vec<(usize, char, i32)> = Some(0)
            .into_pipe()
            .chain(Ok::<_, ()>(1).into_pipe())
            .chain(1..4)
            .chain(Err::<i32, _>("huh?").into_pipe())
            .chain(None.into_pipe())
            .chain(from_vec(vec![5, 8, 13]))
            .map(|x| (x as u8 + b'a') as char)
            .chain(from_vec(vec!['x', 'y', 'z']))
            .zip((0i32..1000).pipe().map(|x| -x))
            .enumerate()
            .map(|(a, (b, c))| (a, b, c))
            .chain(None.into_pipe())
            .collect(ex);
        assert_eq!(
            res,
            vec![
                (0, 'a', 0),
                (1, 'b', -1),
                (2, 'b', -2),
                (3, 'c', -3),
                (4, 'd', -4),
                (5, 'f', -5),
                (6, 'i', -6),
                (7, 'n', -7),
                (8, 'x', -8),
                (9, 'y', -9),
                (10, 'z', -10)
            ],
            "{what}"
        );

        // unindexed is ok too
        // rayon chains an unindexed iterator to an indexed one; foldex's `chain` on an
        // indexable pipeline takes only an indexable one (`IntoPipeline`), so each such
        // `chain` here comes after a no-op transform (`inspect(|_| ())`).
        let res: Vec<i32> = Some(1i32)
            .into_pipe()
            .inspect(|_| ())
            .chain(
                (2i32..4)
                    .pipe()
                    .chain(from_vec(vec![5, 6, 7, 8, 9]))
                    .inspect(|_| ())
                    .chain(Some((10, 100)).into_pipe().flat_map(|(a, b)| a..b))
                    .filter(|x| x & 1 == 1),
            )
            .collect(ex);
        let other: Vec<i32> = (0..100).filter(|x| x & 1 == 1).collect();
        assert_eq!(res, other, "{what}");

        // chain collect is ok with the "fake" specialization
        let res: Vec<i32> = Some(1i32).into_pipe().chain(None.into_pipe()).collect(ex);
        assert_eq!(res, &[1], "{what}");
    });
}

#[test]
fn execute_unindexed_range() {
    each("execute_unindexed_range", |ex, what| {
        let b: LinkedList<i64> = (0i64..1024).pipe().map(|i| i + 1).collect(ex);
        let c: LinkedList<i64> = (0..1024).map(|i| i + 1).collect();
        assert_eq!(b, c, "{what}");
    });
}
#[test]
fn check_results() {
    each("check_results", |ex, what| {
        let mut a = vec![Err(()), Ok(1i32), Err(()), Err(()), Ok(2), Ok(4)];

        assert_eq!(7, a.pipe().flat_map(|res| res).sum::<i32>(ex), "{what}");

        assert_eq!(Err::<i32, ()>(()), a.pipe().cloned().sum(ex), "{what}");
        assert_eq!(
            Ok(7),
            a.pipe().cloned().filter(Result::is_ok).sum(ex),
            "{what}"
        );

        assert_eq!(Err::<i32, ()>(()), a.pipe().cloned().product(ex), "{what}");
        assert_eq!(
            Ok(8),
            a.pipe().cloned().filter(Result::is_ok).product(ex),
            "{what}"
        );

        (&mut a)
            .pipe()
            .flat_map(|res| res)
            .for_each(ex, |x| *x = *x * *x);

        assert_eq!(21, from_vec(a).flat_map(|res| res).sum::<i32>(ex), "{what}");
    });
}

#[test]
fn find_any() {
    each("find_any", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let p = a.pipe();
        // foldex: find_any is find_first, so the answers are exact
        assert_eq!(p.find_any(ex, |&&x| x % 42 == 41), Some(&41), "{what}");
        assert_eq!(
            p.find_any(ex, |&&x| x % 19 == 1 && x % 53 == 0),
            Some(&742_i32),
            "{what}"
        );
        assert_eq!(p.find_any(ex, |&&x| x < 0), None, "{what}");

        assert_eq!(p.position_any(ex, |&x| x % 42 == 41), Some(41), "{what}");
        assert_eq!(
            p.position_any(ex, |&x| x % 19 == 1 && x % 53 == 0),
            Some(742_usize),
            "{what}"
        );
        assert_eq!(p.position_any(ex, |&x| x < 0), None, "{what}");

        assert!(p.any(ex, |&x| x > 1000), "{what}");
        assert!(!p.any(ex, |&x| x < 0), "{what}");

        assert!(!p.all(ex, |&x| x > 1000), "{what}");
        assert!(p.all(ex, |&x| x >= 0), "{what}");
    });
}

#[test]
fn find_map_first_or_last_or_any() {
    fn half_if_positive(x: &i32) -> Option<i32> {
        if *x > 0 {
            Some(x / 2)
        } else {
            None
        }
    }
    fn half_if_negative(x: &i32) -> Option<i32> {
        if *x < 0 {
            Some(x / 2)
        } else {
            None
        }
    }
    each("find_map_first_or_last_or_any", |ex, what| {
        let mut a: Vec<i32> = vec![];
        assert!(
            a.pipe().find_map_any(ex, half_if_positive).is_none(),
            "{what}"
        );
        assert!(
            a.pipe().find_map_first(ex, half_if_positive).is_none(),
            "{what}"
        );
        assert!(
            a.pipe().find_map_last(ex, half_if_positive).is_none(),
            "{what}"
        );

        a = (-1024..-3).collect();
        assert!(
            a.pipe().find_map_any(ex, half_if_positive).is_none(),
            "{what}"
        );
        assert!(
            a.pipe().find_map_first(ex, half_if_positive).is_none(),
            "{what}"
        );
        assert!(
            a.pipe().find_map_last(ex, half_if_positive).is_none(),
            "{what}"
        );

        // foldex: find_map_any is find_map_first
        assert_eq!(
            a.pipe().find_map_any(ex, half_if_negative),
            Some(-512_i32),
            "{what}"
        );
        assert_eq!(
            a.pipe().find_map_first(ex, half_if_negative),
            Some(-512_i32),
            "{what}"
        );
        assert_eq!(
            a.pipe().find_map_last(ex, half_if_negative),
            Some(-2_i32),
            "{what}"
        );

        a.append(&mut (2..1025).collect());
        assert_eq!(
            a.pipe().find_map_any(ex, half_if_positive),
            Some(1_i32),
            "{what}"
        );
        assert_eq!(
            a.pipe().find_map_first(ex, half_if_positive),
            Some(1_i32),
            "{what}"
        );
        assert_eq!(
            a.pipe().find_map_last(ex, half_if_positive),
            Some(512_i32),
            "{what}"
        );
    });
}

#[test]
fn par_iter_collect_vecdeque() {
    each("par_iter_collect_vecdeque", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let b: VecDeque<i32> = a.pipe().cloned().collect(ex);
        let c: VecDeque<i32> = a.iter().cloned().collect();
        assert_eq!(b, c, "{what}");
    });
}

#[test]
fn par_iter_collect_binaryheap() {
    each("par_iter_collect_binaryheap", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let mut b: BinaryHeap<i32> = a.pipe().cloned().collect(ex);
        assert_eq!(b.peek(), Some(&1023), "{what}");
        assert_eq!(b.len(), 1024, "{what}");
        for n in (0..1024).rev() {
            assert_eq!(b.pop(), Some(n), "{what}");
            assert_eq!(b.len() as i32, n, "{what}");
        }
    });
}

#[test]
fn par_iter_collect_linked_list() {
    each("par_iter_collect_linked_list", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let b: LinkedList<_> = a.pipe().map(|&i| (i, format!("{i}"))).collect(ex);
        let c: LinkedList<_> = a.iter().map(|&i| (i, format!("{i}"))).collect();
        assert_eq!(b, c, "{what}");
    });
}

#[test]
fn par_iter_collect_linked_list_flat_map_filter() {
    each(
        "par_iter_collect_linked_list_flat_map_filter",
        |ex, what| {
            let b: LinkedList<i32> = (0_i32..1024)
                .pipe()
                .flat_map(|i| 0..i)
                .filter(|&i| i % 2 == 0)
                .collect(ex);
            let c: LinkedList<i32> = (0_i32..1024)
                .flat_map(|i| 0..i)
                .filter(|&i| i % 2 == 0)
                .collect();
            assert_eq!(b, c, "{what}");
        },
    );
}

// from references and from values
#[test]
fn check_extend_items() {
    fn check<C>(ex: &dyn Executor, what: &str)
    where
        C: Default
            + Eq
            + Debug
            + Extend<i32>
            + for<'a> Extend<&'a i32>
            + ParallelExtend<i32>
            + for<'a> ParallelExtend<&'a i32>,
    {
        let mut serial = C::default();
        let mut parallel = C::default();

        // extend with references
        let v: Vec<_> = (0..128).collect();
        serial.extend(&v);
        parallel.par_extend(ex, v.pipe());
        assert_eq!(serial, parallel, "{what}");

        // extend with values
        serial.extend(-128..0);
        parallel.par_extend(ex, (-128_i32..0).pipe());
        assert_eq!(serial, parallel, "{what}");
    }
    each("check_extend_items", |ex, what| {
        check::<BTreeSet<_>>(ex, what);
        check::<HashSet<_>>(ex, what);
        check::<LinkedList<_>>(ex, what);
        check::<Vec<_>>(ex, what);
        check::<VecDeque<_>>(ex, what);
    });
}

#[test]
fn check_extend_heap() {
    each("check_extend_heap", |ex, what| {
        let mut serial: BinaryHeap<_> = Default::default();
        let mut parallel: BinaryHeap<_> = Default::default();

        let v: Vec<_> = (0..128).collect();
        serial.extend(&v);
        parallel.par_extend(ex, v.pipe());
        assert_eq!(
            serial.clone().into_sorted_vec(),
            parallel.clone().into_sorted_vec(),
            "{what}"
        );

        serial.extend(-128..0);
        parallel.par_extend(ex, (-128_i32..0).pipe());
        assert_eq!(
            serial.into_sorted_vec(),
            parallel.into_sorted_vec(),
            "{what}"
        );
    });
}

#[test]
fn check_extend_pairs() {
    fn check<C>(ex: &dyn Executor, what: &str)
    where
        C: Default
            + Eq
            + Debug
            + Extend<(usize, i32)>
            + for<'a> Extend<(&'a usize, &'a i32)>
            + ParallelExtend<(usize, i32)>
            + for<'a> ParallelExtend<(&'a usize, &'a i32)>,
    {
        let mut serial = C::default();
        let mut parallel = C::default();

        let m: HashMap<_, _> = (0..128).enumerate().collect();
        serial.extend(&m);
        parallel.par_extend(ex, m.pipe());
        assert_eq!(serial, parallel, "{what}");

        let v: Vec<(_, _)> = (-128..0).enumerate().collect();
        serial.extend(v.clone());
        parallel.par_extend(ex, from_vec(v));
        assert_eq!(serial, parallel, "{what}");
    }
    each("check_extend_pairs", |ex, what| {
        check::<BTreeMap<usize, i32>>(ex, what);
        check::<HashMap<usize, i32>>(ex, what);
    });
}

#[test]
fn check_partition_map() {
    each("check_partition_map", |ex, what| {
        let input = "a b c 1 2 3 x y z";
        let (a, b): (Vec<_>, String) = input.pipe_split_whitespace().partition_map(ex, |s| match s
            .parse::<i32>(
        ) {
            Ok(n) => Either::Left(n),
            Err(_) => Either::Right(s),
        });
        assert_eq!(a, vec![1, 2, 3], "{what}");
        assert_eq!(b, "abcxyz", "{what}");
    });
}

#[test]
fn check_flatten_vec() {
    each("check_flatten_vec", |ex, what| {
        let a: Vec<i32> = (0..1024).collect();
        let b: Vec<Vec<i32>> = vec![a.clone(), a.clone(), a.clone(), a.clone()];
        let c: Vec<i32> = b.pipe().flatten().cloned().collect(ex);
        let mut d = a.clone();
        d.extend(&a);
        d.extend(&a);
        d.extend(&a);
        assert_eq!(d, c, "{what}");
    });
}

#[test]
fn check_flatten_vec_empty() {
    each("check_flatten_vec_empty", |ex, what| {
        let a: Vec<Vec<i32>> = vec![vec![]];
        let b: Vec<i32> = a.pipe().flatten().cloned().collect(ex);
        assert_eq!(vec![] as Vec<i32>, b, "{what}");
    });
}

/// rayon: some value below 1024; foldex's is exact: 1023. The visits are counted exactly on
/// the executors that run in order on one thread.
#[test]
fn check_while_some() {
    each("check_while_some", |ex, what| {
        let value = (0_i32..2048).pipe().map(Some).while_some().max(ex);
        assert_eq!(value, Some(2047), "{what}");

        let counter = AtomicUsize::new(0);
        let value = (0_i32..2048)
            .pipe()
            .map(|x| {
                counter.fetch_add(1, Ordering::SeqCst);
                if x < 1024 {
                    Some(x)
                } else {
                    None
                }
            })
            .while_some()
            .max(ex);
        assert_eq!(value, Some(1023), "{what}");
        if what.ends_with("on SequentialEx") {
            assert_eq!(counter.load(Ordering::SeqCst), 1025, "{what}");
        }
        if what.contains("NonThreadedEx") {
            assert!(counter.load(Ordering::SeqCst) < 2048, "{what}");
        }
    });
}

/// rayon's lengths and bounds; the range is `0..2^12` rather than `2^20` (a debug build runs
/// the 81 pairs on eleven executors; the lengths from 10 000 on then cover the whole range, as
/// rayon's from 10^6 on do), and `with_max_len(0)`, which rayon reads as 1 and foldex refuses
/// naming the setting, is `with_max_len(1)`.
#[test]
fn check_lengths() {
    fn check(ex: &dyn Executor, what: &str, min: usize, max: usize) {
        let range = 0..1024 * 4;

        // Check against normalized values.
        let min_check = Ord::min(Ord::max(min, 1), range.len());
        let max_check = Ord::max(max, min_check.saturating_add(min_check - 1));

        assert!(
            range
                .pipe()
                .with_min_len(min)
                .with_max_len(max.max(1))
                .fold_pieces(|| 0, |count, _| count + 1)
                .all(ex, |c| c >= min_check && c <= max_check),
            "check_lengths failed {:?} -> {:?} on {what}",
            (min, max),
            (min_check, max_check)
        );
    }

    let lengths = [0, 1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, usize::MAX];
    each("check_lengths", |ex, what| {
        for &min in &lengths {
            for &max in &lengths {
                check(ex, what, min, max);
            }
        }
    });
}

#[test]
fn check_map_with() {
    each("check_map_with", |ex, what| {
        let (sender, receiver) = mpsc::channel();
        let a: HashSet<_> = (0..1024).collect();
        a.pipe()
            .cloned()
            .map_with(sender, |s, i| s.send(i).unwrap())
            .count(ex);
        let b: HashSet<_> = receiver.iter().collect();
        assert_eq!(a, b, "{what}");
    });
}

#[test]
fn check_fold_with() {
    each("check_fold_with", |ex, what| {
        let (sender, receiver) = mpsc::channel();
        let a: HashSet<_> = (0..1024).collect();
        a.pipe()
            .cloned()
            .fold_pieces_with(sender, |s, i| {
                s.send(i).unwrap();
                s
            })
            .count(ex);
        let b: HashSet<_> = receiver.iter().collect();
        assert_eq!(a, b, "{what}");
    });
}

#[test]
fn check_for_each_with() {
    each("check_for_each_with", |ex, what| {
        let (sender, receiver) = mpsc::channel();
        let a: HashSet<_> = (0..1024).collect();
        a.pipe()
            .cloned()
            .for_each_with(ex, sender, |s, i| s.send(i).unwrap());
        let b: HashSet<_> = receiver.iter().collect();
        assert_eq!(a, b, "{what}");
    });
}
