//! The puller of a stream loader's epoch: one thread that opens the rank's shards, interleaves
//! them, passes their items through the shuffle buffer and hands them on in windows.

use super::cursor::{restore, Cursor, Held};
use super::seek::Seek;
use crate::stall::{InFlight, LoadAt};
use foldex_core::exec::PanicPayload;
use foldex_dataset::{rng_for, ItemRng};
use std::collections::VecDeque;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::Arc;

/// One shard's items.
pub(crate) type ShardIter<R> = Box<dyn Iterator<Item = R> + Send>;

/// Opens shard `i` of the loader's shards.
pub(crate) type Open<R> = dyn Fn(usize) -> ShardIter<R> + Send + Sync;

/// Where a pulled item comes from: its shard (the index in the loader's list) and its position
/// in that shard.
pub(crate) type Tag = (usize, usize);

/// A cursor's interleave cycle and shuffle buffer, reopened: the buffer's items each with what
/// is kept beside it.
pub(crate) type Reopened<R, K> = (VecDeque<Reading<R>>, Vec<(R, K)>);

/// What the shuffle buffer keeps beside each item, and so how a cursor's buffer is restored;
/// chosen by whether the shards can seek ([`PullPlan::run`]). One puller serves both: it is
/// generic over this.
pub(crate) trait Tagging {
    /// Kept beside each buffered item.
    type Kept: Copy;
    fn keep(tag: Tag) -> Self::Kept;
    /// The cursor's record of the buffer `held`.
    fn held<R>(held: &[(R, Self::Kept)]) -> Held;
    /// The interleave cycle and the buffer of `cursor` reopened without replaying the puller,
    /// when they can be (`None`: replay it).
    fn reopen<R>(cursor: &Cursor, seek: Option<&dyn Seek<R>>) -> Option<Reopened<R, Self::Kept>>;
}

/// Shards that cannot seek: the buffer keeps nothing beside its items (a `Vec<(R, ())>` is laid
/// out as a `Vec<R>`), the cursor only its length, and a resumption replays the puller.
pub(crate) struct Replays;

impl Tagging for Replays {
    type Kept = ();

    fn keep(_: Tag) {}

    fn held<R>(held: &[(R, ())]) -> Held {
        Held::Count(held.len())
    }

    fn reopen<R>(
        _: &Cursor,
        _: Option<&dyn Seek<R>>,
    ) -> Option<(VecDeque<Reading<R>>, Vec<(R, ())>)> {
        None
    }
}

/// Shards that can seek: each buffered item is kept with its [`Tag`], side by side (a draw
/// touches one place in memory), so that a resumption fetches it by its position.
pub(crate) struct Seeks;

impl Tagging for Seeks {
    type Kept = Tag;

    fn keep(tag: Tag) -> Tag {
        tag
    }

    fn held<R>(held: &[(R, Tag)]) -> Held {
        Held::Tags(held.iter().map(|&(_, tag)| tag).collect())
    }

    fn reopen<R>(cursor: &Cursor, seek: Option<&dyn Seek<R>>) -> Option<Reopened<R, Tag>> {
        match (&cursor.held, seek) {
            (Held::Tags(tags), Some(seek)) => Some(restore(cursor, tags, seek)),
            // A state of a loader that replays: replayed here too.
            _ => None,
        }
    }
}

/// What the puller sends: a window of items, or the panic of an iterator (or of `open`).
pub(crate) enum Pulled<R> {
    /// The items at stream positions `start.offset..start.offset + items.len()`; `start` is
    /// the puller's cursor before the window's first item, what a resumption starts from.
    Window { start: Arc<Cursor>, items: Vec<R> },
    /// Pulling the item at stream position `position` panicked; nothing follows.
    Failed {
        position: usize,
        payload: PanicPayload,
    },
}

/// The most items a window or the shuffle buffer makes room for before they are pulled: their
/// sizes come from the settings (up to `usize::MAX`) and may be far beyond the stream, so
/// beyond this they grow as items come.
const ROOM_AHEAD: usize = 1 << 12;

/// How an epoch's items are pulled.
pub(crate) struct PullPlan<R> {
    pub open: Arc<Open<R>>,
    /// Opens shards at a position, when they can be (else resumption replays them).
    pub seek: Option<Arc<dyn Seek<R>>>,
    /// The shards this rank reads, in the order they are opened.
    pub shards: Vec<usize>,
    /// Shards read at once, an item from each in turn.
    pub cycle_length: usize,
    /// The shuffle buffer's size and the epoch's first generator, if shuffled.
    pub shuffle: Option<(usize, ItemRng)>,
    /// Where the epoch starts: its beginning, or a resumption's window.
    pub start: Cursor,
    /// Items per batch: windows hold whole batches.
    pub batch: usize,
    /// Items per window, at most (a multiple of the batch size). Each window holds four times
    /// as many items as the one before, from `start.window_len` on, up to this.
    pub window: usize,
    /// Set when the consumer dropped the epoch: the puller stops before its next item.
    pub hung_up: Arc<AtomicBool>,
}

impl<R: Send + 'static> PullPlan<R> {
    /// Pulls the epoch into `out`, window by window, until the shards end, an iterator
    /// panics, or the consumer hangs up (`hung_up`, checked before each item, or a `send` that
    /// fails: the epoch was dropped). The iterators are dropped on the way out.
    pub fn run(self, out: &SyncSender<Pulled<R>>) {
        if self.seek.is_some() {
            self.pull::<Seeks>(out);
        } else {
            self.pull::<Replays>(out);
        }
    }

    /// [`run`](Self::run), with the buffer keeping what `T` says.
    fn pull<T: Tagging>(self, out: &SyncSender<Pulled<R>>) {
        let Self {
            open,
            seek,
            shards,
            cycle_length,
            shuffle,
            start,
            batch,
            window,
            hung_up,
        } = self;
        let (mut offset, mut size) = (start.offset, start.window_len);
        let restored = panic::catch_unwind(AssertUnwindSafe(|| {
            Puller::<R, T>::restore(&start, open, seek.as_deref(), shards, cycle_length, shuffle)
        }));
        let mut items = match restored {
            Ok(puller) => puller,
            Err(payload) => {
                let _ = out.send(Pulled::Failed {
                    position: offset,
                    payload,
                });
                return;
            }
        };
        loop {
            let start = Arc::new(items.cursor(offset, size));
            let mut pulled_items = Vec::with_capacity(size.min(ROOM_AHEAD));
            let pulled = panic::catch_unwind(AssertUnwindSafe(|| {
                while pulled_items.len() < size && !hung_up.load(Ordering::Relaxed) {
                    match items.next() {
                        Some(item) => pulled_items.push(item),
                        None => break,
                    }
                }
            }));
            let count = pulled_items.len();
            if pulled.is_err() {
                // Only whole batches go before the failure: the batch that holds the failing
                // item is not delivered, as when `compute` panics on it (windows start at a
                // multiple of the batch size, and hold whole batches).
                pulled_items.truncate(count - count % batch);
            }
            if !pulled_items.is_empty() {
                let sent = out.send(Pulled::Window {
                    start,
                    items: pulled_items,
                });
                if sent.is_err() {
                    return;
                }
            }
            offset += count;
            if let Err(payload) = pulled {
                // The iterators are not touched again; the consumer hears of it after the
                // batches before it.
                let _ = out.send(Pulled::Failed {
                    position: offset,
                    payload,
                });
                return;
            }
            if count < size || hung_up.load(Ordering::Relaxed) {
                return;
            }
            size = size.saturating_mul(4).min(window);
        }
    }
}

/// The items of an epoch in stream order: the shards interleaved, then shuffled.
pub(crate) struct Puller<R, T: Tagging> {
    interleave: Interleave<R>,
    shuffle: Option<ShuffleBuffer<R, T>>,
}

impl<R, T: Tagging> Puller<R, T> {
    /// The puller at the start of an epoch.
    fn first(
        open: Arc<Open<R>>,
        shards: Vec<usize>,
        cycle_length: usize,
        shuffle: Option<(usize, ItemRng)>,
    ) -> Self {
        let shuffle = shuffle.map(|(size, rng)| ShuffleBuffer::new(size, rng, Vec::new()));
        Self::at(open, shards, 0, VecDeque::new(), cycle_length, shuffle)
    }

    fn at(
        open: Arc<Open<R>>,
        shards: Vec<usize>,
        opened: usize,
        cycle: VecDeque<Reading<R>>,
        cycle_length: usize,
        shuffle: Option<ShuffleBuffer<R, T>>,
    ) -> Self {
        let mut pending: VecDeque<usize> = shards.into();
        pending.drain(..opened.min(pending.len()));
        let interleave = Interleave {
            open,
            pending,
            opened,
            cycle,
            cycle_length,
        };
        Self {
            interleave,
            shuffle,
        }
    }

    /// The puller that continues from `cursor`: its shards reopened at their positions when
    /// `T` can ([`Tagging::reopen`], see [`restore`](super::cursor::restore)), else the
    /// puller of the epoch's start (`shuffle`'s generator is the epoch's first) replayed up to
    /// the cursor: its shards read again, nothing computed.
    ///
    /// # Panics
    /// When the replay does not reach the cursor (a shard changed since the state was taken),
    /// with a message giving both.
    fn restore(
        cursor: &Cursor,
        open: Arc<Open<R>>,
        seek: Option<&dyn Seek<R>>,
        shards: Vec<usize>,
        cycle_length: usize,
        shuffle: Option<(usize, ItemRng)>,
    ) -> Self {
        if let Some((cycle, held)) = T::reopen(cursor, seek) {
            let shuffle = shuffle.map(|(size, _)| {
                let rng = cursor
                    .rng
                    .clone()
                    .expect("a shuffled cursor has a generator");
                ShuffleBuffer::new(size, rng, held)
            });
            return Self::at(open, shards, cursor.opened, cycle, cycle_length, shuffle);
        }
        let mut puller = Self::first(open, shards, cycle_length, shuffle);
        let mut offset = 0;
        while offset < cursor.offset && puller.next().is_some() {
            offset += 1;
        }
        let replayed = puller.cursor(offset, cursor.window_len);
        if !replayed.same_place(cursor) {
            panic!(
                "foldex-loader: cannot resume the stream: the state is at {}, but replaying its \
                 shards reaches {} (a shard changed since the state was taken)",
                cursor.describe(),
                replayed.describe()
            );
        }
        puller
    }

    /// Where the puller stands, `offset` items into the stream, before a window of `window_len`.
    fn cursor(&self, offset: usize, window_len: usize) -> Cursor {
        Cursor {
            offset,
            window_len,
            opened: self.interleave.opened,
            cycle: self
                .interleave
                .cycle
                .iter()
                .map(|reading| (reading.shard, reading.pulled))
                .collect(),
            held: T::held(self.shuffle.as_ref().map_or(&[][..], |s| &s.held)),
            rng: self.shuffle.as_ref().map(|s| s.rng.clone()),
        }
    }

    fn next(&mut self) -> Option<R> {
        match &mut self.shuffle {
            Some(shuffle) => shuffle.next(&mut self.interleave),
            None => self.interleave.next().map(|(item, _)| item),
        }
    }
}

/// A shard being read: its index, the items pulled from it so far, and its iterator.
pub(crate) struct Reading<R> {
    pub shard: usize,
    pub pulled: usize,
    pub iter: ShardIter<R>,
}

/// The items of several shards: `cycle_length` shards open at once, one item from each in
/// turn; a shard that ends is replaced in its place by the next one (tf.data's `interleave`
/// with a block of one).
struct Interleave<R> {
    open: Arc<Open<R>>,
    pending: VecDeque<usize>,
    /// How many of the rank's shards were opened.
    opened: usize,
    cycle: VecDeque<Reading<R>>,
    cycle_length: usize,
}

impl<R> Interleave<R> {
    fn open_next(&mut self) -> Option<Reading<R>> {
        let shard = self.pending.pop_front()?;
        self.opened += 1;
        Some(Reading {
            shard,
            pulled: 0,
            iter: (self.open)(shard),
        })
    }
}

impl<R> Iterator for Interleave<R> {
    type Item = (R, Tag);

    fn next(&mut self) -> Option<(R, Tag)> {
        loop {
            while self.cycle.len() < self.cycle_length {
                let Some(reading) = self.open_next() else {
                    break;
                };
                self.cycle.push_back(reading);
            }
            let mut current = self.cycle.pop_front()?;
            if let Some(item) = current.iter.next() {
                let tag = (current.shard, current.pulled);
                current.pulled += 1;
                self.cycle.push_back(current);
                return Some((item, tag));
            }
            // That shard ended: the next one takes its place, and its turn.
            if let Some(reading) = self.open_next() {
                self.cycle.push_front(reading);
            }
        }
    }
}

/// A shuffle buffer (tf.data's `shuffle(buffer_size)`): holds `size` items and hands out one
/// drawn at random, replacing it with the next from the source. The order is a function of the
/// source's order, the seed, the epoch and `size`. Each item is held with what `T` keeps of its
/// [`Tag`].
struct ShuffleBuffer<R, T: Tagging> {
    held: Vec<(R, T::Kept)>,
    size: usize,
    rng: ItemRng,
}

impl<R, T: Tagging> ShuffleBuffer<R, T> {
    /// A buffer of `size` items drawing from `rng`, holding `held` already.
    fn new(size: usize, rng: ItemRng, mut held: Vec<(R, T::Kept)>) -> Self {
        held.reserve(size.min(ROOM_AHEAD).saturating_sub(held.len()));
        Self { held, size, rng }
    }

    fn next(&mut self, source: &mut impl Iterator<Item = (R, Tag)>) -> Option<R> {
        while self.held.len() < self.size {
            match source.next() {
                Some((item, tag)) => self.held.push((item, T::keep(tag))),
                None => break,
            }
        }
        if self.held.is_empty() {
            return None;
        }
        let at = self.rng.gen_range(0..self.held.len());
        Some(self.held.swap_remove(at).0)
    }
}

/// The RNG of epoch `epoch`'s shuffle buffer of `size` items.
pub(crate) fn shuffle_rng(seed: u64, epoch: u64, size: usize) -> ItemRng {
    rng_for(seed, epoch, size)
}

/// `open`, with every opening of a shard and every `next()` of its iterator noted in
/// `in_flight` while it runs, as loads of epoch `epoch` (a stream loader with a timeout).
pub(crate) fn watched<R: 'static>(
    open: &Arc<Open<R>>,
    in_flight: &Arc<InFlight>,
    epoch: u64,
) -> Arc<Open<R>> {
    let (open, in_flight) = (Arc::clone(open), Arc::clone(in_flight));
    Arc::new(move |shard| -> ShardIter<R> {
        let inner = {
            let _noted = in_flight.note(LoadAt::Pull { shard, item: 0 }, epoch);
            open(shard)
        };
        Box::new(Watched {
            inner,
            shard,
            item: 0,
            epoch,
            in_flight: Arc::clone(&in_flight),
        })
    })
}

/// `seek`, with every opening of a shard at a position, every `next()` of the iterator it
/// gives and every fetch of an item noted in `in_flight` while it runs, as loads of epoch
/// `epoch` (a stream loader with a timeout): a resumption's reopening of the shards is watched
/// as the epoch's pulls are, each load named by its shard and its position there.
pub(crate) fn watched_seek<R: 'static>(
    seek: &Arc<dyn Seek<R>>,
    in_flight: &Arc<InFlight>,
    epoch: u64,
) -> Arc<dyn Seek<R>> {
    Arc::new(WatchedSeek {
        inner: Arc::clone(seek),
        in_flight: Arc::clone(in_flight),
        epoch,
    })
}

/// Seekable shards whose loads are noted while they run (see [`watched_seek`]).
struct WatchedSeek<R> {
    inner: Arc<dyn Seek<R>>,
    in_flight: Arc<InFlight>,
    epoch: u64,
}

impl<R: 'static> Seek<R> for WatchedSeek<R> {
    fn open_at(&self, shard: usize, position: usize) -> ShardIter<R> {
        let inner = {
            let at = LoadAt::Pull {
                shard,
                item: position,
            };
            let _noted = self.in_flight.note(at, self.epoch);
            self.inner.open_at(shard, position)
        };
        Box::new(Watched {
            inner,
            shard,
            item: position,
            epoch: self.epoch,
            in_flight: Arc::clone(&self.in_flight),
        })
    }

    fn item_at(&self, shard: usize, position: usize) -> Option<R> {
        let at = LoadAt::Pull {
            shard,
            item: position,
        };
        let _noted = self.in_flight.note(at, self.epoch);
        self.inner.item_at(shard, position)
    }
}

/// A shard's iterator whose `next()` calls are noted while they run (see [`watched`] and
/// [`watched_seek`]).
struct Watched<R> {
    inner: ShardIter<R>,
    shard: usize,
    /// The number of the item the next `next()` pulls.
    item: usize,
    epoch: u64,
    in_flight: Arc<InFlight>,
}

impl<R> Iterator for Watched<R> {
    type Item = R;

    fn next(&mut self) -> Option<R> {
        let at = LoadAt::Pull {
            shard: self.shard,
            item: self.item,
        };
        let _noted = self.in_flight.note(at, self.epoch);
        let item = self.inner.next();
        self.item += 1;
        item
    }
}

/// Receives the windows of an epoch from the puller thread.
pub(crate) type Windows<R> = Receiver<Pulled<R>>;

#[cfg(test)]
mod tests {
    use super::*;

    fn open_ranges(sizes: Vec<usize>) -> Arc<Open<(usize, usize)>> {
        Arc::new(move |shard: usize| -> ShardIter<(usize, usize)> {
            Box::new((0..sizes[shard]).map(move |i| (shard, i)))
        })
    }

    #[test]
    fn interleave_takes_one_item_from_each_open_shard_in_turn() {
        let items: Vec<_> = Interleave {
            open: open_ranges(vec![3, 1, 2]),
            pending: VecDeque::from([0, 1, 2]),
            opened: 0,
            cycle: VecDeque::new(),
            cycle_length: 2,
        }
        .map(|(item, _)| item)
        .collect();
        assert_eq!(items, [(0, 0), (1, 0), (0, 1), (2, 0), (0, 2), (2, 1)]);
    }

    #[test]
    fn a_shuffle_buffer_hands_out_each_item_once_in_an_order_set_by_its_seed() {
        let shuffled = |seed| -> Vec<usize> {
            let mut source = (0..100usize).map(|i| (i, (0, i)));
            let mut buffer = ShuffleBuffer::<usize, Replays> {
                held: Vec::new(),
                size: 10,
                rng: shuffle_rng(seed, 0, 10),
            };
            std::iter::from_fn(|| buffer.next(&mut source)).collect()
        };
        let a = shuffled(1);
        assert_eq!(a, shuffled(1));
        assert_ne!(a, shuffled(2));
        assert_ne!(a, (0..100).collect::<Vec<_>>());
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
        // An item cannot come out before the buffer has reached it.
        assert!(a.iter().enumerate().all(|(i, &x)| x < i + 10));
    }
}
