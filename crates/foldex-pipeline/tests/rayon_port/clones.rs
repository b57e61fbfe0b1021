//! rayon's `tests/clones.rs`: a cloned pipeline gives what the original gives.

use super::*;
use foldex_pipeline::sources::{empty, repeat_n, PipeStr};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};

macro_rules! check {
    ($ex:expr, $what:expr, $pipe:expr) => {{
        let pipe = $pipe;
        let a: Vec<_> = pipe.clone().collect($ex);
        let b: Vec<_> = pipe.collect($ex);
        assert_eq!(a, b, "{}", $what);
    }};
}

/// As `check!`, for a fold per piece: how many pieces there are is the executor's choice, and
/// `AutoEx` may choose differently for the clone, so the two are compared summed (rayon's lines
/// fold to `x` and `x`, whose sums say nothing; these fold to counts and sums).
macro_rules! check_sum {
    ($ex:expr, $what:expr, $pipe:expr) => {{
        let pipe = $pipe;
        let a: Vec<_> = pipe.clone().collect($ex);
        let b: Vec<_> = pipe.collect($ex);
        let sum = |v: Vec<_>| v.into_iter().flatten().sum::<i32>();
        assert_eq!(sum(a), sum(b), "{}", $what);
    }};
}

#[test]
fn clone_range() {
    each("clone_range", |ex, what| {
        check!(ex, what, (0_i32..1000).pipe())
    });
}

#[test]
fn clone_range_inclusive() {
    each("clone_range_inclusive", |ex, what| {
        check!(ex, what, (0_i32..=1000).pipe())
    });
}

/// rayon takes the array by value; foldex takes arrays by reference.
#[test]
fn clone_array() {
    let a = [0i32; 100];
    each("clone_array", |ex, what| {
        check!(ex, what, a.pipe().copied())
    });
}

/// Here and below, rayon also clones the collection's `into_par_iter()`; foldex's pipelines
/// that own their items (`into_pipe`, `from_vec`, `once`) run once and are not `Clone`
/// (sources::IntoOwnedPipeline), so only the pipelines by reference are cloned.
#[test]
fn clone_binary_heap() {
    let heap: BinaryHeap<_> = (0..1000).collect();
    each("clone_binary_heap", |ex, what| {
        check!(ex, what, heap.pipe())
    });
}

#[test]
fn clone_btree_map() {
    let map: BTreeMap<_, _> = (0..1000).enumerate().collect();
    each("clone_btree_map", |ex, what| check!(ex, what, map.pipe()));
}

#[test]
fn clone_btree_set() {
    let set: BTreeSet<_> = (0..1000).collect();
    each("clone_btree_set", |ex, what| check!(ex, what, set.pipe()));
}

#[test]
fn clone_hash_map() {
    let map: HashMap<_, _> = (0..1000).enumerate().collect();
    each("clone_hash_map", |ex, what| check!(ex, what, map.pipe()));
}

#[test]
fn clone_hash_set() {
    let set: HashSet<_> = (0..1000).collect();
    each("clone_hash_set", |ex, what| check!(ex, what, set.pipe()));
}

#[test]
fn clone_linked_list() {
    let list: LinkedList<_> = (0..1000).collect();
    each("clone_linked_list", |ex, what| {
        check!(ex, what, list.pipe())
    });
}

#[test]
fn clone_vec_deque() {
    let deque: VecDeque<_> = (0..1000).collect();
    each("clone_vec_deque", |ex, what| check!(ex, what, deque.pipe()));
}

#[test]
fn clone_option() {
    let option = Some(0);
    each("clone_option", |ex, what| check!(ex, what, option.pipe()));
}

#[test]
fn clone_result() {
    let result = Ok::<_, ()>(0);
    each("clone_result", |ex, what| check!(ex, what, result.pipe()));
}

#[test]
fn clone_str() {
    let s = include_str!("clones.rs");
    each("clone_str", |ex, what| {
        check!(ex, what, s.pipe_chars());
        check!(ex, what, s.pipe_lines());
        check!(ex, what, s.pipe_split('\n'));
        check!(ex, what, s.pipe_split_inclusive('\n'));
        check!(ex, what, s.pipe_split_terminator('\n'));
        check!(ex, what, s.pipe_split_whitespace());
        check!(ex, what, s.pipe_split_ascii_whitespace());
    });
}

/// rayon's `par_array_windows`, `par_split_inclusive` and `into_par_iter()` are left out:
/// foldex has no `array_windows` or slice `split_inclusive`, and `from_vec` is not `Clone`.
#[test]
fn clone_vec() {
    let v: Vec<i32> = (0..1000).collect();
    each("clone_vec", |ex, what| {
        check!(ex, what, v.pipe());
        check!(ex, what, v.pipe().chunk_by(|a, b| a == b));
        check!(ex, what, v.pipe().chunks(42));
        check!(ex, what, v.pipe().chunks_exact(42));
        check!(ex, what, v.pipe().rchunks(42));
        check!(ex, what, v.pipe().rchunks_exact(42));
        check!(ex, what, v.pipe().windows(42));
        check!(ex, what, v.pipe().split(|x| x % 3 == 0));
    });
}

#[test]
fn clone_empty() {
    each("clone_empty", |ex, what| check!(ex, what, empty::<i32>()));
}

/// rayon's unbounded `repeat(x).while_some()` half is left out (foldex's sources have a
/// length).
#[test]
fn clone_repeat() {
    let x: Option<i32> = None;
    each("clone_repeat", |ex, what| {
        check!(ex, what, repeat_n(x, 1000))
    });
}

/// rayon's `by_exponential_blocks`, `by_uniform_blocks`, `fold_chunks(_with)`,
/// `skip_any(_while)` and `take_any(_while)` have no foldex counterpart: those lines are left
/// out. `fold_pieces` (rayon's `fold`) after `with_max_len(1)` folds one item per piece on
/// every executor, so those clones are compared item by item. foldex's `skip_while` /
/// `take_while` stand for the `*_any_while` ones.
#[test]
fn clone_adaptors() {
    let v: Vec<_> = (0..1000).map(Some).collect();
    each("clone_adaptors", |ex, what| {
        check!(ex, what, v.pipe().chain(&v));
        check!(ex, what, v.pipe().cloned());
        check!(ex, what, v.pipe().copied());
        check!(ex, what, v.pipe().enumerate());
        check!(ex, what, v.pipe().filter(|_| true));
        check!(ex, what, v.pipe().filter_map(|x| *x));
        check!(ex, what, v.pipe().flat_map(|x| *x));
        check!(ex, what, v.pipe().flat_map_iter(|x| *x));
        check!(ex, what, v.pipe().flatten());
        check!(ex, what, v.pipe().flatten_iter());
        check_sum!(
            ex,
            what,
            v.pipe().fold_pieces(|| Some(0), |n, _| n.map(|n| n + 1))
        );
        check_sum!(
            ex,
            what,
            v.pipe().fold_pieces_with(Some(0), |n, _| n.map(|n| n + 1))
        );
        check_sum!(
            ex,
            what,
            v.pipe().try_fold_pieces(|| 0, |a, &x| x.map(|x| a + x))
        );
        check_sum!(
            ex,
            what,
            v.pipe().try_fold_pieces_with(0, |a, &x| x.map(|x| a + x))
        );
        check!(
            ex,
            what,
            v.pipe()
                .with_max_len(1)
                .fold_pieces(|| Some(0), |n, _| n.map(|n| n + 1))
        );
        check!(
            ex,
            what,
            v.pipe()
                .with_max_len(1)
                .fold_pieces_with(Some(0), |n, _| n.map(|n| n + 1))
        );
        check!(
            ex,
            what,
            v.pipe()
                .with_max_len(1)
                .try_fold_pieces(|| 0, |a, &x| x.map(|x| a + x))
        );
        check!(ex, what, v.pipe().inspect(|_| ()));
        check!(ex, what, v.pipe().update(|_| ()));
        check!(ex, what, v.pipe().interleave(&v));
        check!(ex, what, v.pipe().interleave_shortest(&v));
        check!(ex, what, v.pipe().intersperse(&None));
        check!(ex, what, v.pipe().chunks(3));
        check!(ex, what, v.pipe().map(|x| x));
        check!(ex, what, v.pipe().map_with(0, |_, x| x));
        check!(ex, what, v.pipe().map_init(|| 0, |_, x| x));
        check!(ex, what, v.pipe().panic_fuse());
        check!(ex, what, v.pipe().positions(|_| true));
        check!(ex, what, v.pipe().rev());
        check!(ex, what, v.pipe().skip(42));
        check!(ex, what, v.pipe().skip_while(|_| false));
        check!(ex, what, v.pipe().take(42));
        check!(ex, what, v.pipe().take_while(|_| true));
        check!(ex, what, v.pipe().with_max_len(1));
        check!(ex, what, v.pipe().with_min_len(1));
        check!(ex, what, v.pipe().cloned().while_some());
        check!(ex, what, v.pipe().zip(&v));
        check!(ex, what, v.pipe().zip_eq(&v));
        check!(ex, what, v.pipe().step_by(2));
    });
}
