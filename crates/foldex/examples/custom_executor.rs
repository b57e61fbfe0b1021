//! A complete custom executor, written only against foldex's public protocol.
//!
//! `SpawnAllEx` (after FoldsThreads.jl's executor of that name) runs every chunk of `basesize`
//! indices on its own scoped thread, then combines the partials left to right. It passes the
//! same conformance suite as the built-in executors: `cargo test -p foldex --example
//! custom_executor`.
//! Run it with `cargo run -p foldex --example custom_executor`.
#![forbid(unsafe_code)]

use foldex::prelude::*;
use foldex::protocol::available_parallelism;
use foldex::protocol::exec::{run_pieces, PieceLen};
use foldex::protocol::{Job, Partial};
use std::num::NonZeroUsize;

/// One scoped thread per chunk of `basesize` consecutive indices (larger chunks where a fold
/// would need more than 64).
#[derive(Debug, Clone, Copy, Default)]
pub struct SpawnAllEx {
    basesize: Basesize,
}

impl SpawnAllEx {
    /// A `SpawnAllEx` whose chunks hold `basesize` indices.
    pub fn with_basesize(basesize: Basesize) -> Self {
        Self { basesize }
    }
}

impl Executor for SpawnAllEx {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let len = job.len();
        // At most 64 threads per fold: each costs a stack, and a process can map only so many
        // (folds nested in folds multiply them). Each runs its chunk, no shorter than the
        // fold's `min` (`with_min_len`), in pieces no longer than its `max` (`with_max_len`).
        let size = self
            .basesize
            .resolve(len, self.workers())
            .max(len.div_ceil(64));
        let bounds = job.piece_len();
        let min = NonZeroUsize::new(bounds.min()).expect("at least 1");
        let cut = PieceLen::ANY.at_least(min).chunking(len, size);
        std::thread::scope(|scope| {
            // Stop spawning once a Break (or a panic) makes the rest irrelevant.
            let mut end = 0;
            let threads: Vec<_> = (0..cut.count())
                .map(|i| cut.chunk(i))
                .take_while(|range| !job.is_stopped(range.start))
                .map(|range| {
                    end = range.end;
                    scope.spawn(move || run_pieces(job, range, |piece| job.run(piece)))
                })
                .collect();
            let partials = threads.into_iter().map(|thread| {
                // `run` never panics: the typed layer catches panics in user code.
                thread.join().expect("Job::run does not unwind")
            });
            // The indices not spawned still need a partial: one `run` of the stopped tail
            // returns at once. For an empty job this runs `0..0`, the identity.
            let tail = (end < len || len == 0).then(|| job.run(end..len));
            partials
                .chain(tail)
                .reduce(|left, right| job.combine(left, right))
                .expect("at least one piece")
        })
    }

    fn workers(&self) -> usize {
        available_parallelism()
    }
}

fn main() {
    let ex = SpawnAllEx::with_basesize(Basesize::fixed(250).expect("nonzero"));
    let words: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
    let joined = ex.fold(&words, String::new, |s, w| s + w, |a, b| a + &b);
    assert_eq!(joined, words.concat());
    let total = ex.sum::<usize>(0..1_000_000);
    println!(
        "SpawnAllEx: {} chunks of 250 joined in order; sum of 0..10^6 = {total}",
        1000 / 250
    );
}

#[cfg(test)]
mod tests {
    use super::SpawnAllEx;
    foldex_testkit::conformance_tests!(SpawnAllEx::with_basesize);
}
