//! The consumer's side: its inbox, the overflow list beside the ring, and its takes.
//!
//! The consumer takes position after position: from its place in the ring, from the lead's
//! cell (`lead.rs`), or from the overflow, where a batch made on a helping thread waits when
//! there is no room (that thread must not wait for room: see [the channel's docs](super)). A
//! parcel taken is handed out batch by batch from the [`Inbox`] without touching the ring;
//! its place stays taken until the inbox is empty, so that the batches waiting for the
//! consumer, in the ring or its inbox, never exceed the capacity.

use super::ring::{lock, Parcel};
use super::{Channel, Maker, Recv, NO_CUT};
use foldex_core::exec::sync::{AtomicUsize, Mutex, Ordering};
use std::mem;

/// The consumer's own side of a [`Channel`]: the parcel it took, handed out batch by batch
/// without touching the ring.
pub struct Inbox<T> {
    /// What is left of the parcel at `position`, in order.
    pub(super) parcel: Parcel<T>,
    position: usize,
}

impl<T> Inbox<T> {
    /// An inbox with room for a parcel of `parcel` batches.
    pub fn with_capacity(parcel: usize) -> Self {
        Self {
            parcel: Parcel::with_capacity(parcel),
            position: 0,
        }
    }
}

impl<T> Default for Inbox<T> {
    fn default() -> Self {
        Self::with_capacity(1)
    }
}

/// Batches made on a helping thread while there was no room, with their positions (a parcel's
/// batches share one, in push order).
pub(super) struct Overflow<T> {
    items: Mutex<Vec<(usize, T)>>,
    /// `items.len()`, so that the consumer looks there only when something is in it.
    len: AtomicUsize,
}

impl<T> Overflow<T> {
    /// Rarely more than one parcel: reserved up front, so that the first parcel put aside
    /// allocates nothing mid-epoch.
    pub(super) fn new(parcel: usize) -> Self {
        Self {
            items: Mutex::new(Vec::with_capacity(4 * parcel)),
            len: AtomicUsize::new(0),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len.load(Ordering::Acquire) == 0
    }

    /// Whether position `position` waits here.
    pub(super) fn holds(&self, position: usize) -> bool {
        !self.is_empty() && lock(&self.items).iter().any(|(p, _)| *p == position)
    }

    fn put(&self, position: usize, items: impl Iterator<Item = T>) {
        let mut overflow = lock(&self.items);
        let before = overflow.len();
        overflow.extend(items.map(|item| (position, item)));
        self.len
            .fetch_add(overflow.len() - before, Ordering::Release);
    }

    /// Moves position `position`'s batches, in order, into `parcel`.
    fn take(&self, position: usize, parcel: &mut Parcel<T>) {
        if self.is_empty() {
            return;
        }
        let mut overflow = lock(&self.items);
        let before = overflow.len();
        parcel.extend(
            overflow
                .extract_if(.., |(p, _)| *p == position)
                .map(|(_, item)| item),
        );
        self.len
            .fetch_sub(before - overflow.len(), Ordering::Release);
    }

    /// Drops every batch here (a stopped epoch), outside the lock.
    pub(super) fn drain(&self) {
        let aside = mem::take(&mut *lock(&self.items));
        self.len.store(0, Ordering::Release);
        drop(aside);
    }
}

impl<T> Channel<T> {
    /// Keeps position `position` beside the ring: a helping thread made it, and there is no
    /// room.
    pub(super) fn put_aside(&self, position: usize, items: impl Iterator<Item = T>) {
        self.overflow.put(position, items);
        // Ordered with the consumer's read-modify-write on the stamp: the consumer, were it
        // about to sleep for `position`, sees the batch beside the ring or is woken. The
        // helping thread that made it need not be the consumer.
        if self.ring.consumer_waits_on(position) {
            self.waiters.wake_consumer();
        }
        if self.is_stopped() {
            self.overflow.drain();
        }
    }

    /// Whether position `position` is ready for the consumer, wherever it waits.
    pub(super) fn has_arrived(&self, position: usize) -> bool {
        self.ring.holds(position) || self.overflow.holds(position) || self.is_ahead(position)
    }

    /// Moves position `position` into `inbox`, if it has arrived; `false` if not.
    fn take_at(&self, position: usize, inbox: &mut Inbox<T>) -> bool {
        debug_assert!(inbox.parcel.is_empty());
        // Empty after a take only if a stop drained the place meanwhile.
        let taken = self.ring.take(position, &mut inbox.parcel)
            || (self.is_ahead(position) && self.take_ahead(position, inbox));
        if !taken {
            self.overflow.take(position, &mut inbox.parcel);
        }
        inbox.position = position;
        !inbox.parcel.is_empty()
    }

    /// The next batch in `inbox`; the last one frees its position's place for the next lap.
    #[inline]
    fn unpack(&self, inbox: &mut Inbox<T>) -> Option<T> {
        let item = inbox.parcel.pop()?;
        if inbox.parcel.is_empty() {
            self.release(inbox.position);
        }
        Some(item)
    }

    /// The consumer is done with position `position`: its place is free for the next lap.
    /// Once per parcel: kept out of [`Channel::unpack`]'s inlined path.
    #[inline(never)]
    fn release(&self, position: usize) {
        if self.ring.release(position) {
            self.waiters.wake_producers();
        }
        self.head.store(position + 1, Ordering::Release);
    }

    /// What the consumer gets once it has taken every batch below a failure's cut: the
    /// failure, once (`Empty` afterwards).
    fn cut_recv(&self) -> Recv<T> {
        lock(&self.waiters.lock)
            .take()
            .map_or(Recv::Empty, Recv::Failed)
    }

    /// What a stopped epoch gives the consumer: the failure, once.
    fn stopped_recv(&self, next: usize) -> Recv<T> {
        if let Some(failure) = lock(&self.waiters.lock).take() {
            Recv::Failed(failure)
        } else if next == self.total {
            Recv::Finished
        } else {
            Recv::Empty
        }
    }

    /// Takes the next batch if one is deliverable, without waiting; `inbox` is the consumer's
    /// (the same one for the whole epoch). Inlined into the consumer's loop: most takes hand
    /// out the next batch of the parcel in `inbox`, and only the others call the rest.
    #[inline]
    pub fn try_recv(&self, inbox: &mut Inbox<T>) -> Recv<T> {
        if self.is_stopped() {
            return self.stopped_recv(self.head.load(Ordering::Relaxed));
        }
        match self.unpack(inbox) {
            Some(item) => Recv::Item(item),
            None => self.try_take(inbox),
        }
    }

    /// [`Channel::try_recv`] once `inbox` is empty: the next position, or why there is none.
    #[inline(never)]
    fn try_take(&self, inbox: &mut Inbox<T>) -> Recv<T> {
        // Only the consumer changes it.
        let next = self.head.load(Ordering::Relaxed);
        let cut = self.cut.load(Ordering::Acquire);
        if self.ordered && next >= cut {
            return self.cut_recv();
        }
        if next == self.total {
            // Unordered, the failing parcel's batches before the failure may have been the
            // last position.
            return if cut == NO_CUT {
                Recv::Finished
            } else {
                self.cut_recv()
            };
        }
        if self.take_at(next, inbox) {
            return self.unpack(inbox).map_or(Recv::Empty, Recv::Item);
        }
        if self.closed.load(Ordering::Acquire) {
            // Every push happened before the close: look once more, now that all are visible.
            if self.is_stopped() {
                return self.stopped_recv(next);
            }
            return match self.take_at(next, inbox) {
                true => self.unpack(inbox).map_or(Recv::Empty, Recv::Item),
                // Unordered, every batch below the cut was taken: the failure comes now.
                false if self.cut.load(Ordering::Acquire) != NO_CUT => self.cut_recv(),
                false => Recv::Incomplete,
            };
        }
        Recv::Empty
    }

    /// Takes the next batch, waiting for it. While nothing is deliverable, `help` is called as
    /// long as it returns `true` and the consumer keeps no batch beside the ring (it would
    /// make none: see [`Channel::should_skip`], and a help that makes nothing may still use
    /// up a piece of the executor's job); then the consumer sleeps until a batch, a failure
    /// or the end arrives.
    pub fn recv(&self, inbox: &mut Inbox<T>, mut help: impl FnMut() -> bool) -> Recv<T> {
        self.wake_sleepers();
        loop {
            match self.try_recv(inbox) {
                Recv::Empty => {}
                other => return other,
            }
            if !self.overflow.is_empty() || !self.help_as_consumer(&mut help) {
                break;
            }
        }
        loop {
            match self.try_recv(inbox) {
                Recv::Empty => {}
                other => return other,
            }
            self.sleep_for_next(None);
        }
    }

    /// Takes the next batch, waiting for it until `deadline` (`None`: a deadline too far to
    /// name), without helping (a timed wait must not run a piece that could itself never
    /// return); `None` once `deadline` has passed with nothing deliverable. The sleep ends at
    /// the deadline, so the consumer wakes within it plus one reading of the clock.
    pub fn recv_until(
        &self,
        inbox: &mut Inbox<T>,
        deadline: Option<std::time::Instant>,
    ) -> Option<Recv<T>> {
        self.wake_sleepers();
        loop {
            match self.try_recv(inbox) {
                Recv::Empty => {}
                other => return Some(other),
            }
            if deadline.is_some_and(|deadline| std::time::Instant::now() >= deadline) {
                return None;
            }
            self.sleep_for_next(deadline);
        }
    }

    /// Runs `help` with this thread noted as the consumer that helps (see [`Channel::maker`]).
    fn help_as_consumer(&self, help: &mut impl FnMut() -> bool) -> bool {
        struct Done<'c>(&'c std::sync::atomic::AtomicUsize);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.store(0, std::sync::atomic::Ordering::Relaxed);
            }
        }
        self.helping_consumer
            .store(this_thread(), std::sync::atomic::Ordering::Relaxed);
        let _done = Done(&self.helping_consumer);
        help()
    }

    /// Who makes a batch on this thread now: the consumer if it runs inside [`Channel::recv`]'s
    /// `help` (whatever the executor says), else a helper if the executor runs the piece while
    /// the thread waits for something below it on its stack (`waiting`), else a producer.
    pub fn maker(&self, waiting: bool) -> Maker {
        if self
            .helping_consumer
            .load(std::sync::atomic::Ordering::Relaxed)
            == this_thread()
        {
            Maker::Consumer
        } else if waiting {
            Maker::Helper
        } else {
            Maker::Producer
        }
    }
}

std::thread_local! {
    /// A byte per thread, whose address names the thread while it lives (no lock, no
    /// allocation, unlike a `ThreadId` behind a mutex).
    pub(super) static THIS_THREAD: u8 = const { 0 };
}

/// The address of this thread's [`THIS_THREAD`]: distinct from every other living thread's.
fn this_thread() -> usize {
    THIS_THREAD.with(|byte| std::ptr::from_ref(byte) as usize)
}
