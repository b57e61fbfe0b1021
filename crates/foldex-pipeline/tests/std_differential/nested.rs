//! `flat_map_pipe` and `flatten_pipe` (inner sequences that are pipelines) against `std`'s
//! `flat_map` of the inner items, forward and in searches from the right, composed with stages
//! before, inside and after them and nested twice, on several executors through
//! `&dyn Executor`; and the search from the right stopping early through them.

use crate::common::executors;

use foldex_core::Executor;
use foldex_pipeline::transform::Transform;
use foldex_pipeline::{IntoPipeline, PipeSource, Pipeline};
use foldex_testkit::watchdog;
use std::sync::atomic::{AtomicUsize, Ordering};

const LENGTHS: [usize; 7] = [0, 1, 2, 3, 7, 31, 97];

/// Runs `check` for every executor of the shared list and every length of [`LENGTHS`].
fn each_case(name: &str, check: impl Fn(&dyn Executor, &[u64], &str)) {
    crate::common::each_case(name, &LENGTHS, 57, check)
}

/// Every reduction of `pipe` against `want`, its items by `std`, for predicates drawn from a
/// few seeds: `collect`, `count`, `find_first`, `find_last`, `find_map_first`,
/// `find_map_last`, `position_first` and `position_last`.
fn same_as_std<S, X>(ex: &dyn Executor, pipe: &Pipeline<S, X>, want: &[u64], what: &str)
where
    S: PipeSource,
    X: Transform<S::Item, Out = u64>,
{
    let got: Vec<u64> = pipe.collect(ex);
    assert_eq!(got, want, "collect: {what}");
    assert_eq!(pipe.count(ex), want.len(), "count: {what}");
    for seed in [0u64, 1, 3, 6, 11] {
        // Dense (every second or third item) to sparse: several matches inside one inner.
        let hit = |y: &u64| (y ^ seed).is_multiple_of(2 + seed % 5) || *y == seed;
        let what = format!("seed {seed}: {what}");
        let first = want.iter().copied().find(hit);
        assert_eq!(pipe.find_first(ex, hit), first, "find_first {what}");
        let last = want.iter().copied().rfind(hit);
        assert_eq!(pipe.find_last(ex, hit), last, "find_last {what}");
        let half = |y: u64| hit(&y).then_some(y / 2);
        let want_map = want.iter().copied().rev().find_map(half);
        assert_eq!(
            pipe.find_map_last(ex, half),
            want_map,
            "find_map_last {what}"
        );
        let want_map = want.iter().copied().find_map(half);
        assert_eq!(
            pipe.find_map_first(ex, half),
            want_map,
            "find_map_first {what}"
        );
        let at = want.iter().position(hit);
        assert_eq!(
            pipe.position_first(ex, |y| hit(&y)),
            at,
            "position_first {what}"
        );
        let at = want.iter().rposition(hit);
        assert_eq!(
            pipe.position_last(ex, |y| hit(&y)),
            at,
            "position_last {what}"
        );
    }
}

#[test]
fn flat_map_pipe_matches_std_flat_map() {
    each_case("flat_map_pipe", |ex, data, what| {
        // A range mapped, per item.
        let inner = |x: u64| (0..x % 5).map(move |k| x * 8 + k);
        let want: Vec<u64> = data.iter().copied().flat_map(inner).collect();
        let pipe = data
            .pipe()
            .copied()
            .flat_map_pipe(|x| (0..x % 5).pipe().map(move |k| x * 8 + k));
        same_as_std(ex, &pipe, &want, &format!("range map: {what}"));

        // Stages before, inside (a filter) and after.
        let keep = |x: &u64| x % 3 != 1;
        let inner = |x: u64| {
            (0..x % 7)
                .filter(move |k| !(x + k).is_multiple_of(3))
                .map(move |k| x + k)
        };
        let want: Vec<u64> = data
            .iter()
            .copied()
            .filter(keep)
            .flat_map(inner)
            .map(|y| y * 2)
            .filter(|y| y % 5 != 0)
            .collect();
        let pipe = data
            .pipe()
            .copied()
            .filter(keep)
            .flat_map_pipe(|x| {
                (0..x % 7)
                    .pipe()
                    .filter(move |k| !(x + k).is_multiple_of(3))
                    .map(move |k| x + k)
            })
            .map(|y| y * 2)
            .filter(|y| y % 5 != 0);
        same_as_std(ex, &pipe, &want, &format!("filter around: {what}"));

        // Inner stages with a stop or state run in order, and end only their inner run.
        let inner = |x: u64| (0..x % 9).take_while(move |k| k * k < x % 40);
        let want: Vec<u64> = data.iter().copied().flat_map(inner).collect();
        let pipe = data
            .pipe()
            .copied()
            .flat_map_pipe(|x| (0..x % 9).pipe().take_while(move |k| k * k < x % 40));
        same_as_std(ex, &pipe, &want, &format!("inner take_while: {what}"));
        let inner = |x: u64| {
            let mut halves: Vec<u64> = (0..x % 6).map(|k| k / 2 + x).collect();
            halves.dedup();
            halves
        };
        let want: Vec<u64> = data.iter().copied().flat_map(inner).collect();
        let pipe = data
            .pipe()
            .copied()
            .flat_map_pipe(|x| (0..x % 6).pipe().map(move |k| k / 2 + x).dedup());
        same_as_std(ex, &pipe, &want, &format!("inner dedup: {what}"));

        // Nested twice: one after the other, and one inside the other's inner pipeline.
        let want: Vec<u64> = data
            .iter()
            .copied()
            .flat_map(|x| (0..x % 4).map(move |k| x * 4 + k))
            .flat_map(|y| (0..y % 3).map(move |j| y * 3 + j))
            .collect();
        let pipe = data
            .pipe()
            .copied()
            .flat_map_pipe(|x| (0..x % 4).pipe().map(move |k| x * 4 + k))
            .flat_map_pipe(|y| (0..y % 3).pipe().map(move |j| y * 3 + j));
        same_as_std(ex, &pipe, &want, &format!("twice after: {what}"));
        let pipe = data.pipe().copied().flat_map_pipe(|x| {
            (0..x % 4)
                .pipe()
                .map(move |k| x * 4 + k)
                .flat_map_pipe(|y| (0..y % 3).pipe().map(move |j| y * 3 + j))
        });
        same_as_std(ex, &pipe, &want, &format!("twice inside: {what}"));
    });
}

#[test]
fn flatten_pipe_of_slices_matches_std_flatten() {
    each_case("flatten_pipe", |ex, data, what| {
        let rows: Vec<Vec<u64>> = data.chunks(3).map(|row| row.to_vec()).collect();
        let want: Vec<u64> = rows.iter().flatten().copied().collect();
        let pipe = rows.pipe().map(|row| row.pipe().copied()).flatten_pipe();
        same_as_std(ex, &pipe, &want, &format!("flatten_pipe: {what}"));
        let pipe = rows.pipe().flat_map_pipe(|row| row.pipe().rev().copied());
        let want: Vec<u64> = rows
            .iter()
            .flat_map(|row| row.iter().rev())
            .copied()
            .collect();
        same_as_std(ex, &pipe, &want, &format!("rev inner slices: {what}"));
    });
}

/// The predicate runs on few items left of the match, through nested inner pipelines:
/// each is searched from its last item (one item's inner pipelines walked in order would take
/// 500 000 calls).
#[test]
fn find_last_stops_early_through_flat_map_pipe() {
    watchdog("find_last stops early through flat_map_pipe", || {
        let n = 1_000u64;
        let all = n * n * n;
        for (name, ex) in executors() {
            let cube = (0..n)
                .pipe()
                .flat_map_pipe(|i| (0..n).pipe().map(move |j| i * n + j))
                .filter(|y| y % 2 == 1)
                .flat_map_pipe(|y| (0..n).pipe().map(move |k| y * n + k));
            let calls = AtomicUsize::new(0);
            let got = cube.find_last(&*ex, |z| {
                calls.fetch_add(1, Ordering::Relaxed);
                z % 1000 == 7
            });
            assert_eq!(got, Some(all - 1000 + 7), "{name}");
            let calls = calls.into_inner();
            assert!(
                calls < 50 * n as usize,
                "{name}: {calls} predicate calls of {all}"
            );
            let calls = AtomicUsize::new(0);
            let got = cube.find_map_last(&*ex, |z| {
                calls.fetch_add(1, Ordering::Relaxed);
                (z % 5000 == 3).then_some(z / 5000)
            });
            assert_eq!(got, Some((all - 5000 + 3) / 5000), "find_map_last: {name}");
            let calls = calls.into_inner();
            assert!(
                calls < 50 * n as usize,
                "{name}: {calls} find_map calls of {all}"
            );
        }
    });
}
