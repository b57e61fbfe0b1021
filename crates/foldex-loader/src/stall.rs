//! A stall is an error: [`Loader::timeout`](crate::Loader::timeout) and
//! [`StreamLoader::timeout`](crate::StreamLoader::timeout).
//!
//! **What is watched.** With a timeout set, every load (a dataset's `get`, a stream item's
//! `compute`, a stream shard's opening and `next()`, and, on a resumption, a seekable shard's
//! `open_at` and `item_at`: see `stream/pull.rs`) is noted in the loader's [`InFlight`] list
//! while it runs: what it loads, for which epoch, since when. Without a timeout nothing is
//! noted, and a load costs what it did (one branch on an `Option`).
//!
//! **When it fires.** The consumer's `next()` waits at most the timeout for the batch it
//! needs, as PyTorch's `DataLoader(timeout=…)` does: the clock starts when `next()` finds no
//! batch ready, and each batch that arrives ends that wait, so a slow epoch never trips it as
//! long as batches keep coming within the timeout. The consumer then sleeps on the channel
//! with a deadline (it wakes within the timeout plus one poll of the clock, see
//! `channel/inbox.rs`) and does not lend its thread to the executor: a load it ran could be
//! the one that never returns, and then nothing would wake it.
//!
//! **What happens then.** `next()` raises a [`Stalled`] naming every load still running, with
//! how long each has run; the epoch stops (no new load starts) and is *abandoned*: its driver
//! thread, and the loads still running, are not waited for. A load stuck in user code cannot be
//! interrupted, so it goes on on its own thread until it returns; its result is then dropped
//! and its thread goes back to its executor. Until then that thread is lost to the executor:
//! a later epoch runs on the executor's other threads, or, with none left, stalls too, and its
//! [`Stalled`] names the earlier epoch's loads that still run.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a load that was running at a timeout was loading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LoadAt {
    /// A [`Loader`](crate::Loader)'s dataset index (its `get`).
    Index(usize),
    /// A [`StreamLoader`](crate::StreamLoader)'s stream position (its item's `compute`).
    Position(usize),
    /// A [`StreamLoader`](crate::StreamLoader)'s shard iterator's `next()`: the `item`-th item
    /// (from 0) of shard `shard`.
    Pull {
        /// The shard's number.
        shard: usize,
        /// The item's number within the shard.
        item: usize,
    },
}

impl fmt::Display for LoadAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Index(index) => write!(f, "index {index}"),
            Self::Position(position) => write!(f, "stream position {position}"),
            Self::Pull { shard, item } => write!(f, "item {item} of shard {shard}"),
        }
    }
}

/// A load that was still running when a loader's timeout fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StalledLoad {
    /// What it loads.
    pub at: LoadAt,
    /// The epoch it loads for: an earlier one when an abandoned epoch's load still runs.
    pub epoch: u64,
    /// How long it had been running when the timeout fired.
    pub loading_for: Duration,
}

impl fmt::Display for StalledLoad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (for {:.1?}, epoch {})",
            self.at, self.loading_for, self.epoch
        )
    }
}

/// A loader's `next()` waited its whole timeout for a batch: the error it raises (as a panic
/// payload from `next()`, or as `Err` from `try_next()`), naming the loads still running.
///
/// ```
/// use foldex_dataset::from_fn;
/// use foldex_loader::{Loader, Stalled};
/// use foldex_threaded::ThreadedEx;
/// use std::sync::mpsc::channel;
/// use std::time::Duration;
///
/// let (release, gate) = channel::<()>();
/// let gate = std::sync::Mutex::new(gate);
/// // Index 3 blocks until the end of the example (a hung network read).
/// let data = from_fn(8, move |i| {
///     if i == 3 {
///         let _ = gate.lock().unwrap().recv();
///     }
///     i
/// });
/// let loader = Loader::new(data, ThreadedEx::new().threads(2).basesize(1))
///     .timeout(Duration::from_millis(100));
/// let mut epoch = loader.iter();
/// let mut got = Vec::new();
/// let stalled: Stalled = loop {
///     match epoch.try_next() {
///         Ok(Some(batch)) => got.extend(batch),
///         Ok(None) => unreachable!("index 3 never loads"),
///         Err(stalled) => break stalled,
///     }
/// };
/// assert_eq!(got, [0, 1, 2]);
/// assert_eq!(stalled.loading[0].at, foldex_loader::stats::LoadAt::Index(3));
/// assert!(epoch.stats().to_string().contains("stalled"));
/// drop(epoch); // returns at once: the stuck load is left to finish on its own
/// drop(release);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stalled {
    /// The loader's timeout.
    pub timeout: Duration,
    /// The epoch that stalled.
    pub epoch: u64,
    /// The loads running when it fired, longest-running first: this epoch's, and any that
    /// abandoned earlier epochs left running (their [`StalledLoad::epoch`] says which).
    pub loading: Vec<StalledLoad>,
}

impl fmt::Display for Stalled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "foldex-loader: no batch came within the timeout of {:.1?} in epoch {}; ",
            self.timeout, self.epoch
        )?;
        if self.loading.is_empty() {
            return f.write_str(
                "nothing was loading (the executor started no load: its threads may be busy \
                 elsewhere)",
            );
        }
        f.write_str("still loading: ")?;
        for (n, load) in self.loading.iter().enumerate() {
            let sep = if n == 0 { "" } else { ", " };
            write!(f, "{sep}{} (for {:.1?}", load.at, load.loading_for)?;
            if load.epoch != self.epoch {
                write!(f, ", of abandoned epoch {}", load.epoch)?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl std::error::Error for Stalled {}

/// What names a load from its index plus the window's offset: [`LoadAt::Index`] for a
/// loader, [`LoadAt::Position`] for a stream loader's window.
pub(crate) type Naming = fn(usize) -> LoadAt;

/// The loads of a loader that run now, noted while a timeout is set (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    running: Mutex<Vec<Running>>,
    next_id: AtomicU64,
}

#[derive(Debug)]
struct Running {
    id: u64,
    at: LoadAt,
    epoch: u64,
    since: Instant,
}

/// A load noted in an [`InFlight`]: it is struck off when this drops (the load returned or
/// unwound).
pub(crate) struct Noted<'a> {
    list: &'a InFlight,
    id: u64,
}

impl Drop for Noted<'_> {
    fn drop(&mut self) {
        let mut running = self.list.lock();
        if let Some(at) = running.iter().position(|r| r.id == self.id) {
            running.swap_remove(at);
        }
    }
}

impl InFlight {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Notes a load of `at` for `epoch`, until the returned guard drops.
    pub fn note(&self, at: LoadAt, epoch: u64) -> Noted<'_> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.lock().push(Running {
            id,
            at,
            epoch,
            since: Instant::now(),
        });
        Noted { list: self, id }
    }

    /// The loads running now for which `of(what, epoch)` holds, with how long each has run,
    /// longest first.
    pub fn running(&self, of: impl Fn(LoadAt, u64) -> bool) -> Vec<StalledLoad> {
        let now = Instant::now();
        let mut loads: Vec<StalledLoad> = self
            .lock()
            .iter()
            .filter(|r| of(r.at, r.epoch))
            .map(|r| StalledLoad {
                at: r.at,
                epoch: r.epoch,
                loading_for: now.saturating_duration_since(r.since),
            })
            .collect();
        loads.sort_by_key(|load| std::cmp::Reverse(load.loading_for));
        loads
    }
}

/// A loader's timeout and the list its loads are noted in, shared by its epochs (and, for a
/// stream loader, by its windows' loaders).
#[derive(Debug, Clone)]
pub(crate) struct Watch {
    pub timeout: Duration,
    pub in_flight: std::sync::Arc<InFlight>,
}

impl Watch {
    /// A watch with `timeout`, refused when it is zero (naming the setting).
    #[track_caller]
    pub fn new(timeout: Duration) -> Self {
        if timeout.is_zero() {
            panic!("timeout must be more than zero, got {timeout:?}");
        }
        Self {
            timeout,
            in_flight: std::sync::Arc::default(),
        }
    }

    /// The error of epoch `epoch` stalling now: every load still running, of any epoch.
    pub fn stalled(&self, epoch: u64) -> Stalled {
        Stalled {
            timeout: self.timeout,
            epoch,
            loading: self.in_flight.running(|_, _| true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_noted_load_is_listed_until_it_returns_and_the_error_names_it() {
        let watch = Watch::new(Duration::from_millis(5));
        let first = watch.in_flight.note(LoadAt::Index(7), 0);
        let second = watch.in_flight.note(LoadAt::Pull { shard: 2, item: 4 }, 1);
        let stalled = watch.stalled(1);
        assert_eq!(stalled.loading.len(), 2);
        assert_eq!(stalled.loading[0].at, LoadAt::Index(7), "longest first");
        let line = stalled.to_string();
        assert!(
            line.contains("epoch 1; still loading: index 7 (for ")
                && line.contains(", of abandoned epoch 0)")
                && line.contains("item 4 of shard 2 (for "),
            "{line}"
        );
        drop(first);
        assert_eq!(watch.stalled(1).loading.len(), 1);
        drop(second);
        let line = watch.stalled(1).to_string();
        assert!(line.contains("nothing was loading"), "{line}");
    }

    #[test]
    #[should_panic(expected = "timeout must be more than zero, got 0ns")]
    fn a_zero_timeout_is_refused() {
        Watch::new(Duration::ZERO);
    }
}
