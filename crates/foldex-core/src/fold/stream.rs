//! Folds over a [`Stream`]: an iterator pulled in batches, one puller at a time, with the
//! batches folded as pieces on any executor and combined in input order.
//!
//! Two jobs. The executor runs the *turns* job, a fold over `0..TURNS` whose items are turns:
//! a turn locks the iterator, pulls the next batch, numbers it (its sequence number, and the
//! positions `start..end` of its items in the stream), unlocks, folds the batch and hands the
//! partial to an ordered combiner by its number. A turn that finds the stream ended (or the
//! fold stopped) returns `Break`, so the executor stops scheduling turns as it would after any
//! early `Break`; the turns' own accumulators are `()`. The *items* job is the typed fold of
//! the user's step over the stream's positions (`0..usize::MAX`, stopped past the end): a turn
//! runs it on its batch's positions, so that panics, `Break`s and their placement follow the
//! rules of the indexed fold (the parent module's doc), with positions for indices.
//!
//! What this gives:
//! - the result is the sequential fold's whatever the executor: batches are numbered in the
//!   order they leave the iterator, and combined in that order;
//! - a batch whose predecessors are all combined already is folded on into their accumulator
//!   (`OrderedCombiner::take_prefix`, `ItemsJob::run_after`): a stream folded batch after
//!   batch (on one thread, or as batches finish in order) is one piece, with no `init` and no
//!   `combine` at its seams; a turn whose predecessors all came in while it folded combines
//!   them with its batch out of the combiner's lock;
//! - memory: a turn holds one batch while it folds it, so at most one batch per thread running
//!   turns (a thread that runs a nested fold inside a step may run a second turn on top);
//!   partials that finish ahead of an earlier batch are merged into runs as they arrive;
//! - early termination: a turn checks, before each item it pulls, whether a `Break` or a panic
//!   at an earlier position stopped the fold, and pulls nothing after;
//! - a panic in the iterator's `next` is placed at the position of the item it was pulling:
//!   the items before it are folded, and it is raised unless a `Break` comes first;
//! - turns never wait for each other except on the pull lock, held only while pulling. A
//!   `next` that itself ran a fold reaching a turn of the same stream on its thread would
//!   relock it: that turn panics with a message saying so instead.
//!
//! Batch sizes adapt unless fixed: one item at first, then as many as take about
//! [`STREAM_BATCH_TIME`] to pull and fold at the last batch's cost per item, or longer where the
//! pieces cost more than their items. Every piece that is not folded on from its predecessors
//! pays an `init` and a `combine` (a `HashMap` per piece made and merged), so the fold times
//! both wherever they run, and a batch aims at `√(2·c·w / k)`: `c` what `init` and `combine`
//! cost per piece so far, `w` the turns' work so far (pulling and folding), `k` the threads
//! beyond the first (the most turns seen running at once, less one). That balances the pieces'
//! cost against the threads' wait for the last batch, as if the stream ended now: cheap
//! accumulators keep batches of `STREAM_BATCH_TIME`, and costly ones get longer batches, so
//! that `init` and `combine` take a share of the work that shrinks as the stream goes on
//! (about `√(2·c·k / w)`). A batch's cost per item is its pull and fold, less an `init`'s
//! average where it made one, without its push to the combiner (a wait for the combiner's lock
//! there would shrink the next batch, and make more pieces). A batch grows at most fourfold over
//! the last one and holds at most [`MAX_AUTO_BATCH`] items. Any batching gives the same result,
//! since `combine` is associative.

use super::{FoldJob, Leaf};
use crate::audited::Partial;
use crate::codec::Init;
use crate::executor::{Executor, Job};
use crate::in_order::OrderedCombiner;
use crate::panic::PanicPayload;
use crate::source::{RangeVisitor, Source};
use crate::stream::{Stream, MAX_AUTO_BATCH, STREAM_BATCH_TIME};
use std::cell::RefCell;
use std::ops::{ControlFlow, Range};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How many turns one run of the turns job offers; a stream with more batches runs it again.
const TURNS: usize = (1 << 31) - 1;

thread_local! {
    /// The addresses of the pullers whose locks this thread holds (a `next` that folds another
    /// stream holds two).
    static PULLING: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// The iterator and what it has given so far.
struct Puller<It> {
    iter: It,
    /// The number the next batch gets.
    next_batch: usize,
    /// The position of the next item.
    next_position: usize,
    /// No batch is pulled any more: the iterator ended or panicked, or the fold stopped.
    over: bool,
}

/// The batches pulled and not yet folded, by the position their unfolded items start at: the
/// source of the items job. A turn inserts its batch, then runs the items job on its positions.
struct Batches<T> {
    held: Mutex<Vec<(usize, std::vec::IntoIter<T>)>>,
}

impl<T> Batches<T> {
    fn put(&self, start: usize, items: std::vec::IntoIter<T>) {
        self.lock().push((start, items));
    }

    fn take(&self, start: usize) -> Option<std::vec::IntoIter<T>> {
        let mut held = self.lock();
        let at = held.iter().position(|(s, _)| *s == start)?;
        Some(held.swap_remove(at).1)
    }

    /// Drops what is left of the batch of positions `range` (a `Break` or a stop inside it).
    fn discard(&self, range: Range<usize>) {
        let left = {
            let mut held = self.lock();
            let at = held.iter().position(|(s, _)| range.contains(s));
            at.map(|at| held.swap_remove(at))
        };
        // Dropped outside the lock: the items' destructors are user code.
        drop(left);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(usize, std::vec::IntoIter<T>)>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: Send> Source for &Batches<T> {
    type Item = T;

    fn len(&self) -> usize {
        usize::MAX
    }

    fn get(&self, index: usize) -> T {
        self.visit_range(index..index + 1, First)
    }

    fn visit_range<V: RangeVisitor<T>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let mut items = self
            .take(range.start)
            .expect("a turn puts its batch in before folding it");
        let output = visitor.visit(items.by_ref().take(range.end - range.start));
        if items.len() > 0 {
            self.put(range.end, items);
        }
        output
    }
}

struct First;

impl<T> RangeVisitor<T> for First {
    type Output = T;
    fn visit<I: Iterator<Item = T>>(self, mut items: I) -> T {
        items
            .next()
            .expect("a batch holds the positions it was pulled for")
    }
}

/// One stream fold: the iterator, the items job and the ordered combiner of its batches.
struct StreamFold<'i, It: Iterator, Items> {
    puller: Mutex<Puller<It>>,
    items: &'i Items,
    batches: &'i Batches<It::Item>,
    combiner: Mutex<OrderedCombiner<'i>>,
    fixed_batch: Option<usize>,
    /// The next automatic batch size.
    auto_batch: AtomicUsize,
    /// What the fold has cost so far: what automatic batches are sized from.
    meter: &'i Meter,
}

/// What a stream fold has cost so far, measured as it runs: the work of its turns, and what its
/// pieces cost beyond their items (`init` and `combine`, timed wherever they run).
#[derive(Default)]
struct Meter {
    /// Nanoseconds spent pulling and folding batches, over every turn.
    work: AtomicU64,
    /// Nanoseconds spent in `init`, and how many accumulators it made: the fold's pieces.
    init: AtomicU64,
    inits: AtomicU64,
    /// Nanoseconds spent in `combine`.
    combine: AtomicU64,
    /// Turns running now, and the most that ran at once.
    running: AtomicUsize,
    widest: AtomicUsize,
}

impl Meter {
    /// Runs `f`, adding the time it took to `spent` (and one to `count`).
    fn timed<T>(spent: &AtomicU64, count: Option<&AtomicU64>, f: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let out = f();
        spent.fetch_add(nanos(started.elapsed()), Ordering::Relaxed);
        if let Some(count) = count {
            count.fetch_add(1, Ordering::Relaxed);
        }
        out
    }

    /// What one `init` cost on average, and what a piece costs beyond its items (its `init`,
    /// and the `combine`s spread over the pieces), in nanoseconds.
    fn per_piece(&self) -> (u64, u64) {
        let inits = self.inits.load(Ordering::Relaxed).max(1);
        let init = self.init.load(Ordering::Relaxed) / inits;
        let combine = self.combine.load(Ordering::Relaxed) / inits;
        (init, init + combine)
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// What a turn pulled: its number, its first position and its items, and when the pulling
/// started (once the lock was taken).
struct Pulled<T> {
    started: Instant,
    number: usize,
    start: usize,
    items: Vec<T>,
}

impl<'i, It, Items> StreamFold<'i, It, Items>
where
    It: Iterator + Send,
    It::Item: Send,
    Items: ItemsJob<'i>,
{
    /// One turn: pulls a batch and folds it; `Break` once there is nothing left to pull.
    fn turn(&self) -> ControlFlow<()> {
        let meter = self.meter;
        let running = meter.running.fetch_add(1, Ordering::Relaxed) + 1;
        meter.widest.fetch_max(running, Ordering::Relaxed);
        let flow = self.pull_and_fold();
        meter.running.fetch_sub(1, Ordering::Relaxed);
        flow
    }

    /// What [`StreamFold::turn`] does.
    fn pull_and_fold(&self) -> ControlFlow<()> {
        let Some(pulled) = self.pull() else {
            return ControlFlow::Break(());
        };
        let (count, range) = (
            pulled.items.len(),
            pulled.start..pulled.start + pulled.items.len(),
        );
        self.batches.put(pulled.start, pulled.items.into_iter());
        let prefix = self.combiner().take_prefix(pulled.number);
        let fresh = prefix.is_none();
        let partial: Partial<'i> = match prefix {
            Some(prefix) => self.items.run_after(prefix, range.clone()),
            None => self.items.run(range.clone()),
        };
        let took = pulled.started.elapsed();
        self.batches.discard(range);
        // Where every batch before this one is in by now, they are combined with it here, out
        // of the lock: the next turns' pushes and prefixes do not wait for this `combine`.
        let before = self.combiner().take_prefix(pulled.number);
        let partial = match before {
            Some(before) => self.items.combine(before, partial),
            None => partial,
        };
        self.combiner().push(self.items, pulled.number, partial);
        if self.fixed_batch.is_none() {
            self.adapt(count, nanos(took), fresh);
        }
        ControlFlow::Continue(())
    }

    fn combiner(&self) -> std::sync::MutexGuard<'_, OrderedCombiner<'i>> {
        self.combiner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn batch_len(&self) -> usize {
        self.fixed_batch
            .unwrap_or_else(|| self.auto_batch.load(Ordering::Relaxed))
    }

    /// Sizes the next automatic batch from what this one cost per item (`took` nanoseconds to
    /// pull and fold `count` items, an `init` included where `fresh`) and from what the fold
    /// has cost so far: grows at most fourfold per batch, shrinks at once.
    ///
    /// The batch aims at [`STREAM_BATCH_TIME`], or longer where pieces cost more than their
    /// items: with `w` the work so far, `c` what a piece costs beyond its items and `k` the
    /// threads beyond the first, batches of `√(2·c·w / k)` make the pieces' cost (`c` per batch)
    /// and the threads' wait for the last batch (half a batch each) about equal, and the least
    /// their sum can be were the stream to end now.
    fn adapt(&self, count: usize, took: u64, fresh: bool) {
        let meter = self.meter;
        let work = meter
            .work
            .fetch_add(took, Ordering::Relaxed)
            .saturating_add(took);
        let (init, piece) = meter.per_piece();
        let folding = if fresh {
            took.saturating_sub(init)
        } else {
            took
        };
        let per_item = (folding / count.max(1) as u64).max(1);
        let others = meter
            .widest
            .load(Ordering::Relaxed)
            .saturating_sub(1)
            .max(1) as u64;
        let balanced =
            (u128::from(piece).saturating_mul(2 * u128::from(work)) / u128::from(others)).isqrt();
        let aim = balanced.max(STREAM_BATCH_TIME.as_nanos());
        let fits = usize::try_from(aim / u128::from(per_item)).unwrap_or(usize::MAX);
        let next = fits.min(count.saturating_mul(4)).clamp(1, MAX_AUTO_BATCH);
        self.auto_batch.store(next, Ordering::Relaxed);
    }

    /// Pulls the next batch under the lock, or `None` when the stream ended or the fold
    /// stopped.
    fn pull(&self) -> Option<Pulled<It::Item>> {
        let me = std::ptr::from_ref(&self.puller).addr();
        assert!(
            !PULLING.with_borrow(|held| held.contains(&me)),
            "foldex: a stream's iterator ran a fold that reached a turn of the same stream on \
             its own thread; do that work in the fold's step, not in the iterator"
        );
        let mut puller = self.puller.lock().unwrap_or_else(PoisonError::into_inner);
        if puller.over {
            return None;
        }
        let started = Instant::now();
        let want = self.batch_len();
        let start = puller.next_position;
        let mut items = Vec::with_capacity(want.min(MAX_AUTO_BATCH));
        PULLING.with_borrow_mut(|held| held.push(me));
        let pulled = panic::catch_unwind(AssertUnwindSafe(|| {
            while items.len() < want {
                if self.items.stopped_at(start + items.len()) {
                    return false;
                }
                match puller.iter.next() {
                    Some(item) => items.push(item),
                    None => return false,
                }
            }
            true
        }));
        PULLING.with_borrow_mut(Vec::pop);
        match pulled {
            Ok(more) => puller.over = !more,
            Err(payload) => {
                puller.over = true;
                self.items.record_panic_at(start + items.len(), payload);
            }
        }
        if items.is_empty() {
            puller.over = true;
            return None;
        }
        let number = puller.next_batch;
        puller.next_batch += 1;
        puller.next_position = start + items.len();
        Some(Pulled {
            started,
            number,
            start,
            items,
        })
    }

    /// Positions pulled so far: the stream's length once it is over.
    fn pulled(&self) -> (usize, bool) {
        let puller = self.puller.lock().unwrap_or_else(PoisonError::into_inner);
        (puller.next_position, puller.over)
    }
}

/// What a turn needs of the items job beyond [`Job`].
pub(super) trait ItemsJob<'i>: Job<'i> {
    /// `true` once the item at `position` cannot change the result.
    fn stopped_at(&self, position: usize) -> bool;
    /// Records a panic of user code placed at `position`.
    fn record_panic_at(&self, position: usize, payload: PanicPayload);
    /// What `combine(prefix, run(range))` gives, `range` being the batch right after
    /// `prefix`: its items are folded on into the prefix's accumulator, so that a stream folded
    /// one batch after another (on one thread, or as batches finish in order) is one piece,
    /// with no `init` or `combine` at its batches' seams.
    fn run_after(&self, prefix: Partial<'i>, range: Range<usize>) -> Partial<'i>;
}

impl<'i, S, L, I, C, A> ItemsJob<'i> for FoldJob<'_, S, L, I, C, A>
where
    S: Source,
    L: Leaf<A, S::Item>,
    I: Init<A>,
    C: Fn(A, A) -> A + Sync,
    A: Send + 'i,
{
    fn stopped_at(&self, position: usize) -> bool {
        self.stopped(position)
    }

    fn record_panic_at(&self, position: usize, payload: PanicPayload) {
        self.record_panic(position, payload);
    }

    fn run_after(&self, prefix: Partial<'i>, range: Range<usize>) -> Partial<'i> {
        self.extend(prefix, range)
    }
}

/// The turns job's leaf: runs one turn per index.
struct Turns<'f, 'i, It: Iterator, Items>(&'f StreamFold<'i, It, Items>);

impl<'i, It, Items> Leaf<(), usize> for Turns<'_, 'i, It, Items>
where
    It: Iterator + Send,
    It::Item: Send,
    Items: ItemsJob<'i>,
{
    fn fold<T: Iterator<Item = usize>>(
        &self,
        (): (),
        turns: T,
        _: &super::StopProbe,
    ) -> ControlFlow<(), ()> {
        for _ in turns {
            self.0.turn()?;
        }
        ControlFlow::Continue(())
    }
}

/// Folds `stream` on `executor` with `leaf`, `init` and `combine`: the typed fold's rules, with
/// positions in the stream for indices.
pub(crate) fn drive_stream<E, It, L, I, C, A>(
    executor: &E,
    stream: Stream<It>,
    leaf: L,
    init: I,
    combine: C,
) -> ControlFlow<A, A>
where
    E: Executor + ?Sized,
    It: Iterator + Send,
    It::Item: Send,
    L: Leaf<A, It::Item>,
    I: Init<A>,
    C: Fn(A, A) -> A + Sync,
    A: Send,
{
    assert!(init.codec().is_none(), "{STREAMS_STAY}");
    let batches = Batches {
        held: Mutex::new(Vec::new()),
    };
    let meter = Meter::default();
    let timed_init = || Meter::timed(&meter.init, Some(&meter.inits), || init.init());
    let timed_combine = |a: A, b: A| Meter::timed(&meter.combine, None, || combine(a, b));
    let items = FoldJob::new(&batches, leaf, timed_init, timed_combine, usize::MAX, None);
    let fold = StreamFold {
        puller: Mutex::new(Puller {
            iter: stream.iter,
            next_batch: 0,
            next_position: 0,
            over: false,
        }),
        items: &items,
        batches: &batches,
        combiner: Mutex::new(OrderedCombiner::new()),
        fixed_batch: stream.batch_size.map(std::num::NonZeroUsize::get),
        auto_batch: AtomicUsize::new(1),
        meter: &meter,
    };
    loop {
        let turns = FoldJob::new(0..TURNS, Turns(&fold), || (), |(), ()| (), TURNS, None);
        let partial = executor.execute(&turns);
        // The turns' accumulators are `()`: what matters is that the executor ran them right
        // (raised here as an executor bug otherwise) and whether the stream is over.
        turns.conclude(partial, TURNS);
        if fold.pulled().1 {
            break;
        }
    }
    let (len, _) = fold.pulled();
    let StreamFold {
        puller, combiner, ..
    } = fold;
    // The iterator goes first: its destructor may be slow (a file closed, a thread joined), and
    // nothing needs it now.
    drop(puller);
    let combiner = combiner
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    let partial = combiner.finish(&items);
    items
        .conclude(partial, len)
        .expect("a stream fold without a cancel flag is never cancelled")
}

/// Why a fold over a stream cannot carry a codec.
const STREAMS_STAY: &str = "foldex: a fold over a stream cannot send its partials to other \
     processes: a stream is pulled in one process; collect it, or index the input";
