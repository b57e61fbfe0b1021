//! rayon's `tests/debug.rs`: pipelines print with `Debug`.

use super::*;
use foldex_pipeline::sources::{empty, once, repeat_n, IntoOwnedPipeline, PipeDrain, PipeStr};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};

fn check(text: String) {
    assert!(text.starts_with("Pipeline"), "{text}");
}

#[test]
fn debug_range() {
    check(format!("{:?}", (0_i32..10).pipe()));
}

#[test]
fn debug_range_inclusive() {
    check(format!("{:?}", (0_i32..=10).pipe()));
}

/// rayon takes the array by value; foldex takes arrays by reference.
#[test]
fn debug_array() {
    let a = [0i32; 10];
    check(format!("{:?}", a.pipe()));
}

/// Here and below, rayon's `par_drain` of a heap, map or set has no foldex counterpart (only
/// `Vec` and `VecDeque` have `pipe_drain`), nor has `par_iter_mut` of a list, an `Option` or a
/// `Result`: those lines are left out.
#[test]
fn debug_binary_heap() {
    let heap: BinaryHeap<_> = (0..10).collect();
    check(format!("{:?}", heap.pipe()));
    check(format!("{:?}", heap.into_pipe()));
}

#[test]
fn debug_btree_map() {
    let mut map: BTreeMap<_, _> = (0..10).enumerate().collect();
    check(format!("{:?}", map.pipe()));
    check(format!("{:?}", (&mut map).pipe()));
    check(format!("{:?}", map.into_pipe()));
}

#[test]
fn debug_btree_set() {
    let set: BTreeSet<_> = (0..10).collect();
    check(format!("{:?}", set.pipe()));
    check(format!("{:?}", set.into_pipe()));
}

#[test]
fn debug_hash_map() {
    let mut map: HashMap<_, _> = (0..10).enumerate().collect();
    check(format!("{:?}", map.pipe()));
    check(format!("{:?}", (&mut map).pipe()));
    check(format!("{:?}", map.into_pipe()));
}

#[test]
fn debug_hash_set() {
    let set: HashSet<_> = (0..10).collect();
    check(format!("{:?}", set.pipe()));
    check(format!("{:?}", set.into_pipe()));
}

#[test]
fn debug_linked_list() {
    let list: LinkedList<_> = (0..10).collect();
    check(format!("{:?}", list.pipe()));
    check(format!("{:?}", list.into_pipe()));
}

#[test]
fn debug_vec_deque() {
    let mut deque: VecDeque<_> = (0..10).collect();
    check(format!("{:?}", deque.pipe()));
    check(format!("{:?}", (&mut deque).pipe()));
    check(format!("{:?}", deque.pipe_drain(..)));
    check(format!("{:?}", deque.into_pipe()));
}

#[test]
fn debug_option() {
    let option = Some(0);
    check(format!("{:?}", option.pipe()));
    check(format!("{:?}", option.into_pipe()));
}

#[test]
fn debug_result() {
    let result = Ok::<_, ()>(0);
    check(format!("{:?}", result.pipe()));
    check(format!("{:?}", result.into_pipe()));
}

#[test]
fn debug_str() {
    let s = "a b c d\ne f g";
    check(format!("{:?}", s.pipe_chars()));
    check(format!("{:?}", s.pipe_lines()));
    check(format!("{:?}", s.pipe_split('\n')));
    check(format!("{:?}", s.pipe_split_inclusive('\n')));
    check(format!("{:?}", s.pipe_split_terminator('\n')));
    check(format!("{:?}", s.pipe_split_whitespace()));
    check(format!("{:?}", s.pipe_split_ascii_whitespace()));
}

/// rayon's `par_chunk_by_mut`, `par_chunks_exact_mut`, `par_rchunks_mut`,
/// `par_rchunks_exact_mut`, `par_split_inclusive(_mut)` and `par_split_mut` have no foldex
/// counterpart: those lines are left out.
#[test]
fn debug_vec() {
    let mut v: Vec<_> = (0..10).collect();
    check(format!("{:?}", v.pipe()));
    check(format!("{:?}", (&mut v).pipe()));
    check(format!("{:?}", v.pipe().chunk_by(i32::eq)));
    check(format!("{:?}", v.pipe().chunks(42)));
    check(format!("{:?}", v.pipe().chunks_exact(42)));
    check(format!("{:?}", (&mut v).pipe().chunks_mut(42)));
    check(format!("{:?}", v.pipe().rchunks(42)));
    check(format!("{:?}", v.pipe().rchunks_exact(42)));
    check(format!("{:?}", v.pipe().windows(42)));
    check(format!("{:?}", v.pipe().split(|x| x % 3 == 0)));
    check(format!("{:?}", v.pipe_drain(..)));
    check(format!("{:?}", from_vec(v)));
}

#[test]
fn debug_empty() {
    check(format!("{:?}", empty::<i32>()));
}

#[test]
fn debug_once() {
    check(format!("{:?}", once(10)));
}

/// rayon's unbounded `repeat(x)` is left out (foldex's sources have a length).
#[test]
fn debug_repeat() {
    let x: Option<i32> = None;
    check(format!("{:?}", repeat_n(x, 10)));
}

/// rayon's `by_exponential_blocks`, `by_uniform_blocks`, `fold_chunks(_with)`,
/// `skip_any(_while)` and `take_any(_while)` have no foldex counterpart: those lines are left
/// out.
#[test]
fn debug_adaptors() {
    let v: Vec<_> = (0..10).collect();
    check(format!("{:?}", v.pipe().chain(&v)));
    check(format!("{:?}", v.pipe().cloned()));
    check(format!("{:?}", v.pipe().copied()));
    check(format!("{:?}", v.pipe().enumerate()));
    check(format!("{:?}", v.pipe().filter(|_| true)));
    check(format!("{:?}", v.pipe().filter_map(Some)));
    check(format!("{:?}", v.pipe().flat_map(Some)));
    check(format!("{:?}", v.pipe().flat_map_iter(Some)));
    check(format!("{:?}", v.pipe().map(Some).flatten()));
    check(format!("{:?}", v.pipe().map(Some).flatten_iter()));
    check(format!("{:?}", v.pipe().fold_pieces(|| 0, |x, _| x)));
    check(format!("{:?}", v.pipe().fold_pieces_with(0, |x, _| x)));
    check(format!(
        "{:?}",
        v.pipe().try_fold_pieces(|| 0, |x, _| Some(x))
    ));
    check(format!(
        "{:?}",
        v.pipe().try_fold_pieces_with(0, |x, _| Some(x))
    ));
    check(format!("{:?}", v.pipe().inspect(|_| ())));
    check(format!("{:?}", v.pipe().update(|_| ())));
    check(format!("{:?}", v.pipe().interleave(&v)));
    check(format!("{:?}", v.pipe().interleave_shortest(&v)));
    check(format!("{:?}", v.pipe().intersperse(&-1)));
    check(format!("{:?}", v.pipe().chunks(3)));
    check(format!("{:?}", v.pipe().map(|x| x)));
    check(format!("{:?}", v.pipe().map_with(0, |_, x| x)));
    check(format!("{:?}", v.pipe().map_init(|| 0, |_, x| x)));
    check(format!("{:?}", v.pipe().panic_fuse()));
    check(format!("{:?}", v.pipe().positions(|_| true)));
    check(format!("{:?}", v.pipe().rev()));
    check(format!("{:?}", v.pipe().skip(1)));
    check(format!("{:?}", v.pipe().skip_while(|_| false)));
    check(format!("{:?}", v.pipe().take(1)));
    check(format!("{:?}", v.pipe().take_while(|_| true)));
    check(format!("{:?}", v.pipe().map(Some).while_some()));
    check(format!("{:?}", v.pipe().with_max_len(1)));
    check(format!("{:?}", v.pipe().with_min_len(1)));
    check(format!("{:?}", v.pipe().zip(&v)));
    check(format!("{:?}", v.pipe().zip_eq(&v)));
    check(format!("{:?}", v.pipe().step_by(2)));
}
