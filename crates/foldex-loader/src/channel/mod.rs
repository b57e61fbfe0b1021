//! The bounded channel between the producers of an epoch and its one consumer.
//!
//! Every batch of an epoch has a sequence number (`0..total`). Producers push finished
//! batches; the consumer takes them out in sequence order (`ordered`) or first-finished-first-out.
//! The channel holds the whole protocol of an epoch, so that the loom tests check all of it.
//! One mechanism per file:
//!
//! - `ring.rs`: the places where finished batches wait, and the stamps that say, per place,
//!   which position it is free for or holds;
//! - `waiting.rs`: polling, sleeping and waking, through bits in those stamps;
//! - `lead.rs`: the ordered lead, which makes an ordered parcel before its place frees;
//! - `inbox.rs`: the consumer's side, with the overflow list for batches made while helping.
//!
//! **Positions.** Each pushed batch gets a *position*, the order in which the consumer takes
//! it: its sequence number when ordered, the order of arrival (a counter) when not. Position
//! `p` waits in place `p % capacity` of the ring. A push is one short, uncontended lock of the
//! place's cell and one add to its stamp; a take the same and one swap.
//!
//! **Parcels.** A push may carry several consecutive batches at one position (a *parcel*,
//! [`Channel::push_all`]): they share the place, its stamp and its cache lines, and the
//! consumer takes them one by one, freeing the place with the last. Then "batch" below reads
//! "parcel": positions, the capacity and the sequence numbers count parcels. With cheap items,
//! the cache lines that move between cores per batch, not the work, bound the throughput; a
//! parcel of `k` moves them once per `k` batches. A parcel must be made before its place frees,
//! off the consumer's path: unordered, a producer takes its ticket without waiting for room,
//! makes the parcel and waits with it in hand for whichever place frees first; ordered, the
//! lead does (`lead.rs`).
//!
//! **Back pressure.** A push of position `p` waits while `p >= delivered + capacity` (place `p`
//! is not yet free for it), where `delivered` is the position the consumer needs next; so at
//! most `capacity` finished batches wait, in the ring or (ordered) the reorder window.
//! Producers that wait before they take a batch number ([`Channel::should_skip`]) hold no
//! batch: single batches leave the polling to one of them and the others sleep until half the
//! room is free, so that a wake-up refills several places rather than one; the consumer wakes
//! every sleeper whenever it runs dry. With parcels every producer polls, since room comes back
//! within the polling time. A producer that holds a finished batch sleeps only until the place
//! it needs is free.
//!
//! **Helping.** The consumer may lend its thread to the executor ([`Channel::recv`] calls
//! `help`), and so may a pool worker that waits for a fold nested in a batch ([`Maker`]; the
//! executor says so through `Job::run_while_waiting`, and the channel knows its consumer's
//! thread while it helps, whatever the executor says). A
//! batch made on such a thread must not wait for room: the consumer is the thread that makes
//! room, and the worker's waiting frame sits below it on its stack. It goes to the overflow
//! beside the ring instead (`inbox.rs`). The consumer makes a batch only when it has nothing to
//! deliver, and, when there is no room, only if the overflow is empty; so it helps even when no
//! place can free before it has the next batch (an ordered buffer smaller than the producers),
//! and the overshoot stays bounded: at most `capacity` batches wait in the ring, plus the
//! consumer's one beside it, plus, with ordered parcels, the lead's parcel in its cell. Other
//! helping threads make a batch only into room.
//!
//! **Why an epoch cannot deadlock.** Producers take batch numbers in sequence order (tickets,
//! see `epoch.rs`), whatever order the executor runs its pieces in. So every batch below a
//! producer's is finished, or being made by a thread that will push it. Position `delivered`,
//! the one the consumer needs, always has room (back pressure waits only for positions at or
//! beyond `delivered + capacity`), so its maker never waits; and a thread that helps never
//! waits for room at all. Hence the consumer's next batch is always on its way, each take frees
//! a place and wakes who sleeps on it, and the producers cannot all be stuck. No one waits for
//! a helping thread: `Executor::help` runs one piece whole and never waits on other threads.
//!
//! **Stopping.** [`Channel::cancel`] (the consumer went away) and [`Channel::fail`] (a panic
//! outside any batch: the executor's) stop the epoch: every waiting producer wakes and drops
//! its batch, and batches still buffered are dropped. A push that lands after the stop drops
//! its own batch. The consumer learns that the epoch is over when every batch was delivered,
//! or, if producers stopped before that (an executor that skipped indices), from
//! [`Channel::close`].
//!
//! **A batch that panicked.** [`Channel::fail_from`] records the failure with its *cut*, the
//! first sequence number that will not be delivered (the failing batch's, or the one after it
//! when the batches of its parcel before the failing one are pushed). The epoch does not stop:
//! no producer takes a new batch number (every number below the cut is already taken, since
//! numbers are taken in order), batches at or beyond the cut are dropped (their makers stop at
//! their next item, their pushes are refused, their waits for room end), and batches below it
//! are made, pushed and delivered as usual. The consumer receives the failure once it has
//! taken every batch below the cut: ordered, when its next position reaches the cut; unordered,
//! once the producers have finished ([`Channel::close`]) and nothing is left to take, so that
//! batches beyond the cut that were pushed before the failure may come first. The failure of
//! an earlier batch replaces a later one, with its cut: the consumer receives the failure of
//! the earliest failing batch, as a sequential epoch would.

mod inbox;
mod lead;
mod ring;
#[cfg(all(test, not(loom)))]
mod tests;
mod waiting;

pub use self::inbox::Inbox;
pub use self::lead::Lead;
pub(crate) use self::ring::MAX_BATCHES;
pub use crate::failure::Failure;

use self::inbox::Overflow;
use self::lead::Ahead;
use self::ring::{lock, Ring};
use self::waiting::Waiters;
use crossbeam_utils::CachePadded;
use foldex_core::exec::sync::{AtomicBool, AtomicUsize, Ordering};
use std::cmp::Ordering as Compare;

/// The most places a loader's buffer has: they are made when an epoch starts (two cache lines
/// each), so a buffer larger than this is refused for an epoch with more batches than this.
/// An epoch with fewer batches has as many places as batches, whatever the buffer.
pub const MAX_BUFFER: usize = 1 << 16;

/// The cut of an epoch that nothing failed in: no sequence number (or batch rank) reaches it.
const NO_CUT: usize = usize::MAX;

/// What the consumer gets from [`Channel::recv`] or [`Channel::try_recv`].
#[derive(Debug)]
pub enum Recv<T> {
    /// The next batch.
    Item(T),
    /// Nothing deliverable yet (only from `try_recv`).
    Empty,
    /// Every batch of the epoch was delivered.
    Finished,
    /// A producer panicked, and every batch before the failing one was delivered (see the
    /// module docs); the earliest failure only.
    Failed(Failure),
    /// The producers finished without pushing every batch: the executor skipped indices.
    Incomplete,
}

/// Which thread asks [`Channel::should_skip`] whether to make a batch now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Maker {
    /// A producer: it may wait for room.
    Producer,
    /// A thread that helps while it waits for something below it on its own stack (a pool
    /// worker waiting for a fold nested in a batch): it must not wait for room, which may come
    /// only once that frame resumes, so it makes a batch only into room.
    Helper,
    /// The consumer, helping while it waits for a batch: it must not wait either (it is the
    /// thread that makes room), and may keep one batch beyond the window.
    Consumer,
}

/// A bounded, cancellable channel with an optional reorder window. See the module docs.
pub struct Channel<T> {
    ring: Ring<T>,
    /// The next position the consumer takes, i.e. the batches delivered. Only the consumer
    /// writes it; producers never read it on their common path.
    head: CachePadded<AtomicUsize>,
    /// Unordered: the next position to hand out.
    tail: CachePadded<AtomicUsize>,
    overflow: Overflow<T>,
    ahead: Ahead<T>,
    waiters: Waiters,
    /// The producers have stopped, by cancellation or failure. Set under `waiters.lock`.
    stopped: AtomicBool,
    /// The first sequence number that a failure keeps from the consumer, or [`NO_CUT`]. Set
    /// under `waiters.lock`, with the failure it belongs to.
    cut: CachePadded<AtomicUsize>,
    /// The rank in the epoch of the batch whose failure `waiters.lock` holds, or [`NO_CUT`].
    /// Read and written under that lock only.
    failed_rank: AtomicUsize,
    /// No more pushes will come.
    closed: AtomicBool,
    ordered: bool,
    total: usize,
    /// Batches travel in parcels, which they do only when they are cheap.
    parcels: bool,
    /// Batches are cheap (in parcels or not): waiting threads poll longer before they sleep.
    patient: bool,
    /// The consumer's thread while it helps inside [`Channel::recv`], as the address of its
    /// [`inbox::THIS_THREAD`] (0 otherwise; see [`Channel::maker`]). Only the consumer writes
    /// it, and a thread only asks whether it holds its own address, so no ordering is needed
    /// beyond the thread's own.
    helping_consumer: std::sync::atomic::AtomicUsize,
}

impl<T> Channel<T> {
    /// A channel for `total` batches that holds at most `capacity` finished ones (`capacity >= 1`).
    #[cfg(any(test, loom))]
    pub fn new(capacity: usize, ordered: bool, total: usize) -> Self {
        Self::with_parcels(capacity, 1, ordered, total)
    }

    /// A channel for `total` parcels of up to `parcel` batches each (see [`Channel::push_all`])
    /// that holds at most `capacity` parcels. The room for them is made here, so that the
    /// epoch allocates nothing in the channel afterwards.
    pub fn with_parcels(capacity: usize, parcel: usize, ordered: bool, total: usize) -> Self {
        assert!(
            capacity >= 1 && parcel >= 1,
            "a loader channel needs room for at least one batch"
        );
        assert!(
            total <= MAX_BATCHES && capacity <= MAX_BATCHES,
            "a loader channel numbers at most {MAX_BATCHES} positions and places"
        );
        Self {
            ring: Ring::new(capacity, parcel),
            head: CachePadded::new(AtomicUsize::new(0)),
            tail: CachePadded::new(AtomicUsize::new(0)),
            overflow: Overflow::new(parcel),
            ahead: Ahead::new(parcel),
            waiters: Waiters::new(),
            stopped: AtomicBool::new(false),
            cut: CachePadded::new(AtomicUsize::new(NO_CUT)),
            failed_rank: AtomicUsize::new(NO_CUT),
            closed: AtomicBool::new(false),
            ordered,
            total,
            parcels: parcel > 1,
            patient: parcel > 1,
            helping_consumer: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Whether waiting threads poll longer before they sleep: the batches are cheap. Parcels
    /// imply it; this says it of cheap batches that travel one by one.
    pub fn patient(mut self, patient: bool) -> Self {
        self.patient = patient;
        self
    }

    /// `true` once the epoch is cancelled or failed: producers should stop.
    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    /// `true` once no batch beyond those already taken is needed: the epoch is stopped, or a
    /// batch failed ([`Channel::fail_from`]). Producers take no new batch number then.
    pub fn is_stopping(&self) -> bool {
        self.is_stopped() || self.cut.load(Ordering::Acquire) != NO_CUT
    }

    /// `true` if batch `seq` will never be delivered: the epoch is stopped, or a failure cut
    /// the epoch at or before it. Its maker may drop it.
    pub fn drops(&self, seq: usize) -> bool {
        self.is_stopped() || seq >= self.cut.load(Ordering::Acquire)
    }

    /// The next position a producer would take: its own batch number when ordered.
    fn next_position(&self, seq: usize) -> usize {
        if self.ordered {
            seq
        } else {
            self.tail.load(Ordering::Relaxed)
        }
    }

    /// Pushes batch `seq`, waiting while there is no room for it (unless `wait` is false: a
    /// helping thread's batch). Returns the batch if it will never be delivered
    /// ([`Channel::drops`]), so that the caller drops it.
    #[cfg(any(test, loom))]
    pub fn push(&self, seq: usize, item: T, wait: bool) -> Result<(), T> {
        self.push_all(seq, std::iter::once(item), wait)
            .map_err(|mut once| once.next().expect("a stopped push hands its batch back"))
    }

    /// Pushes parcel `seq`: `items`, which take one place of the ring together and reach the
    /// consumer one by one, in order, from one take of the place (the consumer's next position
    /// stays on the parcel until its last batch is taken). Waits as [`Channel::push`] does;
    /// returns the batches, not yet moved, if they will never be delivered.
    pub fn push_all<I: Iterator<Item = T>>(
        &self,
        seq: usize,
        items: I,
        wait: bool,
    ) -> Result<(), I> {
        loop {
            if self.drops(seq) {
                return Err(items);
            }
            // Unordered, a producer takes a position only once there is room for it, so that
            // no sleeping producer holds a position the consumer needs next.
            let position = self.next_position(seq);
            match self.ring.room_for(position) {
                Compare::Equal => {
                    if !self.ordered
                        && self
                            .tail
                            .compare_exchange_weak(
                                position,
                                position + 1,
                                Ordering::Relaxed,
                                Ordering::Relaxed,
                            )
                            .is_err()
                    {
                        continue;
                    }
                    self.put(position, items);
                    return Ok(());
                }
                Compare::Greater => {
                    assert!(!self.ordered, "a batch was pushed twice");
                    continue;
                }
                Compare::Less => {}
            }
            if !wait {
                let position = if self.ordered {
                    seq
                } else {
                    self.tail.fetch_add(1, Ordering::Relaxed)
                };
                self.put_aside(position, items);
                return Ok(());
            }
            // This producer holds a finished batch: it stays awake as long as it may, and sleeps
            // only until the very place it needs is free (ordered, the consumer will need this
            // batch; unordered, any free place will do).
            let position = || self.next_position(seq);
            self.wait_for_room(position, |position| position, false, || self.drops(seq));
        }
    }

    /// Puts position `position` into its place (there is room for it) and announces it.
    fn put(&self, position: usize, items: impl Iterator<Item = T>) {
        self.ring.fill(position, items);
        self.publish(position);
    }

    /// Announces the batches just put in the place of `position`, waking the consumer if it
    /// sleeps on it.
    fn publish(&self, position: usize) {
        if self.ring.publish(position) {
            self.waiters.wake_consumer();
        }
        if self.is_stopped() {
            // The stop may have emptied the ring before this parcel arrived: drop it now.
            self.ring.drop_at(position);
        }
    }

    /// Whether `maker` should leave batch `seq` to a later round instead of computing it now.
    ///
    /// A helping thread skips if a batch is ready, so that the consumer goes back to
    /// delivering, and if there is no room, unless it is the consumer and keeps no batch beside
    /// the ring yet. A producer never skips; but one that finds no room for the position it
    /// would push to (`seq` itself when ordered, the next arrival when not) waits here first,
    /// before it takes a batch number, so that it may sleep without the consumer ever waiting
    /// for it. Unordered parcels are made at once (see the module docs).
    pub fn should_skip(&self, seq: usize, maker: Maker) -> bool {
        if maker == Maker::Producer {
            if self.parcels && !self.ordered {
                return false;
            }
            let position = || self.next_position(seq);
            if self.ring.room_for(position()) == Compare::Less {
                self.wait_for_room(
                    position,
                    |p| self.refill_target(p),
                    !self.parcels,
                    || self.is_stopping(),
                );
            }
            return false;
        }
        let next = self.head.load(Ordering::Relaxed);
        let keeps_one = || maker == Maker::Helper || !self.overflow.is_empty();
        (next < self.total && self.has_arrived(next))
            || (self.ring.room_for(self.next_position(seq)) == Compare::Less && keeps_one())
    }

    /// Stops the epoch (under `waiters.lock`, which the caller holds) and wakes everyone.
    fn stop(&self) {
        self.stopped.store(true, Ordering::Release);
        self.waiters.wake_all_locked();
    }

    /// Drops the buffered batches of a stopped epoch.
    fn drain(&self) {
        self.ring.drain();
        self.overflow.drain();
        self.ahead.drain();
    }

    /// The consumer went away: producers stop, waiting ones wake, buffered batches are dropped.
    pub fn cancel(&self) {
        {
            let _guard = lock(&self.waiters.lock);
            self.stop();
        }
        self.drain();
    }

    /// A panic outside any batch (the executor's): the epoch stops and the consumer receives
    /// `failure` from its next `recv`, unless an earlier failure is there first; the later one
    /// is dropped, payload and index together.
    pub fn fail(&self, failure: Failure) {
        let late = {
            let mut first = lock(&self.waiters.lock);
            let late = if self.stopped.load(Ordering::Relaxed) || first.is_some() {
                Some(failure)
            } else {
                *first = Some(failure);
                None
            };
            self.stop();
            late
        };
        drop(late);
        self.drain();
    }

    /// The `rank`-th batch of the epoch panicked, in parcel `cut` (the first batch of its
    /// parcel) or in parcel `cut - 1` (a later one, whose batches before it are pushed as that
    /// parcel): the consumer receives `failure` once it has taken every batch below `cut`, and
    /// the batches from `cut` on are dropped (see the module docs). The failure of an earlier
    /// batch (a lower `rank`) replaces it; one of a later batch, or one after a stop, is
    /// dropped.
    pub fn fail_from(&self, cut: usize, rank: usize, failure: Failure) {
        let late = {
            let mut first = lock(&self.waiters.lock);
            let current = self.failed_rank.load(Ordering::Relaxed);
            // `first` is empty after a failure once the consumer has taken it.
            let taken = current != NO_CUT && first.is_none();
            let late = if self.stopped.load(Ordering::Relaxed) || current <= rank || taken {
                Some(failure)
            } else {
                let replaced = first.replace(failure);
                self.failed_rank.store(rank, Ordering::Relaxed);
                self.cut.store(cut, Ordering::Release);
                replaced
            };
            // Producers that wait for room or for the next batch number look again, and so
            // does a consumer that sleeps on the cut.
            self.waiters.wake_all_locked();
            late
        };
        drop(late);
    }

    /// No more pushes will come (the producers' fold returned).
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.waiters.wake_consumer();
    }
}
