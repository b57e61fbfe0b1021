//! The parallel sorts on ThreadedEx (the global pool, default settings) against rayon's on its
//! global pool, in the same run.
//!
//! `cargo bench -p foldex-benches --bench sort`
//!
//! Groups (ratio = foldex median / rayon median within a group; each iteration sorts a fresh
//! copy of the input, the copy not timed):
//! - `sort/u64_1e7`: 10^7 random `u64`;
//! - `sort/string_1e6`: 10^6 random `String`s of 8 to 23 letters.
//!
//! Each group has `rayon par_sort`, `foldex par_sort`, `rayon par_sort_unstable` and
//! `foldex par_sort_unstable`, and `std sort` and `std sort_unstable` on one thread for scale.
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use foldex::pipeline::sort::ParallelSort;
use foldex::prelude::*;
use rayon::slice::ParallelSliceMut;
use std::time::Duration;

/// A fixed pseudo-random sequence (xorshift64).
fn random(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

fn u64s() -> Vec<u64> {
    let mut next = random(0x9E37_79B9_7F4A_7C15);
    (0..10_000_000).map(|_| next()).collect()
}

fn strings() -> Vec<String> {
    let mut next = random(0x2545_F491_4F6C_DD1D);
    (0..1_000_000)
        .map(|_| {
            let len = 8 + (next() % 16) as usize;
            (0..len)
                .map(|_| char::from(b'a' + (next() % 26) as u8))
                .collect()
        })
        .collect()
}

/// A contender's name and its sort of a `Vec`.
type Contender<'a, T> = (&'a str, &'a dyn Fn(&mut Vec<T>));

/// Benchmarks every contender on fresh copies of `input`, after checking each sorts it.
fn contenders<T: Ord + Clone + Send + Sync>(c: &mut Criterion, group: &str, input: &[T]) {
    let ex = ThreadedEx::new();
    let mut want = input.to_vec();
    want.sort();
    let sorts: [Contender<'_, T>; 6] = [
        // Both traits name the methods alike: each is called by its trait's name.
        ("rayon par_sort", &|v| {
            ParallelSliceMut::par_sort(&mut v[..])
        }),
        ("foldex par_sort", &|v| {
            ParallelSort::par_sort(&mut v[..], &ex)
        }),
        ("rayon par_sort_unstable", &|v| {
            ParallelSliceMut::par_sort_unstable(&mut v[..])
        }),
        ("foldex par_sort_unstable", &|v| {
            ParallelSort::par_sort_unstable(&mut v[..], &ex)
        }),
        ("std sort", &|v| v.sort()),
        ("std sort_unstable", &|v| v.sort_unstable()),
    ];
    let mut g = c.benchmark_group(group);
    for (name, sort) in sorts {
        let mut v = input.to_vec();
        sort(&mut v);
        assert!(v == want, "{name} on {group}");
        g.bench_function(name, |b| {
            b.iter_batched_ref(|| input.to_vec(), |v| sort(v), BatchSize::LargeInput)
        });
    }
    g.finish();
}

fn sorts(c: &mut Criterion) {
    contenders(c, "sort/u64_1e7", &u64s());
    contenders(c, "sort/string_1e6", &strings());
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5))
        .sample_size(10);
    targets = sorts
}
criterion_main!(benches);
