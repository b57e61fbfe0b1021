//! The ring of places and their stamps: where finished parcels wait for the consumer.
//!
//! Position `p` (see [the channel's docs](super)) lives in place `p % capacity`, as in
//! crossbeam-channel's array flavour. A place's stamp says which position it is free for, or
//! which one it holds, so neither side reads the other's counter on the common path: a
//! producer learns that there is room for `p` from place `p`'s stamp ("free for `p`" once the
//! consumer released `p - capacity`), and the consumer learns that `p` arrived from the same
//! stamp ("holds `p`"). Two low bits of the stamp say that a side sleeps, waiting for it to
//! change (see `waiting.rs`).

use crossbeam_utils::CachePadded;
use foldex_core::exec::sync::{AtomicUsize, Mutex, MutexGuard, Ordering};
use std::cmp::Ordering as Compare;
use std::collections::VecDeque;
use std::mem;

/// Stamp bit: the consumer sleeps (or is about to) until this place holds its next position.
pub(super) const CONSUMER_WAITS: usize = 1;
/// Stamp bit: some producer sleeps (or is about to) until this place is free for a later lap.
pub(super) const PRODUCER_WAITS: usize = 2;
/// Stamp bit: the place holds its position (else it is free for it).
const FULL: usize = 4;
/// The position sits above the three bits.
const SHIFT: u32 = 3;
const WAIT_BITS: usize = CONSUMER_WAITS | PRODUCER_WAITS;

/// The most positions (batches or parcels) a channel numbers, and the most places it has: a
/// stamp holds a position of the lap after the last one, `position + capacity`, above
/// [`SHIFT`] bits.
pub(crate) const MAX_BATCHES: usize = usize::MAX >> (SHIFT + 1);

/// The stamp of a place that is free for position `position`.
fn free(position: usize) -> usize {
    position << SHIFT
}

/// The stamp of a place that holds position `position`: a push adds [`FULL`] to
/// `free(position)`, keeping the wait bits.
fn full(position: usize) -> usize {
    free(position) | FULL
}

pub(super) fn lock<U>(mutex: &Mutex<U>) -> MutexGuard<'_, U> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Empties `cell` and drops what it held once the lock is released, so that no batch's
/// destructor runs under it.
pub(super) fn drop_contents<U: Default>(cell: &Mutex<U>) {
    let late = mem::take(&mut *lock(cell));
    drop(late);
}

/// The batches of one position, in push order. The first sits in place, on the place's own
/// cache lines, so that a single batch costs no further memory to hand over; the rest of a
/// parcel follows in a queue whose capacity stays from lap to lap. Taken out, `first` goes
/// first and the queue then hands out the rest directly: each batch moves once.
pub(super) struct Parcel<T> {
    first: Option<T>,
    rest: VecDeque<T>,
}

impl<T> Parcel<T> {
    /// Room for `parcel` batches without allocating.
    pub(super) fn with_capacity(parcel: usize) -> Self {
        Self {
            first: None,
            rest: VecDeque::with_capacity(parcel - 1),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.first.is_none() && self.rest.is_empty()
    }

    fn push(&mut self, item: T) {
        if self.is_empty() {
            self.first = Some(item);
        } else {
            self.rest.push_back(item);
        }
    }

    pub(super) fn pop(&mut self) -> Option<T> {
        self.first.take().or_else(|| self.rest.pop_front())
    }
}

impl<T> Default for Parcel<T> {
    fn default() -> Self {
        Self {
            first: None,
            rest: VecDeque::new(),
        }
    }
}

impl<T> Extend<T> for Parcel<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        items.into_iter().for_each(|item| self.push(item));
    }
}

/// One place of the ring, on its own cache lines so that a producer filling one place does not
/// slow the consumer emptying the next.
struct Place<T> {
    /// `free(p)` or `full(p)` for the position `p` of the place's current lap, with the wait
    /// bits on top. Apart from the batches: producers waiting for room read the stamp over and
    /// over, which must not take the line from the consumer on each batch of a parcel.
    stamp: CachePadded<AtomicUsize>,
    /// The parcel at the place's position. Never contended in the common case: the producer
    /// writes before the stamp says so, and the consumer takes after. It is what lets a stop
    /// drop a batch exactly once. Its capacity (a parcel) stays from lap to lap.
    parcel: CachePadded<Mutex<Parcel<T>>>,
}

/// `capacity` places, each with room for a parcel made when the epoch starts.
pub(super) struct Ring<T> {
    places: Box<[Place<T>]>,
    capacity: usize,
}

impl<T> Ring<T> {
    pub(super) fn new(capacity: usize, parcel: usize) -> Self {
        Self {
            places: (0..capacity)
                .map(|i| Place {
                    stamp: CachePadded::new(AtomicUsize::new(free(i))),
                    parcel: CachePadded::new(Mutex::new(Parcel::with_capacity(parcel))),
                })
                .collect(),
            capacity,
        }
    }

    pub(super) fn capacity(&self) -> usize {
        self.capacity
    }

    fn place(&self, position: usize) -> &Place<T> {
        &self.places[position % self.capacity]
    }

    /// Where place `position` stands for `position`: `Equal` when it is free for it (room),
    /// `Less` while it still serves an earlier lap (no room), `Greater` if `position` was
    /// already pushed and taken (the caller's position is stale).
    pub(super) fn room_for(&self, position: usize) -> Compare {
        let stamp = self.place(position).stamp.load(Ordering::Acquire) & !WAIT_BITS;
        stamp.cmp(&free(position))
    }

    /// Whether position `position` is in its place.
    pub(super) fn holds(&self, position: usize) -> bool {
        self.place(position).stamp.load(Ordering::Acquire) & !WAIT_BITS == full(position)
    }

    /// Puts `items` into the empty place of `position`, without announcing them yet.
    pub(super) fn fill(&self, position: usize, items: impl Iterator<Item = T>) {
        let mut parcel = lock(&self.place(position).parcel);
        assert!(parcel.is_empty(), "a batch was pushed twice");
        parcel.extend(items);
    }

    /// Swaps `parcel` into the empty place of `position` (the place's empty parcel, with its
    /// room, comes back), without announcing it yet.
    pub(super) fn swap_in(&self, position: usize, parcel: &mut Parcel<T>) {
        let mut place = lock(&self.place(position).parcel);
        assert!(place.is_empty(), "a batch was pushed twice");
        mem::swap(&mut *place, parcel);
    }

    /// Announces the parcel just filled in for `position`; `true` if the consumer sleeps on it.
    pub(super) fn publish(&self, position: usize) -> bool {
        let stamp = self.place(position).stamp.fetch_add(FULL, Ordering::AcqRel);
        debug_assert_eq!(stamp & !WAIT_BITS, free(position));
        stamp & CONSUMER_WAITS != 0
    }

    /// Moves position `position` into `parcel` (empty), if it has arrived; `false` if not.
    /// Its place stays taken until [`Ring::release`]. One lock per parcel: the place gets the
    /// inbox's empty parcel and keeps its room for the next lap.
    pub(super) fn take(&self, position: usize, parcel: &mut Parcel<T>) -> bool {
        let place = self.place(position);
        if place.stamp.load(Ordering::Acquire) & !WAIT_BITS != full(position) {
            return false;
        }
        mem::swap(&mut *lock(&place.parcel), parcel);
        true
    }

    /// The consumer is done with `position`: its place is free for the next lap. `true` if a
    /// producer sleeps on it.
    pub(super) fn release(&self, position: usize) -> bool {
        let stamp = self
            .place(position)
            .stamp
            .swap(free(position + self.capacity), Ordering::AcqRel);
        stamp & PRODUCER_WAITS != 0
    }

    /// A read-modify-write on `position`'s stamp that changes nothing, ordered with the
    /// consumer's before it sleeps: `true` if the consumer sleeps (or is about to) on it.
    pub(super) fn consumer_waits_on(&self, position: usize) -> bool {
        self.place(position).stamp.fetch_or(0, Ordering::AcqRel) & CONSUMER_WAITS != 0
    }

    /// Marks `position` as awaited by the consumer; `true` if it already holds it (no sleep).
    pub(super) fn mark_consumer_waits(&self, position: usize) -> bool {
        let stamp = self
            .place(position)
            .stamp
            .fetch_or(CONSUMER_WAITS, Ordering::AcqRel);
        stamp & !WAIT_BITS == full(position)
    }

    /// Marks place `target` as awaited by a producer, unless it is already free for `target`
    /// (then `false`: no need to sleep). The bit goes only on a place of an earlier lap, so
    /// that the consumer's release of that lap is sure to see it and no stale bit is left.
    pub(super) fn mark_producer_waits(&self, target: usize) -> bool {
        let stamp = &self.place(target).stamp;
        let mut current = stamp.load(Ordering::Acquire);
        loop {
            if current & !WAIT_BITS >= free(target) {
                return false;
            }
            match stamp.compare_exchange_weak(
                current,
                current | PRODUCER_WAITS,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return true,
                Err(now) => current = now,
            }
        }
    }

    /// Drops what the place of `position` holds (a stopped epoch).
    pub(super) fn drop_at(&self, position: usize) {
        drop_contents(&self.place(position).parcel);
    }

    /// Drops every parcel in the ring (a stopped epoch).
    pub(super) fn drain(&self) {
        for place in self.places.iter() {
            drop_contents(&place.parcel);
        }
    }
}
