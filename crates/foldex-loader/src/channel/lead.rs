//! The ordered lead: how ordered parcels are made before their place frees.
//!
//! Ordered, a parcel has one place, and the consumer needs exactly that parcel next, so a
//! producer that held it in hand while waiting for the place would make the consumer wait
//! whenever that producer lost its core (with the default executor there is one thread more
//! than cores). So one producer at a time, the one holding the *lead* ([`Channel::lead`]), makes
//! its parcel without waiting for room and hands it over with [`Channel::push_ahead`]: into its
//! place if there is room, else into a cell beside the ring ([`Ahead`]). It then polls for the
//! place and moves the parcel in as it frees; if it is not there to, the consumer takes the
//! parcel from the cell itself. The lead stays taken while its parcel is in the cell, so one
//! parcel at most waits beyond the window. The other producers wait for room before they take
//! a ticket, as with single batches.

use super::ring::{drop_contents, lock, Parcel};
use super::{Channel, Inbox};
use crossbeam_utils::CachePadded;
use foldex_core::exec::sync::{AtomicBool, AtomicUsize, Mutex, Ordering};
use std::cmp::Ordering as Compare;
use std::mem;

/// The lead and the cell beside the ring where its parcel waits for room.
pub(super) struct Ahead<T> {
    /// A producer holds the lead, or its parcel waits in the cell.
    taken: CachePadded<AtomicBool>,
    /// `p + 1` while the lead's parcel `p` waits in `parcel`, else 0. Changed under `parcel`.
    position: CachePadded<AtomicUsize>,
    parcel: CachePadded<Mutex<Parcel<T>>>,
}

impl<T> Ahead<T> {
    pub(super) fn new(parcel: usize) -> Self {
        Self {
            taken: CachePadded::new(AtomicBool::new(false)),
            position: CachePadded::new(AtomicUsize::new(0)),
            parcel: CachePadded::new(Mutex::new(Parcel::with_capacity(parcel))),
        }
    }

    /// Whether the lead's parcel `position` waits in the cell.
    pub(super) fn holds(&self, position: usize) -> bool {
        self.position.load(Ordering::Acquire) == position + 1
    }

    /// Drops the parcel in the cell (a stopped epoch).
    pub(super) fn drain(&self) {
        drop_contents(&self.parcel);
    }
}

/// The lead of an ordered epoch in parcels, given back when dropped (see [`Channel::lead`]).
pub struct Lead<'c>(&'c AtomicBool);

impl Drop for Lead<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl<T> Channel<T> {
    /// Ordered parcels only: the lead, if no other producer holds it and no parcel made ahead
    /// still waits for room. Its holder takes a ticket without waiting for room first
    /// ([`Channel::should_skip`] is not asked), makes the parcel, and hands it over with
    /// [`Channel::push_ahead`], which never leaves the consumer waiting for this thread.
    /// `None` for single batches and unordered parcels.
    pub fn lead(&self) -> Option<Lead<'_>> {
        let taken = &self.ahead.taken;
        // A plain load first: the lead changes hands once per parcel, and a failed attempt
        // would take the line from its holder.
        if !(self.parcels && self.ordered)
            || taken.load(Ordering::Relaxed)
            || taken
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return None;
        }
        Some(Lead(taken))
    }

    /// Hands over the lead's parcel `seq` (see [`Channel::lead`]) without making the consumer
    /// depend on this thread: into its place if there is room, else into the cell beside the
    /// ring (see the module docs). Returns the batches if they will never be delivered
    /// ([`Channel::drops`]).
    pub fn push_ahead<I: Iterator<Item = T>>(
        &self,
        seq: usize,
        items: I,
        lead: Lead<'_>,
    ) -> Result<(), I> {
        debug_assert!(self.parcels && self.ordered);
        if self.drops(seq) {
            return Err(items);
        }
        match self.ring.room_for(seq) {
            Compare::Equal => {
                self.put(seq, items);
                return Ok(());
            }
            Compare::Greater => panic!("a batch was pushed twice"),
            Compare::Less => {}
        }
        {
            let mut cell = lock(&self.ahead.parcel);
            cell.extend(items);
            self.ahead.position.store(seq + 1, Ordering::Release);
        }
        // From here the lead is the parcel's: whoever moves it on gives the lead back.
        mem::forget(lead);
        // Ordered with the consumer's read-modify-write on the stamp: the consumer, were it
        // about to sleep for `seq`, sees the parcel beside the ring or is woken.
        if self.ring.consumer_waits_on(seq) {
            self.waiters.wake_consumer();
        }
        if self.is_stopped() {
            // The stop may have emptied the cell before this parcel arrived: drop it now.
            self.ahead.drain();
            return Ok(());
        }
        // Wait for the place, to put the parcel in it the moment it frees; the consumer takes
        // it from the cell if this thread is not there to (it polled too long, or lost its core).
        let mut backoff = self.backoff();
        loop {
            if !self.ahead.holds(seq) || self.drops(seq) {
                return Ok(());
            }
            if self.ring.room_for(seq) != Compare::Less {
                break;
            }
            if !backoff.snooze() {
                return Ok(());
            }
        }
        {
            let mut cell = lock(&self.ahead.parcel);
            if self.ahead.position.load(Ordering::Relaxed) != seq + 1 {
                return Ok(());
            }
            self.ahead.position.store(0, Ordering::Relaxed);
            // The place's empty parcel, with its room, stays for the next one made ahead.
            self.ring.swap_in(seq, &mut cell);
        }
        self.publish(seq);
        self.ahead.taken.store(false, Ordering::Release);
        Ok(())
    }

    /// Whether the lead's parcel `position` waits beside the ring.
    pub(super) fn is_ahead(&self, position: usize) -> bool {
        self.ahead.holds(position)
    }

    /// Moves the lead's parcel `position` from beside the ring into `inbox`, and gives the
    /// lead back; `false` if its producer moved it into the ring meanwhile.
    pub(super) fn take_ahead(&self, position: usize, inbox: &mut Inbox<T>) -> bool {
        let mut cell = lock(&self.ahead.parcel);
        if self.ahead.position.load(Ordering::Relaxed) != position + 1 {
            return false;
        }
        self.ahead.position.store(0, Ordering::Relaxed);
        mem::swap(&mut *cell, &mut inbox.parcel);
        drop(cell);
        self.ahead.taken.store(false, Ordering::Release);
        true
    }
}
