//! One fold on the pool: a shared cursor over numbered chunks, and the lanes that claim them.
//!
//! A fold gets `ntasks` *lanes*. A lane is a queued task that claims the next chunk from the
//! cursor and runs it, again and again, so that chunks leave the cursor in index order and at
//! most `ntasks` run at once on the pool's workers and the caller. A lane taken by a helper (a
//! loader's consumer) claims one chunk, queues the lane again and only then runs the chunk, so
//! that the helper is lent for one chunk and never holds the lane while its chunk runs (a chunk
//! that waits for a later one must not keep that chunk's lane from the workers); each helper
//! adds at most one chunk in flight.
//!
//! Who ends the fold: a lane on a worker runs chunks until the cursor is empty or the job says
//! it is stopped, then *closes* the fold (no more chunks, queued lanes taken back). A helper
//! runs exactly one chunk and never reads the job's stop hint (a loader reports "stopped" on
//! its consumer's thread alone, which is no reason to end the fold for everyone); it closes
//! the fold only when the cursor is empty, and otherwise queues its lane again. So whenever a
//! fold has a lane for workers, the fold ends by itself, whether or not anyone helps.

use crate::pool::{next_id, Shared, Takers};
use crate::waiting::WAITING;
use foldex_core::exec::sync::{thread, AtomicUsize, Mutex};
use foldex_core::exec::{Chunking, OrderedCombiner, Scope, TaskRef};
use foldex_core::{Job, Partial};
use std::ops::Range;
use std::sync::atomic::Ordering;

pub(crate) struct FoldRun<'j, 'a> {
    job: &'j dyn Job<'a>,
    shared: &'j Shared,
    /// Tags this fold's queued tasks in the pool's queue.
    id: u64,
    /// The chunks: of `chunk_len`, or fewer where the job's bounds on piece lengths say so.
    chunks: Chunking,
    nchunks: usize,
    /// The number of the next chunk to hand out; `nchunks` or more once none is left.
    cursor: AtomicUsize,
    combiner: Mutex<OrderedCombiner<'a>>,
    /// Who may take the lanes queued for the pool's workers: `Anyone` in foreground mode (a
    /// helping thread may run them too), `Workers` in background mode.
    worker_lanes: Takers,
}

impl<'j, 'a> FoldRun<'j, 'a> {
    /// A fold of `job` in chunks of `chunk_len` indices, within the job's bounds on piece
    /// lengths ([`Job::piece_len`]; an empty job is one empty chunk, so that even its identity
    /// is made where chunks run).
    pub(crate) fn new(
        job: &'j dyn Job<'a>,
        shared: &'j Shared,
        chunk_len: usize,
        worker_lanes: Takers,
    ) -> Self {
        let chunks = job.piece_len().chunking(job.len(), chunk_len);
        Self {
            job,
            shared,
            id: next_id(),
            chunks,
            nchunks: chunks.count().max(1),
            cursor: AtomicUsize::new(0),
            combiner: Mutex::new(OrderedCombiner::new()),
            worker_lanes,
        }
    }

    /// Makes room in the combiner for the chunks of `lanes` lanes in flight at once.
    pub(crate) fn expect_lanes(&self, lanes: usize) {
        self.combiner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .reserve(lanes);
    }

    pub(crate) fn nchunks(&self) -> usize {
        self.nchunks
    }

    fn claim(&self) -> Option<(usize, Range<usize>)> {
        let next = |c: usize| (c < self.nchunks).then(|| c + 1);
        let index = self
            .cursor
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, next)
            .ok()?;
        Some((index, self.chunks.chunk(index)))
    }

    fn exhausted(&self) -> bool {
        self.cursor.load(Ordering::Relaxed) >= self.nchunks
    }

    /// Hands out no more chunks, and takes this fold's queued lanes back from the pool (they
    /// would only find the cursor empty).
    fn close(&self) {
        self.cursor.fetch_max(self.nchunks, Ordering::Relaxed);
        drop(self.shared.take_back(self.id));
    }

    /// Claims one chunk and runs it; `false` once the fold needs no more chunks.
    fn run_one(&self) -> bool {
        let Some((index, range)) = self.claim() else {
            self.close();
            return false;
        };
        // A chunk that is claimed is always run and pushed, even when the job has stopped
        // there (the run returns at once), so that the claimed chunks stay contiguous.
        let stopped = self.job.is_stopped(range.start);
        self.run_chunk(index, range);
        if stopped {
            self.close();
        }
        !stopped
    }

    fn run_chunk(&self, index: usize, range: Range<usize>) {
        let _close = CloseOnUnwind(self);
        let partial: Partial<'a> = WAITING.run(self.job, range);
        self.combiner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(self.job, index, partial);
    }

    /// A helper's turn: runs the one chunk it claimed, without reading the job's stop hint (the
    /// lanes on workers, which do, close the fold once it stops); once the cursor is empty,
    /// closes the fold, so that a lane left queued for a helper that no longer comes does not
    /// keep the fold waiting.
    fn help_with(&self, claimed: Option<(usize, Range<usize>)>) {
        if let Some((index, range)) = claimed {
            self.run_chunk(index, range);
        }
        if self.exhausted() {
            self.close();
        }
    }

    /// `true` when a lane of this fold waits in the queue while the workers are held up
    /// elsewhere and have taken no task since the last call (`taken`: see
    /// [`Shared::is_stalled`]).
    pub(crate) fn is_stalled(&self, taken: &mut u64) -> bool {
        self.shared.is_stalled(self.id, taken)
    }

    /// Takes back the fold's queued lanes for the workers and runs the chunks they would have
    /// run on the calling thread instead, so that the fold never has more than its lanes in
    /// flight. A lane left to a helper stays queued: the caller then runs beside the helper,
    /// whose items may need to run at the same time as the caller's (a loader's turns).
    pub(crate) fn take_over(&self) {
        drop(self.shared.take_back_workers_tasks(self.id));
        self.run_inline();
    }

    /// Runs chunks on the calling thread until none is left.
    pub(crate) fn run_inline(&self) {
        while self.run_one() {}
    }

    /// The partial that covers the whole job; call once every lane has finished.
    pub(crate) fn finish(self) -> Partial<'a> {
        let combiner = self
            .combiner
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        combiner.finish(self.job)
    }

    /// Queues `count` lanes of this fold for the pool's workers (and for helpers, in
    /// foreground mode).
    pub(crate) fn queue_lanes<'scope>(
        &'scope self,
        scope: &'scope Scope<'scope, '_>,
        count: usize,
    ) {
        self.queue(scope, count, self.worker_lanes);
    }

    /// Queues one lane that only a helping thread may take: the share of a caller that stands
    /// in for a helper. Only alongside a lane for the workers or a caller that runs chunks,
    /// either of which ends the fold if nobody helps.
    pub(crate) fn queue_helper_lane<'scope>(&'scope self, scope: &'scope Scope<'scope, '_>) {
        self.queue(scope, 1, Takers::Helpers);
    }

    fn queue<'scope>(&'scope self, scope: &'scope Scope<'scope, '_>, count: usize, takers: Takers) {
        self.shared.push_if(
            self.id,
            takers,
            || !self.exhausted(),
            count,
            || self.lane(scope, takers),
        );
    }

    /// A task that holds one lane: on a pool worker it runs chunks until none is left; on any
    /// other thread (a consumer lending itself through `Executor::help`) it claims one chunk,
    /// queues its successor for the same takers, and then runs the chunk, so that the helper is
    /// lent for one chunk only and never holds a lane while it runs: a chunk that waits for
    /// another chunk of the fold (two items that meet) leaves the lane that other chunk needs
    /// in the queue.
    fn lane<'scope>(&'scope self, scope: &'scope Scope<'scope, '_>, takers: Takers) -> TaskRef {
        scope.spawn(move || {
            if self.shared.is_current_worker() {
                // Looping here rather than queueing a successor per chunk keeps the queue lock
                // (and wake-ups) out of the per-chunk path.
                self.run_inline();
            } else {
                let claimed = self.claim();
                self.queue(scope, 1, takers);
                self.help_with(claimed);
            }
        })
    }
}

/// A `Job` that panics (only a custom one can: the typed layer catches panics) stops the
/// fold: no chunk is handed out after it, so the caller sees the panic promptly.
struct CloseOnUnwind<'r, 'j, 'a>(&'r FoldRun<'j, 'a>);

impl Drop for CloseOnUnwind<'_, '_, '_> {
    fn drop(&mut self) {
        if thread::panicking() {
            self.0.close();
        }
    }
}
