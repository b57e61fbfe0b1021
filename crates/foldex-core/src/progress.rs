//! Progress of a fold as it runs (Transducers.jl's `withprogress`): items done out of the
//! total, counted by the pieces themselves and readable from any thread.
//!
//! A [`Progress`] is shared by reference. [`Progress::track`] wraps a [`Source`] so that every
//! fold over it counts the items it has folded; [`Progress::track_iter`] wraps the iterator of
//! a [`Stream`](crate::Stream). Another thread reads [`Progress::done`] and
//! [`Progress::total`] while the fold runs.
//!
//! ```
//! use foldex_core::progress::Progress;
//! use foldex_core::ExecutorExt;
//! use foldex_seq::SequentialEx;
//! let data: Vec<u64> = (1..=1000).collect();
//! let progress = Progress::new();
//! let sum = SequentialEx.sum::<u64>(progress.track(&data));
//! assert_eq!(sum, 500_500);
//! assert_eq!((progress.done(), progress.total()), (1000, Some(1000)));
//! ```
//!
//! ## How the pieces count
//!
//! No lock and no atomic operation per item: each visited range of the source counts its
//! items in a local counter, handed to the shared count when the range is done. A range
//! longer than 1/64 of the source (a sequential fold's one range, a task pool's large
//! chunks) also hands its count over as it goes, after 1, 2, 4, ... and then every 1024
//! items, unless its first 16 items cost less than 50 ns each: there a per-item count would
//! cost more than the items (the compiler could no longer vectorise the loop), so the range
//! reports when it is done, and a sequential fold of such items reports once, at the end.
//!
//! The shared count is a few cache-padded counters, one per group of threads, summed by
//! [`Progress::done`], so that pieces on different threads do not write to one cache line.
//! An item counts once the fold has taken the item after it or has finished with the range,
//! so [`Progress::done`] reaches the total exactly when every item has been folded, and not
//! before. After an early stop (a `Break`, `take_while`, `find_first`), `done` is the number
//! of items folded, less than the total. A source's `get` (read per index by a few adapters,
//! such as the second source of a `zip`: track the `zip`, not its parts) counts each call as
//! the item is read.
//!
//! A fold over a tracked source starts the count afresh (done 0, the source's length as
//! total), so a pipeline built once and run twice shows the second run from 0. Two folds that
//! run at once over sources tracked by one `Progress` add into the same count.

use crate::source::{RangeVisitor, Source, Spent};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Counters that the threads spread their counts over (one per group of threads).
const SLOTS: usize = 16;

/// The most items a visited range counts before it hands its count over.
const FLUSH_EVERY: usize = 1024;

/// A range longer than this share of the source's length (1/64) is counted as it goes;
/// shorter ones, when they are done: they are small steps of the whole already.
const FINE_SHARE: usize = 64;

/// How many items at the start of a range are timed, to tell whether counting each one as it
/// is folded costs little next to the item.
const TIMED_ITEMS: usize = 16;

/// What an item must cost for a range to count each one as it is folded: the count itself
/// costs a few nanoseconds (a loop the compiler can no longer vectorise).
const SLOW_ITEM: Duration = Duration::from_nanos(50);

/// The most items a stream's iterator counts before it hands its count over: a stream is
/// pulled by one thread at a time, under a lock taken per batch anyway, and its items are
/// often slow (lines of a file, messages).
const STREAM_FLUSH_EVERY: usize = 64;

/// One counter on a cache line (two, for the adjacent-line prefetch) of its own.
#[repr(align(128))]
#[derive(Debug, Default)]
struct Slot(AtomicUsize);

/// The progress of a fold: how many items it has folded ([`Progress::done`]) out of how many
/// ([`Progress::total`]: the length of a tracked source, `None` for a stream), updated by the
/// fold's pieces as they run and read from any thread (see the [module doc](self)).
///
/// ```
/// use foldex_core::progress::Progress;
/// use foldex_core::ExecutorExt;
/// use foldex_seq::SequentialEx;
/// use std::time::Duration;
///
/// let progress = Progress::new();
/// std::thread::scope(|s| {
///     s.spawn(|| SequentialEx.for_each(progress.track(0..50usize), |_| std::thread::sleep(Duration::from_millis(1))));
///     // Another thread watches it.
///     while progress.total().is_none_or(|total| progress.done() < total) {
///         std::thread::sleep(Duration::from_millis(5));
///     }
/// });
/// assert_eq!(progress.done(), 50);
/// ```
#[derive(Debug, Default)]
pub struct Progress {
    slots: [Slot; SLOTS],
    total: AtomicUsize,
    known: AtomicBool,
}

impl Progress {
    /// A progress with nothing done and no total, until a fold over a source it tracks starts.
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of items folded so far (see the [module doc](self) for when an item counts).
    pub fn done(&self) -> usize {
        self.slots
            .iter()
            .map(|slot| slot.0.load(Ordering::Relaxed))
            .fold(0, usize::wrapping_add)
    }

    /// The number of items of the fold: the length of the tracked source once a fold over it
    /// has started; `None` before, and for a stream.
    pub fn total(&self) -> Option<usize> {
        match self.known.load(Ordering::Acquire) {
            true => Some(self.total.load(Ordering::Relaxed)),
            false => None,
        }
    }

    /// `done / total`, from 0 to 1; `None` while the total is unknown. An empty fold is
    /// complete (1).
    pub fn fraction(&self) -> Option<f64> {
        let total = self.total()?;
        Some(match total {
            0 => 1.0,
            total => self.done() as f64 / total as f64,
        })
    }

    /// Starts a count afresh: nothing done, `total` items to do. A fold over a tracked source
    /// calls it before its first item; call it yourself to count a loop of your own with
    /// [`Progress::add`].
    pub fn restart(&self, total: Option<usize>) {
        for slot in &self.slots {
            slot.0.store(0, Ordering::Relaxed);
        }
        self.known.store(false, Ordering::Release);
        if let Some(total) = total {
            self.total.store(total, Ordering::Relaxed);
            self.known.store(true, Ordering::Release);
        }
    }

    /// Counts `n` more items done, into the counter of the calling thread's group.
    pub fn add(&self, n: usize) {
        self.slots[thread_slot()].0.fetch_add(n, Ordering::Relaxed);
    }

    /// `source`, counting into this progress: every fold over it restarts the count with the
    /// source's length as total and counts the items it folds.
    pub fn track<S: Source>(&self, source: S) -> Tracked<'_, S> {
        Tracked {
            source,
            progress: self,
        }
    }

    /// `iter`, counting into this progress the items taken from it, for a
    /// [`Stream`](crate::Stream) (`Stream::new(progress.track_iter(lines))`); restarts the
    /// count now, with no total.
    pub fn track_iter<I: Iterator>(&self, iter: I) -> Counted<'_, I> {
        self.restart(None);
        Counted::new(iter, self, STREAM_FLUSH_EVERY, true)
    }
}

/// The counter of the calling thread's group: threads are numbered as they first count.
fn thread_slot() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static SLOT: usize = NEXT.fetch_add(1, Ordering::Relaxed) % SLOTS;
    }
    SLOT.try_with(|slot| *slot).unwrap_or(0)
}

/// A [`Source`] whose folds count into a [`Progress`]: see [`Progress::track`].
#[derive(Debug)]
pub struct Tracked<'p, S> {
    source: S,
    progress: &'p Progress,
}

impl<'p, S> Tracked<'p, S> {
    /// The progress it counts into.
    pub fn progress(&self) -> &'p Progress {
        self.progress
    }
}

impl<S: Source> Source for Tracked<'_, S> {
    type Item = S::Item;

    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;

    const MAY_HAVE_SIDE_EFFECT: bool = S::MAY_HAVE_SIDE_EFFECT;

    fn len(&self) -> usize {
        self.source.len()
    }

    fn start_fold(&self) -> Result<(), Spent> {
        self.source.start_fold()?;
        self.progress.restart(Some(self.source.len()));
        Ok(())
    }

    fn piece_len(&self) -> crate::exec::PieceLen {
        self.source.piece_len()
    }

    fn get(&self, index: usize) -> S::Item {
        let item = self.source.get(index);
        self.progress.add(1);
        item
    }

    #[inline]
    fn visit_range<V: RangeVisitor<S::Item>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let items = ExactSizeIterator::len(&range);
        let fine = items > TIMED_ITEMS && items > self.source.len() / FINE_SHARE;
        let visitor = Counting {
            visitor,
            progress: self.progress,
            fine,
        };
        self.source.visit_range(range, visitor)
    }
}

/// Hands the visitor the range's items, counted.
struct Counting<'p, V> {
    visitor: V,
    progress: &'p Progress,
    /// The range is long: counted as it goes.
    fine: bool,
}

impl<T, V: RangeVisitor<T>> RangeVisitor<T> for Counting<'_, V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, items: I) -> V::Output {
        self.visitor
            .visit(Counted::new(items, self.progress, FLUSH_EVERY, self.fine))
    }
}

/// An iterator that counts the items taken from it into a [`Progress`]: an item counts once
/// the next one is asked for, or when the iterator is dropped (see [`Progress::track_iter`]).
#[derive(Debug)]
pub struct Counted<'p, I> {
    inner: I,
    tally: Tally<'p>,
}

impl<'p, I> Counted<'p, I> {
    fn new(inner: I, progress: &'p Progress, most: usize, fine: bool) -> Self {
        Self {
            inner,
            tally: Tally {
                progress,
                pending: 0,
                // A coarse count is handed over when the range is done.
                limit: if fine { 1 } else { usize::MAX },
                most,
                lent: false,
            },
        }
    }
}

impl<I: Iterator> Iterator for Counted<'_, I> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        if self.tally.lent {
            self.tally.bump();
        }
        let item = self.inner.next();
        self.tally.lent = item.is_some();
        item
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }

    // The fold of a range (every fold that cannot stop early comes here). In a range counted
    // as it goes, the first `TIMED_ITEMS` items are timed; where they cost more than
    // `SLOW_ITEM` each, every item is counted as it is folded. Otherwise the range is folded
    // by its own loop (or with nothing but a local increment per item, a loop the compiler
    // still vectorises) and counted when it is done.
    fn fold<B, F: FnMut(B, I::Item) -> B>(self, init: B, mut f: F) -> B {
        let Counted {
            mut inner,
            mut tally,
        } = self;
        if tally.lent {
            tally.lent = false;
            tally.bump();
        }
        let mut acc = init;
        if tally.limit < usize::MAX {
            let started = Instant::now();
            for _ in 0..TIMED_ITEMS {
                let Some(item) = inner.next() else {
                    return acc;
                };
                acc = f(acc, item);
                tally.bump();
            }
            if started.elapsed() >= SLOW_ITEM * TIMED_ITEMS as u32 {
                return inner.fold(acc, |acc, item| {
                    let acc = f(acc, item);
                    tally.bump();
                    acc
                });
            }
        }
        if let (known, Some(upper)) = inner.size_hint()
            && known == upper
        {
            // The source's own loop, untouched (a sum over a range stays a formula).
            let acc = inner.fold(acc, f);
            tally.pending += known;
            return acc;
        }
        let mut folded = 0;
        let acc = inner.fold(acc, |acc, item| {
            folded += 1;
            f(acc, item)
        });
        tally.pending += folded;
        acc
    }
}

/// A count not yet handed to the [`Progress`]: handed over when it reaches `limit` (which
/// doubles each time, up to `most`; `usize::MAX` for a range counted when it is done) and
/// when dropped.
#[derive(Debug)]
struct Tally<'p> {
    progress: &'p Progress,
    pending: usize,
    limit: usize,
    most: usize,
    /// An item was handed out by `next` and is not counted yet: it counts at the next call,
    /// or when the iterator is dropped.
    lent: bool,
}

impl Tally<'_> {
    #[inline]
    fn bump(&mut self) {
        self.pending += 1;
        if self.pending >= self.limit {
            self.hand_over();
        }
    }

    #[cold]
    fn hand_over(&mut self) {
        self.progress.add(self.pending);
        self.pending = 0;
        self.limit = (self.limit * 2).min(self.most);
    }
}

impl Drop for Tally<'_> {
    fn drop(&mut self) {
        let pending = self.pending + usize::from(self.lent);
        if pending > 0 {
            self.progress.add(pending);
        }
    }
}

/// The `indicatif` crate that [`Progress::drive_bar`] draws with (the cargo feature
/// `indicatif`), so that a caller's bar is of the same version.
#[cfg(feature = "indicatif")]
pub use indicatif;

/// Progress bars from the `indicatif` crate (the cargo feature `indicatif`).
#[cfg(feature = "indicatif")]
mod bar {
    use super::Progress;
    use std::sync::mpsc;
    use std::time::Duration;

    /// How often the bar is redrawn from the counts.
    const POLL: Duration = Duration::from_millis(100);

    impl Progress {
        /// Runs `run` (a fold over a source this progress tracks) on the calling thread while
        /// another thread sets `bar`'s length and position from this progress ten times a
        /// second; once `run` returns (or panics), the bar shows the final count and the
        /// watching thread is gone. The bar is left for the caller to finish. Needs the cargo
        /// feature `indicatif`.
        ///
        /// ```
        /// use foldex_core::progress::Progress;
        /// use foldex_core::ExecutorExt;
        /// use foldex_seq::SequentialEx;
        /// let progress = Progress::new();
        /// let bar = foldex_core::progress::indicatif::ProgressBar::hidden();
        /// let sum = progress.drive_bar(&bar, || SequentialEx.sum::<u64>(progress.track(&[1u64, 2, 3])));
        /// assert_eq!((sum, bar.position(), bar.length()), (6, 3, Some(3)));
        /// bar.finish();
        /// ```
        pub fn drive_bar<R>(&self, bar: &indicatif::ProgressBar, run: impl FnOnce() -> R) -> R {
            let result = std::thread::scope(|scope| {
                let (stop, stopped) = mpsc::channel::<()>();
                scope.spawn(move || {
                    while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(POLL) {
                        self.show(bar);
                    }
                });
                let result = run();
                drop(stop);
                result
            });
            self.show(bar);
            result
        }

        /// Sets `bar`'s length to the total (when known) and its position to the count.
        pub fn show(&self, bar: &indicatif::ProgressBar) {
            if let Some(total) = self.total() {
                bar.set_length(total as u64);
            }
            bar.set_position(self.done() as u64);
        }
    }
}
