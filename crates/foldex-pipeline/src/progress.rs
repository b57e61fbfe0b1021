//! `with_progress`: a pipeline whose runs count their items into a
//! [`Progress`](foldex_core::progress::Progress), read from any thread while they run.

use crate::pipeline::Pipeline;
use crate::streamed::Streamed;
use foldex_core::progress::{Counted, Progress, Tracked};
use foldex_core::Source;

impl<S: Source, X, K> Pipeline<S, X, K> {
    /// The same pipeline, each run counting into `progress` the items it reads from the source
    /// so far (Transducers.jl's `withprogress`): [`Progress::done`] of [`Progress::total`]
    /// (the source's length), readable from another thread while the run goes on. The pieces
    /// count without a lock or an atomic operation per item, and `done` reaches `total` when
    /// the run completes, not before (`foldex_core::progress` has the details). Each run
    /// restarts the count. The items counted are those of the pipeline's source as it is now:
    /// call it after the index-preserving adapters that change the length (`take`, `skip`,
    /// `step_by`, `chain`), or the total counts what they leave out.
    ///
    /// ```
    /// use foldex_pipeline::{IntoPipeline, Progress};
    /// use foldex_threaded::ThreadedEx;
    /// let progress = Progress::new();
    /// let evens = (0..100_000u64).pipe().with_progress(&progress).filter(|x| x % 2 == 0);
    /// let sum = std::thread::scope(|s| {
    ///     let run = s.spawn(|| evens.sum::<u64>(&ThreadedEx::new()));
    ///     let seen = progress.done(); // from another thread, while it runs
    ///     assert!(seen <= 100_000);
    ///     run.join().unwrap()
    /// });
    /// assert_eq!(sum, 2_499_950_000);
    /// assert_eq!((progress.done(), progress.total()), (100_000, Some(100_000)));
    /// ```
    pub fn with_progress(self, progress: &Progress) -> Pipeline<Tracked<'_, S>, X, K> {
        Pipeline {
            source: progress.track(self.source),
            transform: self.transform,
            codec: self.codec,
        }
    }
}

impl<I: Iterator, X, K> Pipeline<Streamed<I>, X, K> {
    /// The same pipeline over a stream, its run counting into `progress` the items it pulls
    /// from the stream ([`Progress::track_iter`]); the total is `None`. The count restarts
    /// now, and a pulled item counts once the next one is pulled or the run ends, so `done`
    /// may run ahead of the items folded by the batches pulled and not yet folded.
    ///
    /// ```
    /// use foldex_core::Stream;
    /// use foldex_pipeline::{from_stream, Progress};
    /// use foldex_seq::SequentialEx;
    /// let progress = Progress::new();
    /// let lines = from_stream(Stream::new(["a b", "c"])).with_progress(&progress);
    /// assert_eq!(lines.map(|l| l.len()).sum::<usize>(&SequentialEx), 4);
    /// assert_eq!((progress.done(), progress.total()), (2, None));
    /// ```
    pub fn with_progress(self, progress: &Progress) -> Pipeline<Streamed<Counted<'_, I>>, X, K> {
        Pipeline {
            source: self.source.adapt(|items| progress.track_iter(items)),
            transform: self.transform,
            codec: self.codec,
        }
    }
}
