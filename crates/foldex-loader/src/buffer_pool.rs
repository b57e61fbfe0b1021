//! Buffer reuse: a pool of batch buffers that producers fill in place and the consumer hands
//! back by dropping a guard.
//!
//! The classic way to reuse buffers (MLUtils' `buffer = true`) hands the consumer a reference
//! into a buffer that the loader overwrites on the next iteration, so a batch kept a little
//! longer silently changes under the consumer's feet. Here the consumer gets a [`Reused`] guard
//! that owns its buffer; the buffer goes back to the pool only when the guard is dropped. While
//! the consumer holds guards, producers find fewer free buffers and wait: holding a batch longer
//! slows loading down instead of corrupting the batch.
//!
//! **No hang.** A producer takes its buffer *before* it takes a batch number, so the batch the
//! consumer needs next always has one. The one state without progress is a consumer that holds
//! so many guards that no buffer is left for anyone while it waits for the next batch; it then
//! grows the pool by one buffer ([`BufferPool::ensure_progress`]) rather than waiting forever.
//!
//! **Byte cap.** Under [`Loader::max_buffer_bytes`](crate::Loader::max_buffer_bytes) a buffer
//! handed back stays only while its batch fits beside the bytes the epoch holds, and counts
//! among them while it waits to be reused (`byte_gate.rs`); otherwise it is freed.

use crate::blocked::note_blocked;
use crate::byte_gate::{ByteGate, Measure};
use std::collections::VecDeque;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

impl<I, B: Default> Default for BatchBuffers<I, B> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            batch: B::default(),
        }
    }
}

/// The reusable buffers of one batch: one per observation, and the collated batch.
#[derive(Debug)]
pub(crate) struct BatchBuffers<I, B> {
    /// Buffers for the batch's observations, filled with `Dataset::get_into`.
    pub items: Vec<I>,
    /// The batch, filled with `Collate::collate_into`.
    pub batch: B,
}

struct Stock<I, B> {
    /// First freed, first reused: every buffer takes its turn, so after a warm-up all of them
    /// have grown to their working size. Its capacity grows with `allocated`, when a buffer is
    /// created, never in proportion to the budget: handing a buffer back never allocates.
    /// Each with the bytes the byte cap counts for it (0 without a cap).
    free: VecDeque<(BatchBuffers<I, B>, usize)>,
    /// Buffers in existence (free, being filled, buffered, or held by the consumer).
    allocated: usize,
    /// How many buffers may exist.
    budget: usize,
    /// Producers waiting for a buffer: a guard hands its buffer back without a wake-up (a
    /// system call) when nobody waits.
    waiting: usize,
    /// The current epoch's byte cap, and how a batch is measured for it.
    bytes: Option<(Arc<ByteGate>, Measure<B>)>,
}

/// The buffer pool of a loader. See the module docs.
pub(crate) struct BufferPool<I, B> {
    state: Mutex<Stock<I, B>>,
    freed: Condvar,
    /// Dropped guards hand their buffers back (else they free them).
    recycle: bool,
}

impl<I, B: Default> BufferPool<I, B> {
    /// A pool of at most `budget` buffers, created as needed; with `recycle` false, a dropped
    /// guard frees its buffer rather than handing it back (the budget still bounds them).
    pub fn new(budget: usize, recycle: bool) -> Self {
        Self {
            state: Mutex::new(Stock {
                free: VecDeque::new(),
                allocated: 0,
                budget,
                waiting: 0,
                bytes: None,
            }),
            freed: Condvar::new(),
            recycle,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Stock<I, B>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A free buffer (a fresh, empty one while the pool is below its budget), waiting while
    /// there is none and `may_wait()` says a wait is allowed; `None` if none is free and
    /// waiting is not allowed, or the epoch is over.
    pub fn acquire(self: &Arc<Self>, mut may_wait: impl FnMut() -> bool) -> Option<Reused<I, B>> {
        let mut s = self.lock();
        let mut waiting_since = None::<Instant>;
        let buffers = loop {
            if let Some((buffers, size)) = s.free.pop_front() {
                if let Some((gate, _)) = &s.bytes {
                    gate.unpool(size);
                }
                break buffers;
            }
            if s.allocated < s.budget {
                s.allocated += 1;
                // Room to take every buffer back, made while one is created anyway.
                let room = s.allocated - s.free.len();
                s.free.reserve(room);
                break BatchBuffers::default();
            }
            if !may_wait() {
                drop(s);
                if let Some(since) = waiting_since {
                    note_blocked(since);
                }
                return None;
            }
            waiting_since.get_or_insert_with(Instant::now);
            // Every change that `may_wait` or a free buffer depends on is made, or announced
            // (`wake_all`), under the lock this wait releases: no wake-up is lost.
            s.waiting += 1;
            s = self.freed.wait(s).unwrap_or_else(|e| e.into_inner());
            s.waiting -= 1;
        };
        drop(s);
        if let Some(since) = waiting_since {
            note_blocked(since);
        }
        Some(Reused {
            buffers: Some(buffers),
            pool: Arc::clone(self),
        })
    }

    /// Called by the consumer before it waits for a batch it did not find: if every buffer
    /// is out, the consumer may hold them all, and nothing could ever be delivered. Grow the
    /// pool by one.
    ///
    /// Checked from the consumer alone, this cannot miss: a buffer that is not held by the
    /// consumer is free, being filled, or in the channel, and each of those reaches the
    /// consumer without its help. When a buffer is out for another reason (filled, ordered,
    /// behind the batch the consumer needs next), the growth is one spare buffer, never needed
    /// again: there are `buffer + producers + 2` buffers, and growth stops once there are more
    /// than ever are out at once.
    pub fn ensure_progress(&self) {
        let mut s = self.lock();
        if s.free.is_empty() && s.allocated >= s.budget {
            s.budget += 1;
            drop(s);
            self.freed.notify_all();
        }
    }

    /// Counts the free buffers under `bytes`, the byte cap of the epoch that starts (freeing
    /// those that do not fit), and the buffers handed back from now on.
    pub fn cap_bytes(&self, bytes: Option<(Arc<ByteGate>, Measure<B>)>) {
        let mut s = self.lock();
        if let Some((gate, _)) = &bytes {
            let before = s.free.len();
            s.free.retain(|(_, size)| gate.keep_pooled(*size));
            s.allocated -= before - s.free.len();
        }
        s.bytes = bytes;
    }

    /// Makes room for at least `budget` buffers (a loader's settings decide it per epoch).
    pub fn reserve(&self, budget: usize) {
        let mut s = self.lock();
        s.budget = s.budget.max(budget);
    }

    /// An epoch is over, or needs no new batch (one failed): its waiting producers look at
    /// their `may_wait` again, now. Under the lock, so that a producer that found `may_wait`
    /// true before the change is already waiting.
    pub fn wake_all(&self) {
        let _s = self.lock();
        self.freed.notify_all();
    }

    /// How many buffers exist.
    #[cfg(test)]
    pub fn allocated(&self) -> usize {
        self.lock().allocated
    }
}

/// A batch whose buffers go back to the loader's pool when it is dropped; from a loader with
/// [`reuse_buffers(true)`](crate::Loader::reuse_buffers). Dereferences to the batch.
///
/// Keep it as long as needed: its buffers are not reused before it is dropped. Holding many
/// guards at once makes producers wait for free buffers (and, if the consumer holds them all,
/// the pool grows by one rather than hang).
pub struct Reused<I, B> {
    buffers: Option<BatchBuffers<I, B>>,
    pool: Arc<BufferPool<I, B>>,
}

impl<I, B> Reused<I, B> {
    fn buffers(&self) -> &BatchBuffers<I, B> {
        self.buffers
            .as_ref()
            .expect("a guard holds its buffers until dropped")
    }

    pub(crate) fn buffers_mut(&mut self) -> &mut BatchBuffers<I, B> {
        self.buffers
            .as_mut()
            .expect("a guard holds its buffers until dropped")
    }
}

impl<I, B> Deref for Reused<I, B> {
    type Target = B;
    fn deref(&self) -> &B {
        &self.buffers().batch
    }
}

impl<I, B> DerefMut for Reused<I, B> {
    fn deref_mut(&mut self) -> &mut B {
        &mut self.buffers_mut().batch
    }
}

impl<I, B: fmt::Debug> fmt::Debug for Reused<I, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Reused")
            .field(&self.buffers().batch)
            .finish()
    }
}

impl<I, B> Drop for Reused<I, B> {
    fn drop(&mut self) {
        if let Some(buffers) = self.buffers.take() {
            // Buffers filled halfway by a producer that panicked comes back too: its buffers
            // are overwritten before they are read again.
            let mut s = self.pool.state.lock().unwrap_or_else(|e| e.into_inner());
            let size = s
                .bytes
                .as_ref()
                .filter(|_| self.pool.recycle)
                .map(|(gate, measure)| {
                    let size = measure(&buffers.batch);
                    (gate.keep_pooled(size), size)
                });
            let freed = if self.pool.recycle && size.is_none_or(|(kept, _)| kept) {
                s.free
                    .push_back((buffers, size.map_or(0, |(_, size)| size)));
                None
            } else {
                s.allocated -= 1;
                Some(buffers)
            };
            let wake = s.waiting > 0;
            drop(s);
            if wake {
                self.pool.freed.notify_one();
            }
            drop(freed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread;
    use std::time::Duration;

    type TestPool = BufferPool<Vec<f32>, Vec<Vec<f32>>>;

    #[test]
    fn buffers_come_back_when_guards_drop_and_are_reused() {
        let pool = Arc::new(TestPool::new(2, true));
        let mut a = pool.acquire(|| false).unwrap();
        a.buffers_mut().batch.push(vec![1.0; 8]);
        let ptr = a.buffers().batch.as_ptr();
        let _b = pool.acquire(|| false).unwrap();
        assert!(pool.acquire(|| false).is_none(), "the budget is 2");
        drop(a);
        let again = pool.acquire(|| false).unwrap();
        assert_eq!(
            again.buffers().batch.as_ptr(),
            ptr,
            "the dropped buffer is reused"
        );
        assert_eq!(pool.allocated(), 2);
    }

    #[test]
    fn under_a_byte_cap_only_the_buffers_that_fit_are_kept_and_counted() {
        let pool = Arc::new(TestPool::new(4, true));
        let gate = Arc::new(ByteGate::new(100, false));
        let floats: Measure<Vec<Vec<f32>>> = Arc::new(|batch| batch.len() * 10);
        pool.cap_bytes(Some((Arc::clone(&gate), floats)));
        let mut guards: Vec<_> = (0..3).map(|_| pool.acquire(|| false).unwrap()).collect();
        for guard in &mut guards {
            guard.buffers_mut().batch.resize(6, Vec::new()); // 60 bytes each
        }
        drop(guards);
        assert_eq!(
            pool.allocated(),
            1,
            "one buffer of 60 bytes fits in 100, not two"
        );
        assert_eq!(gate.figures().peak, 60);
        let again = pool.acquire(|| false).unwrap();
        gate.admit(90, 0, || false); // fits: the pooled buffer was taken again
        assert_eq!(gate.figures().peak, 90);
        drop(again);
        assert_eq!(pool.allocated(), 0, "60 more bytes do not fit beside 90");
    }

    #[test]
    fn a_waiting_producer_wakes_when_a_guard_drops() {
        let pool = Arc::new(TestPool::new(1, true));
        let held = pool.acquire(|| false).unwrap();
        let waiter = {
            let pool = Arc::clone(&pool);
            thread::spawn(move || {
                let rec = crate::stats::Recorder::new(1);
                let run = rec.run(true);
                let got = pool.acquire(|| true).is_some();
                drop(run);
                (
                    got,
                    rec.snapshot(&Default::default(), 1, 1).producers_blocked,
                )
            })
        };
        thread::sleep(Duration::from_millis(20));
        drop(held);
        let (got, blocked) = waiter.join().unwrap();
        assert!(got);
        assert!(
            blocked >= Duration::from_millis(5),
            "the wait is counted: {blocked:?}"
        );
    }

    #[test]
    fn stopped_waiters_give_up_and_a_starved_consumer_grows_the_pool() {
        let pool = Arc::new(TestPool::new(1, true));
        let held = pool.acquire(|| false).unwrap();
        assert!(pool.acquire(|| false).is_none(), "the budget is 1");
        pool.ensure_progress();
        let grown = pool.acquire(|| false);
        assert!(
            grown.is_some(),
            "the consumer holds every buffer: the pool grows"
        );
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let waiter = {
            let (pool, stop) = (Arc::clone(&pool), Arc::clone(&stop));
            thread::spawn(move || {
                let may_wait = || !stop.load(std::sync::atomic::Ordering::Relaxed);
                pool.acquire(may_wait).is_none()
            })
        };
        thread::sleep(Duration::from_millis(20));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        pool.wake_all();
        assert!(waiter.join().unwrap(), "a stopped producer gets nothing");
        drop((held, grown));
    }
}
