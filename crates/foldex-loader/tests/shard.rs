//! Sharding across ranks: disjoint parts of the same epoch permutation.

mod common;

use foldex_dataset::{from_fn, Tail};
use foldex_loader::Loader;
use foldex_threaded::ThreadedEx;
use std::sync::Arc;

fn rank_epoch(
    rank: usize,
    world: usize,
    tail: Tail,
    len: usize,
    epoch_count: u64,
) -> Vec<Vec<usize>> {
    let executor = &common::executors()[rank % common::executors().len()].1;
    let loader = Loader::new(from_fn(len, |i| i), Arc::clone(executor))
        .batch_size(4)
        .shuffle(9)
        .shard(rank, world)
        .shard_tail(tail);
    (0..epoch_count)
        .map(|_| loader.iter().flatten().collect())
        .collect()
}

#[test]
fn uneven_ranks_are_disjoint_and_their_union_is_the_epoch() {
    for world in [1, 2, 3, 5] {
        for len in [0, 1, 7, 100, 101] {
            let parts: Vec<Vec<Vec<usize>>> = (0..world)
                .map(|r| rank_epoch(r, world, Tail::Uneven, len, 2))
                .collect();
            for epoch in 0..2 {
                let mut all: Vec<usize> = parts
                    .iter()
                    .flat_map(|p| p[epoch].iter().copied())
                    .collect();
                all.sort_unstable();
                assert_eq!(
                    all,
                    (0..len).collect::<Vec<_>>(),
                    "world {world}, len {len}, epoch {epoch}"
                );
            }
        }
    }
}

#[test]
fn ranks_take_strided_parts_of_the_same_permutation() {
    let order = Loader::new(from_fn(10, |i| i), ThreadedEx::new().basesize(1))
        .shuffle(9)
        .epoch_order(0);
    let rank1 = &rank_epoch(1, 3, Tail::Uneven, 10, 1)[0];
    assert_eq!(rank1, &vec![order.get(1), order.get(4), order.get(7)]);
}

#[test]
fn pad_and_drop_keep_ranks_in_lockstep() {
    let len = 103;
    for world in [2, 4, 7] {
        let padded: Vec<Vec<usize>> = (0..world)
            .map(|r| rank_epoch(r, world, Tail::Pad, len, 1).remove(0))
            .collect();
        assert!(
            padded.iter().all(|p| p.len() == len.div_ceil(world)),
            "world {world}"
        );
        let mut covered: Vec<usize> = padded.concat();
        covered.sort_unstable();
        covered.dedup();
        assert_eq!(
            covered,
            (0..len).collect::<Vec<_>>(),
            "pad covers the epoch"
        );

        let dropped: Vec<Vec<usize>> = (0..world)
            .map(|r| rank_epoch(r, world, Tail::Drop, len, 1).remove(0))
            .collect();
        assert!(
            dropped.iter().all(|p| p.len() == len / world),
            "world {world}"
        );
        let mut all = dropped.concat();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), len / world * world, "drop repeats nothing");
    }
}

#[test]
fn the_batch_count_follows_the_shard() {
    let loader = Loader::new(from_fn(10, |i| i), ThreadedEx::new().basesize(1))
        .batch_size(2)
        .shard(0, 3)
        .shard_tail(Tail::Uneven);
    assert_eq!(loader.len(), 2); // 4 observations for rank 0
    let loader = Loader::new(from_fn(10, |i| i), ThreadedEx::new().basesize(1))
        .batch_size(2)
        .shard(2, 3)
        .shard_tail(Tail::Drop);
    assert_eq!(loader.len(), 2); // 3 observations, the last batch short
}

#[test]
#[should_panic(expected = "rank must be below world (4), got 4")]
fn a_rank_outside_the_world_is_refused() {
    let _ = Loader::new(from_fn(10, |i| i), ThreadedEx::new().basesize(1)).shard(4, 4);
}
