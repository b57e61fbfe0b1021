//! The figures of an epoch: [`Stats`], its workers and skipped observations, and a verdict.

use crate::counted::counted;
use crate::stall::StalledLoad;
use std::fmt;
use std::time::Duration;

/// Figures of one epoch so far, from [`Iter::stats`](crate::Iter::stats).
///
/// `Display` prints one line with the rate and a verdict:
///
/// ```
/// use foldex_dataset::from_fn;
/// use foldex_loader::Loader;
/// use foldex_threaded::ThreadedEx;
/// let loader = Loader::new(from_fn(1_000, |i| i), ThreadedEx::new().basesize(1)).batch_size(10);
/// let mut iter = loader.iter();
/// iter.by_ref().for_each(drop);
/// let stats = iter.stats();
/// assert_eq!((stats.items, stats.batches), (1_000, 100));
/// println!("{stats}"); // e.g. "1000 items in 2.1ms (476190 items/s); input-bound: ..."
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Stats {
    /// Observations delivered to the consumer.
    pub items: u64,
    /// Batches delivered to the consumer.
    pub batches: u64,
    /// Time since the epoch started.
    pub wall: Duration,
    /// Time the consumer spent inside `next()` waiting for a batch (helping included).
    pub consumer_waited: Duration,
    /// Time producers slept waiting for room in the buffer (summed over producers), and, with
    /// buffer reuse, for a free buffer, and, with a byte cap, for the cap.
    pub producers_blocked: Duration,
    /// The buffer's capacity (finished batches that may wait for the consumer).
    pub buffer: usize,
    /// Where that capacity comes from: the loader's setting, its default, or the default grown
    /// after bursty epochs.
    pub buffer_origin: BufferOrigin,
    /// Batches that travelled through the buffer together in this epoch: 1, or up to 8 when
    /// the previous epoch found batches cheap (see [`Loader::buffer`](crate::Loader::buffer)).
    pub parcel: usize,
    /// Mean number of finished batches waiting (the one delivered included), over a sample of
    /// deliveries (the first 16, then every 16th).
    pub mean_occupancy: f64,
    /// Share (`0.0..=1.0`) of the sampled deliveries that found the buffer full.
    pub full: f64,
    /// Per producing thread: its name and how long it spent computing batches.
    pub workers: Vec<WorkerStats>,
    /// Observations left out by [`ErrorPolicy::skip`](crate::ErrorPolicy::skip), with why.
    pub skipped: Vec<SkippedItem>,
    /// Failed loads that were tried again under [`ErrorPolicy::retry`](crate::ErrorPolicy::retry).
    pub retries: u64,
    /// The byte cap, [`Loader::max_buffer_bytes`](crate::Loader::max_buffer_bytes), when set.
    pub max_buffer_bytes: Option<usize>,
    /// The most bytes of finished batches that waited for the consumer at once (measured with
    /// [`ByteSize`](crate::ByteSize); 0 without a byte cap, which is when batches are measured).
    pub peak_bytes: usize,
    /// The largest batch, in bytes (0 without a byte cap).
    pub largest_batch_bytes: usize,
    /// Time producers waited for the byte cap (summed over producers; also counted in
    /// [`producers_blocked`](Stats::producers_blocked)).
    pub capped_by_bytes: Duration,
    /// The loads still running when `next()` timed out
    /// ([`Loader::timeout`](crate::Loader::timeout)), as the [`Stalled`](crate::Stalled) error
    /// names them; empty unless it did.
    pub stalled: Vec<StalledLoad>,
    /// This epoch's loads left running when it ended without waiting for them (after a
    /// timeout, or a drop that waited the timeout): each finishes on its own thread and its
    /// result is dropped.
    pub abandoned: u64,
}

/// One producing thread's share of an epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerStats {
    /// The thread's name (`"?"` for an unnamed thread).
    pub thread: String,
    /// Time spent computing batches (loading, collating, handing them over), not counting
    /// time asleep for room.
    pub busy: Duration,
    /// Observations loaded.
    pub items: u64,
}

/// An observation the error policy left out: its index and the error, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedItem {
    /// The dataset index.
    pub index: usize,
    /// The error's `Display`.
    pub error: String,
}

/// Where an epoch's buffer size comes from ([`Stats::buffer_origin`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BufferOrigin {
    /// Set with [`Loader::buffer`](crate::Loader::buffer); never changed.
    Set,
    /// The default, twice the executor's workers.
    Default,
    /// The default, `from`, grown because an epoch before this one was bursty: its consumer
    /// waited for batches while at other times the buffer was full (the rule is in
    /// `buffer_tune.rs`; [`Loader::buffer`](crate::Loader::buffer) has it too).
    Grown {
        /// The default it grew from.
        from: usize,
    },
}

/// What limits an epoch, as [`Stats::verdict`] judges it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// The consumer waited for batches a good part of the time: loading is the bottleneck.
    InputBound,
    /// The buffer was mostly full: the consumer is the bottleneck, loading keeps up.
    ConsumerBound,
    /// Neither: the consumer rarely waits and the buffer is rarely full.
    Balanced,
    /// The consumer waited for batches a good part of the time while producers waited for
    /// the byte cap ([`Loader::max_buffer_bytes`](crate::Loader::max_buffer_bytes)): the cap,
    /// not the loading, held batches back.
    CappedByBytes,
    /// `next()` waited its whole timeout for a batch ([`Stats::stalled`]): whatever else the
    /// figures say, loads hang.
    Stalled,
}

/// The share of wall time the consumer must wait before an epoch counts as input-bound.
pub(crate) const INPUT_BOUND: f64 = 0.10;
/// How full (a share of its capacity) the buffer must be on average for an epoch to count as
/// consumer-bound.
const CONSUMER_BOUND: f64 = 0.50;

impl Stats {
    /// The figures of an epoch that delivered nothing yet, with a buffer of `buffer`.
    pub(crate) fn empty(buffer: usize) -> Self {
        Stats {
            items: 0,
            batches: 0,
            wall: Duration::ZERO,
            consumer_waited: Duration::ZERO,
            producers_blocked: Duration::ZERO,
            buffer,
            buffer_origin: BufferOrigin::Default,
            parcel: 1,
            mean_occupancy: 0.0,
            full: 0.0,
            workers: Vec::new(),
            skipped: Vec::new(),
            retries: 0,
            max_buffer_bytes: None,
            peak_bytes: 0,
            largest_batch_bytes: 0,
            capped_by_bytes: Duration::ZERO,
            stalled: Vec::new(),
            abandoned: 0,
        }
    }

    /// Adds the figures of a later part of the same epoch (a stream loader's next window):
    /// counts and times add up, shares are weighted by batches, workers are merged by thread.
    pub(crate) fn absorb(&mut self, later: Stats) {
        let (before, after) = (self.batches as f64, later.batches as f64);
        let weigh = |a: f64, b: f64| {
            if before + after == 0.0 {
                0.0
            } else {
                (a * before + b * after) / (before + after)
            }
        };
        self.mean_occupancy = weigh(self.mean_occupancy, later.mean_occupancy);
        self.full = weigh(self.full, later.full);
        self.items += later.items;
        self.batches += later.batches;
        self.wall = self.wall.max(later.wall);
        self.consumer_waited += later.consumer_waited;
        self.producers_blocked += later.producers_blocked;
        self.buffer = later.buffer;
        self.buffer_origin = later.buffer_origin;
        self.parcel = self.parcel.max(later.parcel);
        for worker in later.workers {
            match self.workers.iter_mut().find(|w| w.thread == worker.thread) {
                Some(w) => {
                    w.busy += worker.busy;
                    w.items += worker.items;
                }
                None => self.workers.push(worker),
            }
        }
        self.skipped.extend(later.skipped);
        self.retries += later.retries;
        self.max_buffer_bytes = later.max_buffer_bytes;
        self.peak_bytes = self.peak_bytes.max(later.peak_bytes);
        self.largest_batch_bytes = self.largest_batch_bytes.max(later.largest_batch_bytes);
        self.capped_by_bytes += later.capped_by_bytes;
        self.stalled.extend(later.stalled);
        self.abandoned += later.abandoned;
    }

    /// Observations delivered per second of wall time.
    pub fn items_per_sec(&self) -> f64 {
        self.items as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    /// The share of wall time (`0.0..=1.0`) the consumer spent waiting in `next()`.
    pub fn waited(&self) -> f64 {
        (self.consumer_waited.as_secs_f64() / self.wall.as_secs_f64().max(1e-9)).min(1.0)
    }

    /// Stalled when a timeout fired while loads were running; else capped by bytes when the
    /// consumer waited at least 10% of the time and producers waited for the byte cap at least
    /// as long as 10% of the time (summed over producers); input-bound when the consumer waited
    /// that long otherwise; else consumer-bound when the buffer was at least half full on
    /// average (producers are woken in groups, so a buffer that keeps up hovers between half
    /// full and full), balanced otherwise.
    pub fn verdict(&self) -> Verdict {
        let capped = self.capped_by_bytes.as_secs_f64() / self.wall.as_secs_f64().max(1e-9);
        if !self.stalled.is_empty() {
            Verdict::Stalled
        } else if self.waited() >= INPUT_BOUND && capped >= INPUT_BOUND {
            Verdict::CappedByBytes
        } else if self.waited() >= INPUT_BOUND {
            Verdict::InputBound
        } else if self.mean_occupancy >= CONSUMER_BOUND * self.buffer as f64 {
            Verdict::ConsumerBound
        } else {
            Verdict::Balanced
        }
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} in {:.1?} ({:.0} items/s); ",
            counted(self.items, "item", "items"),
            self.wall,
            self.items_per_sec()
        )?;
        let waited = 100.0 * self.waited();
        let full = 100.0 * self.full;
        match self.verdict() {
            Verdict::InputBound => write!(
                f,
                "input-bound: the consumer waited {waited:.0}% of the time; add workers or make \
                 items cheaper"
            )?,
            Verdict::ConsumerBound => write!(
                f,
                "consumer-bound: the buffer was full {full:.0}% of the time ({:.1} of {} \
                 waiting on average); loading keeps up",
                self.mean_occupancy,
                counted(self.buffer as u64, "batch", "batches")
            )?,
            Verdict::Balanced => write!(
                f,
                "balanced: the consumer waited {waited:.0}% of the time, the buffer was full \
                 {full:.0}% of the time"
            )?,
            Verdict::CappedByBytes => write!(
                f,
                "capped by bytes: the consumer waited {waited:.0}% of the time while producers \
                 waited {:.1?} for the byte cap ({} bytes held at most, cap {}, largest batch \
                 {}); raise max_buffer_bytes or make batches smaller",
                self.capped_by_bytes,
                self.peak_bytes,
                self.max_buffer_bytes.unwrap_or(0),
                self.largest_batch_bytes
            )?,
            Verdict::Stalled => {
                let longest = &self.stalled[0];
                write!(
                    f,
                    "stalled: {} still loading when no batch came within the timeout, the \
                     longest {} for {:.1?}; fix or time out the load itself",
                    counted(self.stalled.len() as u64, "load", "loads"),
                    longest.at,
                    longest.loading_for
                )?;
            }
        }
        if let BufferOrigin::Grown { from } = self.buffer_origin {
            write!(
                f,
                "; buffer grown to {} from {from}: an epoch before this one was bursty \
                 (the consumer waited while at other times the buffer was full)",
                counted(self.buffer as u64, "batch", "batches")
            )?;
        }
        if let (Some(cap), false) = (
            self.max_buffer_bytes,
            self.verdict() == Verdict::CappedByBytes,
        ) {
            write!(f, "; at most {} bytes waited (cap {cap})", self.peak_bytes)?;
        }
        if self.parcel > 1 {
            write!(
                f,
                "; batches travel in parcels of {}: they cost under a microsecond in the epoch \
                 before",
                self.parcel
            )?;
        }
        if self.abandoned > 0 {
            write!(
                f,
                "; {} abandoned (left to finish on their threads, results dropped)",
                counted(self.abandoned, "load", "loads")
            )?;
        }
        if !self.skipped.is_empty() {
            let skipped = self.skipped.len() as u64;
            write!(
                f,
                "; {} skipped",
                counted(skipped, "observation", "observations")
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
impl Stats {
    /// An epoch of `batches` batches of 10 items, a buffer of 4, with these figures.
    pub(crate) fn of_epoch(batches: u64, wall: Duration, waited: Duration, full: f64) -> Self {
        Stats {
            items: batches.saturating_mul(10),
            batches,
            wall,
            consumer_waited: waited,
            producers_blocked: Duration::ZERO,
            buffer: 4,
            buffer_origin: BufferOrigin::Default,
            parcel: 1,
            mean_occupancy: 1.0,
            full,
            workers: Vec::new(),
            skipped: Vec::new(),
            retries: 0,
            max_buffer_bytes: None,
            peak_bytes: 0,
            largest_batch_bytes: 0,
            capped_by_bytes: Duration::ZERO,
            stalled: Vec::new(),
            abandoned: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(wall_ms: u64, waited_ms: u64, full: f64) -> Stats {
        Stats::of_epoch(
            10,
            Duration::from_millis(wall_ms),
            Duration::from_millis(waited_ms),
            full,
        )
    }

    #[test]
    fn verdicts_and_their_lines() {
        let input = stats(1000, 380, 0.0);
        assert_eq!(input.verdict(), Verdict::InputBound);
        assert!(input.to_string().ends_with(
            "input-bound: the consumer waited 38% of the time; add workers or make items cheaper"
        ));
        let mut consumer = stats(1000, 10, 0.9);
        consumer.mean_occupancy = 3.5;
        assert_eq!(consumer.verdict(), Verdict::ConsumerBound);
        assert!(consumer
            .to_string()
            .contains("consumer-bound: the buffer was full 90% of the time"));
        assert_eq!(stats(1000, 10, 0.2).verdict(), Verdict::Balanced);
        assert!(stats(1000, 10, 0.2)
            .to_string()
            .contains("balanced: the consumer waited 1%"));
        assert!((input.items_per_sec() - 100.0).abs() < 1e-6);
        let mut capped = input.clone();
        capped.max_buffer_bytes = Some(4096);
        capped.peak_bytes = 5000;
        capped.largest_batch_bytes = 2000;
        capped.capped_by_bytes = Duration::from_millis(250);
        assert_eq!(capped.verdict(), Verdict::CappedByBytes);
        assert!(capped.to_string().ends_with(
            "capped by bytes: the consumer waited 38% of the time while producers waited \
             250.0ms for the byte cap (5000 bytes held at most, cap 4096, largest batch 2000); \
             raise max_buffer_bytes or make batches smaller"
        ));
        capped.capped_by_bytes = Duration::from_millis(50);
        assert_eq!(
            capped.verdict(),
            Verdict::InputBound,
            "the cap was hardly reached"
        );
        assert!(
            capped
                .to_string()
                .ends_with("; at most 5000 bytes waited (cap 4096)"),
            "{capped}"
        );
    }

    #[test]
    fn a_stall_outranks_every_other_verdict_and_names_the_longest_load() {
        use crate::stall::LoadAt;
        let load = |at, ms| StalledLoad {
            at,
            epoch: 0,
            loading_for: Duration::from_millis(ms),
        };
        // Input-bound figures, but a timeout fired.
        let mut stalled = stats(1000, 900, 0.0);
        stalled.stalled = vec![load(LoadAt::Index(42), 250), load(LoadAt::Index(7), 30)];
        stalled.abandoned = 2;
        assert_eq!(stalled.verdict(), Verdict::Stalled);
        let line = stalled.to_string();
        assert!(
            line.contains(
                "stalled: 2 loads still loading when no batch came within the timeout, the \
                 longest index 42 for 250.0ms"
            ) && line.ends_with(
                "; 2 loads abandoned (left to finish on their threads, results dropped)"
            ),
            "{line}"
        );
        let mut later = stats(1000, 10, 0.2);
        later.abandoned = 1;
        assert_eq!(
            later.verdict(),
            Verdict::Balanced,
            "abandoned alone is no stall"
        );
        stalled.absorb(later);
        assert_eq!((stalled.stalled.len(), stalled.abandoned), (2, 3));
    }

    #[test]
    fn counts_of_one_take_the_singular() {
        let skipped = |index| SkippedItem {
            index,
            error: "corrupt".to_owned(),
        };
        let mut one = Stats::of_epoch(1, Duration::from_secs(1), Duration::ZERO, 0.9);
        one.items = 1;
        one.buffer = 1;
        one.mean_occupancy = 0.9;
        one.skipped = vec![skipped(3)];
        let line = one.to_string();
        assert!(line.starts_with("1 item in "), "{line}");
        assert!(
            line.contains("(0.9 of 1 batch waiting on average)"),
            "{line}"
        );
        assert!(line.ends_with("; 1 observation skipped"), "{line}");
        let mut two = one.clone();
        two.items = 2;
        two.buffer = 2;
        two.mean_occupancy = 1.5;
        two.buffer_origin = BufferOrigin::Grown { from: 1 };
        two.skipped.push(skipped(5));
        let line = two.to_string();
        assert!(line.starts_with("2 items in "), "{line}");
        assert!(
            line.contains("(1.5 of 2 batches waiting on average)"),
            "{line}"
        );
        assert!(line.contains("buffer grown to 2 batches from 1"), "{line}");
        assert!(line.ends_with("; 2 observations skipped"), "{line}");
    }
}
