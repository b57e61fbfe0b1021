//! A word count of owned lines through `flat_map_ref(str::split_whitespace).counts(ex)`
//! allocates per distinct word and piece, not per word: every allocation of the process is
//! counted (`stats_alloc`, in a test binary of its own), on each executor, over a slice of
//! lines and over a stream of owned lines.

use foldex_core::{Executor, Stream};
use foldex_pipeline::{from_stream, IntoPipeline};
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_threaded::ThreadedEx;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::collections::HashMap;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const LINES: usize = 20_000;
const WORDS_PER_LINE: usize = 10;
const DISTINCT: usize = 16;

/// `LINES` lines of `WORDS_PER_LINE` words from a vocabulary of `DISTINCT`.
fn lines() -> Vec<String> {
    (0..LINES)
        .map(|i| {
            let words: Vec<String> = (0..WORDS_PER_LINE)
                .map(|w| format!("word{}", (i * 7 + w * 3) % DISTINCT))
                .collect();
            words.join(" ")
        })
        .collect()
}

/// The allocations made while `f` runs, on every thread.
fn allocations<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let region = Region::new(GLOBAL);
    let out = f();
    (out, region.change().allocations)
}

#[test]
fn a_word_count_of_owned_lines_allocates_per_distinct_word_not_per_word() {
    let lines = lines();
    let words = LINES * WORDS_PER_LINE;
    let want: HashMap<String, usize> = {
        let mut counts = HashMap::new();
        for w in lines.iter().flat_map(|l| l.split_whitespace()) {
            *counts.entry(w.to_owned()).or_insert(0) += 1;
        }
        counts
    };
    // The usual way out of E0515, an owned key per word, as a yardstick for the counter.
    let (_, per_word) = allocations(|| {
        let mut counts: HashMap<String, usize> = HashMap::new();
        for w in lines.iter().flat_map(|l| l.split_whitespace()) {
            *counts.entry(w.to_owned()).or_insert(0) += 1;
        }
        counts
    });
    assert!(per_word >= words, "the yardstick: {per_word} allocations");

    let executors: Vec<(&str, Box<dyn Executor>)> = vec![
        ("SequentialEx", Box::new(SequentialEx)),
        ("ThreadedEx", Box::new(ThreadedEx::new())),
        ("TaskPoolEx", Box::new(TaskPoolEx::new())),
    ];
    for (name, ex) in &executors {
        let ex = &**ex;
        // Start the pool's threads before counting.
        assert_eq!(
            lines.pipe().flat_map_ref(str::split_whitespace).counts(ex),
            want
        );

        let (got, made) =
            allocations(|| lines.pipe().flat_map_ref(str::split_whitespace).counts(ex));
        assert_eq!(got, want, "{name}");
        println!("{name}, slice of lines: {made} allocations for {words} words");
        assert!(
            made * 20 < words,
            "{name}, slice: {made} allocations for {words} words"
        );

        let owned = Stream::new(lines.clone());
        let (got, made) = allocations(|| {
            from_stream(owned)
                .flat_map_ref(str::split_whitespace)
                .counts(ex)
        });
        assert_eq!(got, want, "{name}");
        println!("{name}, stream of owned lines: {made} allocations for {words} words");
        assert!(
            made * 20 < words,
            "{name}, stream: {made} allocations for {words} words"
        );
    }
    // One piece, one map: a key per distinct word, and the map's own growth.
    let (_, made) = allocations(|| {
        lines
            .pipe()
            .flat_map_ref(str::split_whitespace)
            .counts(&SequentialEx)
    });
    assert!(made <= DISTINCT + 8, "SequentialEx: {made} allocations");
}
