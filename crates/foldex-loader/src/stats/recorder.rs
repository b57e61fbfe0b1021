//! How an epoch's [`Stats`] are counted, always on: where the time went.
//!
//! Counting must cost next to nothing next to a batch that costs nothing, so:
//!
//! - Producers never share a hot counter: each thread that computes batches owns one
//!   cache-padded set of counters. A producer reads the clock twice per *run* of batches (a run
//!   of the executor's job, which takes batches until none is left), not per batch; per batch
//!   it only bumps its own counter. Time spent asleep for room or a buffer is noted in a
//!   thread-local by whoever sleeps, and subtracted from the run's busy time.
//! - The consumer's figures live in its iterator, without atomics; it reads the clock only
//!   when it has to wait, and looks at the buffer's occupancy on a sample of deliveries.

use super::report::{BufferOrigin, SkippedItem, Stats, WorkerStats};
use crate::blocked;
use crate::byte_gate::ByteGate;
use crossbeam_utils::CachePadded;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

/// One producing thread's counters.
#[derive(Default)]
struct ProducerCounters {
    busy_nanos: AtomicU64,
    blocked_nanos: AtomicU64,
    items: AtomicU64,
    /// Batches handed to the channel, updated per batch (the consumer samples the sum).
    pushed: AtomicU64,
    /// The thread (a handle: naming it would allocate on the hot path).
    thread: OnceLock<Thread>,
}

static NEXT_RECORDER: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The recorder this thread last claimed counters in, and those counters.
    static CLAIMED: Cell<(u64, usize)> = const { Cell::new((0, 0)) };
}

/// The most producing threads a recorder counts apart (each one's counters take two cache
/// lines): an executor may report any number of workers, and threads beyond these share the
/// last counters.
const MAX_RECORDED_THREADS: usize = 1024;

/// How often the consumer samples the buffer's occupancy (after the first `SAMPLE` deliveries).
const SAMPLE: u64 = 16;

/// A run of batches on one thread: timed as a whole, counted per batch.
pub(crate) struct Run<'r> {
    producer: &'r ProducerCounters,
    clock: Option<(Instant, u64)>,
    items: u64,
}

impl Run<'_> {
    /// Counts `batches` batches of `items` observations in all, handed to the channel together.
    pub fn pushed(&mut self, batches: usize, items: usize) {
        self.items += items as u64;
        self.producer
            .pushed
            .fetch_add(batches as u64, Ordering::Relaxed);
    }
}

impl Drop for Run<'_> {
    fn drop(&mut self) {
        self.producer.items.fetch_add(self.items, Ordering::Relaxed);
        if let Some((started, blocked_before)) = self.clock {
            let blocked = blocked::blocked_so_far() - blocked_before;
            let total = started.elapsed().as_nanos() as u64;
            self.producer
                .busy_nanos
                .fetch_add(total.saturating_sub(blocked), Ordering::Relaxed);
            self.producer
                .blocked_nanos
                .fetch_add(blocked, Ordering::Relaxed);
        }
    }
}

/// The producers' side of an epoch's statistics.
pub(crate) struct Recorder {
    id: u64,
    started: Instant,
    producers: Box<[CachePadded<ProducerCounters>]>,
    claimed: AtomicUsize,
    retries: AtomicU64,
    skipped: Mutex<Vec<SkippedItem>>,
}

impl Recorder {
    /// A recorder with room for `threads` producing threads, [`MAX_RECORDED_THREADS`] at
    /// most; more share the last counters.
    pub fn new(threads: usize) -> Self {
        Self {
            id: NEXT_RECORDER.fetch_add(1, Ordering::Relaxed),
            started: Instant::now(),
            producers: (0..threads.clamp(1, MAX_RECORDED_THREADS))
                .map(|_| CachePadded::new(ProducerCounters::default()))
                .collect(),
            claimed: AtomicUsize::new(0),
            retries: AtomicU64::new(0),
            skipped: Mutex::new(Vec::new()),
        }
    }

    fn producer(&self) -> &ProducerCounters {
        &self.producers[self.worker()]
    }

    /// This thread's worker number in the epoch: the index of its counters, claimed in the
    /// order threads first produce (the last one shared beyond the recorder's room).
    pub fn worker(&self) -> usize {
        let (id, index) = CLAIMED.with(Cell::get);
        if id == self.id {
            return index;
        }
        // A thread that serves two epochs in turn finds its counters again, once per switch.
        let me = thread::current().id();
        let claimed = self
            .claimed
            .load(Ordering::Acquire)
            .min(self.producers.len());
        let index = (0..claimed)
            .find(|&i| matches!(self.producers[i].thread.get(), Some(t) if t.id() == me))
            .unwrap_or_else(|| {
                let index = self
                    .claimed
                    .fetch_add(1, Ordering::AcqRel)
                    .min(self.producers.len() - 1);
                self.producers[index].thread.get_or_init(thread::current);
                index
            });
        CLAIMED.with(|c| c.set((self.id, index)));
        index
    }

    /// How many worker numbers there are room for.
    pub fn room(&self) -> usize {
        self.producers.len()
    }

    /// Starts a run of batches on this thread; `timed` reads the clock at its start and end.
    pub fn run(&self, timed: bool) -> Run<'_> {
        Run {
            producer: self.producer(),
            clock: timed.then(|| (Instant::now(), blocked::blocked_so_far())),
            items: 0,
        }
    }

    /// Batches handed to the channel so far.
    fn pushed(&self) -> u64 {
        let claimed = self
            .claimed
            .load(Ordering::Acquire)
            .min(self.producers.len());
        self.producers[..claimed]
            .iter()
            .map(|producer| producer.pushed.load(Ordering::Relaxed))
            .sum()
    }

    /// Counts one retried load.
    pub fn retried(&self) {
        self.retries.fetch_add(1, Ordering::Relaxed);
    }

    /// Records an observation the error policy left out.
    pub fn skipped(&self, index: usize, error: String) {
        self.skipped
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(SkippedItem { index, error });
    }

    /// The producers' figures, completed with the consumer's.
    pub fn snapshot(&self, consumer: &ConsumerStats, buffer: usize, parcel: usize) -> Stats {
        let claimed = self
            .claimed
            .load(Ordering::Relaxed)
            .min(self.producers.len());
        let workers = self.producers[..claimed]
            .iter()
            .map(|producer| WorkerStats {
                thread: producer
                    .thread
                    .get()
                    .and_then(Thread::name)
                    .unwrap_or("?")
                    .to_owned(),
                busy: Duration::from_nanos(producer.busy_nanos.load(Ordering::Relaxed)),
                items: producer.items.load(Ordering::Relaxed),
            })
            .collect();
        let mut skipped = self
            .skipped
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        skipped.sort_by_key(|s| s.index);
        let samples = consumer.samples.max(1) as f64;
        let blocked = self.producers[..claimed]
            .iter()
            .map(|producer| producer.blocked_nanos.load(Ordering::Relaxed))
            .sum();
        Stats {
            items: consumer.items,
            batches: consumer.batches,
            wall: self.started.elapsed(),
            consumer_waited: consumer.waited,
            producers_blocked: Duration::from_nanos(blocked),
            buffer,
            buffer_origin: BufferOrigin::Default,
            parcel,
            mean_occupancy: consumer.occupancy_sum as f64 / samples,
            full: consumer.full as f64 / samples,
            workers,
            skipped,
            retries: self.retries.load(Ordering::Relaxed),
            max_buffer_bytes: None,
            peak_bytes: 0,
            largest_batch_bytes: 0,
            capped_by_bytes: Duration::ZERO,
            stalled: Vec::new(),
            abandoned: 0,
        }
    }
}

/// An epoch's statistics as its iterator keeps them: the producers' recorder, and what the
/// consumer counts itself.
pub(crate) struct EpochTally {
    recorder: Arc<Recorder>,
    consumer: ConsumerStats,
    /// The batches the epoch's buffer holds.
    capacity: usize,
    /// Where the buffer's size comes from.
    origin: BufferOrigin,
    /// Batches per place of the buffer.
    parcel: usize,
    /// Whether deliveries are counted (see `Loader::diagnostics`).
    counting: bool,
    /// The epoch's byte cap, whose figures the stats report.
    bytes: Option<Arc<ByteGate>>,
}

impl EpochTally {
    pub fn new(
        recorder: Arc<Recorder>,
        (capacity, origin): (usize, BufferOrigin),
        parcel: usize,
        counting: bool,
    ) -> Self {
        Self {
            recorder,
            consumer: ConsumerStats::default(),
            capacity,
            origin,
            parcel,
            counting,
            bytes: None,
        }
    }

    /// Reports the figures of the epoch's byte cap too.
    pub fn with_bytes(mut self, gate: Option<Arc<ByteGate>>) -> Self {
        self.bytes = gate;
        self
    }

    /// Counts one delivered batch of `items` observations.
    #[inline]
    pub fn delivered(&mut self, items: usize) {
        if self.counting {
            self.consumer
                .delivered(items, &self.recorder, self.capacity);
        }
    }

    /// Adds a wait of the consumer's for a batch.
    pub fn waited(&mut self, waited: Duration) {
        self.consumer.waited += waited;
    }

    /// The epoch's figures so far.
    pub fn snapshot(&self) -> Stats {
        let mut stats = Stats {
            buffer_origin: self.origin,
            ..self
                .recorder
                .snapshot(&self.consumer, self.capacity, self.parcel)
        };
        if let Some(gate) = &self.bytes {
            let figures = gate.figures();
            stats.max_buffer_bytes = Some(figures.cap);
            stats.peak_bytes = figures.peak;
            stats.largest_batch_bytes = figures.largest;
            stats.capped_by_bytes = figures.capped;
        }
        stats
    }
}

/// The consumer's side of an epoch's statistics, kept by its iterator.
#[derive(Debug, Default, Clone)]
pub(crate) struct ConsumerStats {
    pub items: u64,
    pub batches: u64,
    pub waited: Duration,
    /// Deliveries at which the occupancy was sampled.
    pub samples: u64,
    /// Sum over the samples of the batches waiting (the delivered one included).
    pub occupancy_sum: u64,
    /// Samples that found the buffer full.
    pub full: u64,
}

impl ConsumerStats {
    /// Counts one delivered batch of `items` observations, from a buffer of `capacity`.
    #[inline]
    pub fn delivered(&mut self, items: usize, recorder: &Recorder, capacity: usize) {
        if self.batches < SAMPLE || self.batches.is_multiple_of(SAMPLE) {
            self.sample(recorder, capacity);
        }
        self.items += items as u64;
        self.batches += 1;
    }

    /// Samples the buffer's occupancy as a batch is delivered: out of the inlined path that
    /// every delivered batch takes.
    #[inline(never)]
    fn sample(&mut self, recorder: &Recorder, capacity: usize) {
        // The batch being delivered was in the buffer, whether or not its producer has
        // counted it yet (producers count a batch just after handing it over).
        let waiting = recorder.pushed().saturating_sub(self.batches).max(1);
        self.samples += 1;
        self.occupancy_sum += waiting;
        self.full += u64::from(waiting >= capacity as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_get_their_own_counters_and_extra_threads_share_the_last() {
        let recorder = Recorder::new(2);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| recorder.run(true).pushed(1, 5));
            }
        });
        recorder.run(false).pushed(1, 1);
        let snap = recorder.snapshot(&ConsumerStats::default(), 1, 1);
        assert_eq!(snap.workers.len(), 2);
        assert_eq!(snap.workers.iter().map(|w| w.items).sum::<u64>(), 21);
    }

    #[test]
    fn a_new_recorder_on_the_same_thread_claims_new_counters() {
        let a = Recorder::new(2);
        a.run(true).pushed(1, 1);
        let b = Recorder::new(2);
        b.run(true).pushed(1, 1);
        a.run(true).pushed(1, 1);
        assert_eq!(
            a.snapshot(&ConsumerStats::default(), 1, 1).workers[0].items,
            2
        );
        assert_eq!(
            b.snapshot(&ConsumerStats::default(), 1, 1).workers[0].items,
            1
        );
        assert_eq!(a.pushed(), 2);
        // A parcel counts its batches.
        a.run(false).pushed(3, 7);
        assert_eq!(a.pushed(), 5);
    }

    #[test]
    fn sleep_is_not_busy_time() {
        let recorder = Recorder::new(1);
        {
            let mut run = recorder.run(true);
            let since = Instant::now();
            std::thread::sleep(Duration::from_millis(30));
            blocked::note_blocked(since);
            run.pushed(1, 1);
        }
        let snap = recorder.snapshot(&ConsumerStats::default(), 1, 1);
        assert!(
            snap.producers_blocked >= Duration::from_millis(30),
            "{snap:?}"
        );
        assert!(snap.workers[0].busy < Duration::from_millis(10), "{snap:?}");
    }
}
