//! The puller of a stream loader's epoch: one thread that opens the rank's shards, interleaves
//! them, passes their items through the shuffle buffer and hands them on in windows.

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

/// What the puller sends: a window of items, or the panic of an iterator (or of `open`).
pub(crate) enum Pulled<R> {
    /// The items at stream positions `offset..offset + items.len()`.
    Window { offset: usize, items: Vec<R> },
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
    /// The shards this rank reads, in the order they are opened.
    pub shards: Vec<usize>,
    /// Shards read at once, an item from each in turn.
    pub cycle_length: usize,
    /// The shuffle buffer's size and the RNG that draws from it, if shuffled.
    pub shuffle: Option<(usize, ItemRng)>,
    /// Items per batch: the first window holds one batch, each next one four times as many as the
    /// one before, up to `window` items (a multiple of it).
    pub batch: usize,
    /// Items per window, at most.
    pub window: usize,
    /// Set when the consumer dropped the epoch: the puller stops before its next item.
    pub hung_up: Arc<AtomicBool>,
}

impl<R: Send + 'static> PullPlan<R> {
    /// Pulls the epoch into `out`, window by window, until the shards end, an iterator
    /// panics, or the consumer hangs up (`hung_up`, checked before each item, or a `send` that
    /// fails: the epoch was dropped). The iterators are dropped on the way out.
    pub fn run(self, out: &SyncSender<Pulled<R>>) {
        let Self {
            open,
            shards,
            cycle_length,
            shuffle,
            batch,
            window,
            hung_up,
        } = self;
        let interleaved = Interleave {
            open,
            pending: shards.into(),
            cycle: VecDeque::new(),
            cycle_length,
        };
        let mut items: Box<dyn Iterator<Item = R>> = match shuffle {
            Some((size, rng)) => Box::new(ShuffleBuffer {
                source: interleaved,
                held: Vec::with_capacity(size.min(ROOM_AHEAD)),
                size,
                rng,
            }),
            None => Box::new(interleaved),
        };
        let (mut offset, mut size) = (0, batch.min(window));
        loop {
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
                // multiple of the batch size).
                pulled_items.truncate(count - count % batch);
            }
            if !pulled_items.is_empty() {
                let sent = out.send(Pulled::Window {
                    offset,
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

/// The items of several shards: `cycle_length` shards open at once, one item from each in
/// turn; a shard that ends is replaced in its place by the next one (tf.data's `interleave`
/// with a block of one).
struct Interleave<R> {
    open: Arc<Open<R>>,
    pending: VecDeque<usize>,
    cycle: VecDeque<ShardIter<R>>,
    cycle_length: usize,
}

impl<R> Iterator for Interleave<R> {
    type Item = R;

    fn next(&mut self) -> Option<R> {
        loop {
            while self.cycle.len() < self.cycle_length {
                let Some(shard) = self.pending.pop_front() else {
                    break;
                };
                self.cycle.push_back((self.open)(shard));
            }
            let mut current = self.cycle.pop_front()?;
            if let Some(item) = current.next() {
                self.cycle.push_back(current);
                return Some(item);
            }
            // That shard ended: the next one takes its place, and its turn.
            if let Some(shard) = self.pending.pop_front() {
                self.cycle.push_front((self.open)(shard));
            }
        }
    }
}

/// A shuffle buffer (tf.data's `shuffle(buffer_size)`): holds `size` items and hands out one
/// drawn at random, replacing it with the next from the source. The order is a function of the
/// source's order, the seed, the epoch and `size`.
struct ShuffleBuffer<R, I> {
    source: I,
    held: Vec<R>,
    size: usize,
    rng: ItemRng,
}

impl<R, I: Iterator<Item = R>> Iterator for ShuffleBuffer<R, I> {
    type Item = R;

    fn next(&mut self) -> Option<R> {
        while self.held.len() < self.size {
            match self.source.next() {
                Some(item) => self.held.push(item),
                None => break,
            }
        }
        if self.held.is_empty() {
            return None;
        }
        let at = self.rng.gen_range(0..self.held.len());
        Some(self.held.swap_remove(at))
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

/// A shard's iterator whose `next()` calls are noted while they run (see [`watched`]).
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
            cycle: VecDeque::new(),
            cycle_length: 2,
        }
        .collect();
        assert_eq!(items, [(0, 0), (1, 0), (0, 1), (2, 0), (0, 2), (2, 1)]);
    }

    #[test]
    fn a_shuffle_buffer_hands_out_each_item_once_in_an_order_set_by_its_seed() {
        let shuffled = |seed| -> Vec<usize> {
            ShuffleBuffer {
                source: 0..100usize,
                held: Vec::new(),
                size: 10,
                rng: shuffle_rng(seed, 0, 10),
            }
            .collect()
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
