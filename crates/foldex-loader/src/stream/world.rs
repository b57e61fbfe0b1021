//! Resuming a stream epoch in a world of another size.
//!
//! **The protocol.** A stream has no global order: each rank of the world the epoch started in
//! (the *old world*, `W` ranks) interleaves and shuffles the shards dealt to it whole, so what
//! remains of the epoch is the union of the old ranks' remainders, each one a resumable stream
//! described by that rank's [`StreamState`]. A new world of `W'` ranks takes them over: new
//! rank `r` resumes the old ranks `i` with `i % W' == r`, one after another in rank order, each
//! with the old rank's own settings (`shard(i, W)`), so that each old rank's remainder comes
//! in exactly the order its uninterrupted epoch would have delivered it, cut into the same
//! batches. The states always stay in the old world's terms: the state of a new rank is the
//! list of its old ranks' states (finished, running, waiting), and the new ranks' lists
//! together are again one state of each old rank, which resumes in any world once more.

use super::builder::StreamLoader;
use super::cursor::StreamState;
use super::iter::StreamIter;
use super::window::{Computed, Windowing};
use crate::error::ResumeError;
use crate::stats::Stats;
use foldex_dataset::Collate;
use std::collections::VecDeque;
use std::fmt;
use std::time::Instant;

impl<R, T, C, W> StreamLoader<R, T, C, W>
where
    R: Send + Sync + 'static,
    T: Send + 'static,
    C: Collate<T> + 'static,
    C::Batch: Send + 'static,
    W: Windowing<R, Item = T>,
{
    /// Continues, on this loader's rank of a world of any size, the stream epoch that `states`
    /// describe: one [`StreamState`] of each rank of the world the epoch ran in (from
    /// [`StreamIter::state`], or the lists from [`WorldIter::state`] of every rank of a world
    /// that resumed this way, concatenated). This loader's [`shard(r, W')`](Self::shard)
    /// decides which old ranks' streams it takes over: old rank `i` goes to new rank
    /// `i % W'`, and a new rank runs its old ranks' remainders one after another, in rank
    /// order, each in the order (and the batches) its uninterrupted epoch would have had.
    /// Across the new world, every item not received in the old one is delivered exactly once.
    ///
    /// The work is dealt by old rank, not by item: when `W' > W` some new ranks get no stream
    /// (their epoch is empty), and a new rank that takes two old ranks' remainders delivers
    /// both. An old rank's finished stream is resumed too (it delivers nothing), which reads
    /// its last window's shards again unless they can seek ([`from_seekable`](Self::from_seekable)).
    /// The next [`iter`](Self::iter) after it starts the following epoch, in the new world.
    ///
    /// Refused ([`ResumeError`], naming both sides): no state, a state from other settings than
    /// this loader's (shards, interleave, shuffle buffer, batch size, item seed; the shard aside),
    /// states of different worlds or epochs, a rank missing or given twice. Every rank of the
    /// new world checks every state, so all of them accept or refuse the same list.
    ///
    /// ```
    /// use foldex_loader::StreamLoader;
    /// use foldex_threaded::ThreadedEx;
    ///
    /// let shards: Vec<Vec<u32>> = (0..5).map(|s| (10 * s..10 * s + 7).collect()).collect();
    /// let rank = |r, world| {
    ///     StreamLoader::from_seekable(shards.clone(), |x: &u32| *x, ThreadedEx::new().basesize(1))
    ///         .interleave(2)
    ///         .shuffle_buffer(4, 1)
    ///         .batch_size(3)
    ///         .shard(r, world)
    /// };
    /// // Three ranks stop after different numbers of batches...
    /// let mut seen = Vec::new();
    /// let states: Vec<_> = (0..3).map(|r| {
    ///     let mut epoch = rank(r, 3).iter();
    ///     seen.extend(epoch.by_ref().take(r + 1).flatten());
    ///     epoch.state()
    /// }).collect();
    /// // ...and two ranks deliver the rest of the epoch.
    /// for r in 0..2 {
    ///     seen.extend(rank(r, 2).resume_in_world(&states).unwrap().flatten());
    /// }
    /// seen.sort();
    /// let mut all: Vec<u32> = shards.concat();
    /// all.sort();
    /// assert_eq!(seen, all);
    /// ```
    pub fn resume_in_world(
        &self,
        states: &[StreamState],
    ) -> Result<WorldIter<R, T, C, W>, ResumeError> {
        let inconsistent = |why: String| Err(ResumeError::Inconsistent(why));
        let Some(first) = states.first() else {
            return inconsistent("no stream state to resume in another world".to_owned());
        };
        let (first_rank, world) = first.settings.shard;
        if states.len() != world {
            return inconsistent(format!(
                "{} stream states given, of a world of {world} ranks (rank {first_rank}'s state \
                 says so): resuming in another world takes one state of each old rank",
                states.len()
            ));
        }
        let mut by_rank: Vec<Option<&StreamState>> = vec![None; world];
        for state in states {
            let (rank, of) = state.settings.shard;
            if of != world {
                return inconsistent(format!(
                    "rank {rank}'s stream state is of a world of {of} ranks, rank \
                     {first_rank}'s of {world}"
                ));
            }
            if state.epoch != first.epoch {
                return inconsistent(format!(
                    "rank {rank}'s stream state is of epoch {}, rank {first_rank}'s of epoch {}",
                    state.epoch, first.epoch
                ));
            }
            let Some(place) = by_rank.get_mut(rank) else {
                return inconsistent(format!(
                    "a stream state names rank {rank} of a world of {world} ranks"
                ));
            };
            if place.replace(state).is_some() {
                return inconsistent(format!(
                    "rank {rank}'s stream state given twice (of a world of {world} ranks)"
                ));
            }
        }
        // Every rank given once: `states.len() == world` and no rank twice.
        let (me, new_world) = self.stream_settings().shard;
        let mut waiting = VecDeque::new();
        for (rank, state) in by_rank.into_iter().enumerate() {
            let state = state.expect("each rank given once");
            let loader = self.as_rank((rank, world));
            state.check(&loader.stream_settings(), &loader.shards())?;
            if rank % new_world == me {
                waiting.push_back((loader, state.clone()));
            }
        }
        // `check` refused `u64::MAX`.
        self.set_next_epoch(first.epoch + 1);
        Ok(WorldIter {
            epoch: first.epoch,
            done: Vec::new(),
            current: None,
            waiting,
            finished_stats: None,
            started: Instant::now(),
        })
    }
}

/// One rank's part of a stream epoch resumed in a world of another size
/// ([`StreamLoader::resume_in_world`]): the remainders of the old ranks' streams dealt to it,
/// one after another, in old-rank order.
pub struct WorldIter<R, T, C: Collate<T>, W = Computed<R, T>> {
    epoch: u64,
    /// The old ranks' streams delivered whole: their states at their end.
    done: Vec<StreamState>,
    /// The old rank's stream being delivered.
    current: Option<StreamIter<R, T, C, W>>,
    /// The old ranks' streams not started, with the loaders that resume them.
    waiting: VecDeque<(StreamLoader<R, T, C, W>, StreamState)>,
    /// The figures of the old ranks' streams delivered whole.
    finished_stats: Option<Stats>,
    started: Instant,
}

impl<R, T, C: Collate<T>, W> fmt::Debug for WorldIter<R, T, C, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorldIter")
            .field("epoch", &self.epoch)
            .field("done", &self.done.len())
            .field("running", &self.current.is_some())
            .field("waiting", &self.waiting.len())
            .finish()
    }
}

impl<R, T, C, W> WorldIter<R, T, C, W>
where
    R: Send + Sync + 'static,
    T: Send + 'static,
    C: Collate<T> + 'static,
    C::Batch: Send + 'static,
    W: Windowing<R, Item = T>,
{
    /// The number of this epoch.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The old ranks this rank takes over, in the order it delivers them.
    pub fn old_ranks(&self) -> Vec<usize> {
        self.states().map(|s| s.settings.shard.0).collect()
    }

    /// What the consumer has received of this rank's part: one [`StreamState`] per old rank
    /// it took over (the state at its end, where it is, or where it was given). The lists of
    /// every rank of this world, concatenated, resume again with
    /// [`StreamLoader::resume_in_world`], in a world of any size (this one too).
    pub fn state(&self) -> Vec<StreamState> {
        self.states().collect()
    }

    /// This rank's figures so far (as [`StreamIter::stats`]), over the old ranks' streams
    /// delivered or being delivered; the indices of skipped items are stream positions of
    /// the old rank whose stream they belong to.
    pub fn stats(&self) -> Stats {
        let mut stats = self.finished_stats.clone();
        if let Some(current) = &self.current {
            add(&mut stats, current.stats());
        }
        let mut stats = stats.unwrap_or_else(|| Stats::empty(1));
        stats.wall = self.started.elapsed();
        stats
    }

    fn states(&self) -> impl Iterator<Item = StreamState> + '_ {
        let running = self.current.as_ref().map(StreamIter::state);
        let waiting = self.waiting.iter().map(|(_, state)| state.clone());
        self.done.iter().cloned().chain(running).chain(waiting)
    }
}

impl<R, T, C, W> Iterator for WorldIter<R, T, C, W>
where
    R: Send + Sync + 'static,
    T: Send + 'static,
    C: Collate<T> + 'static,
    C::Batch: Send + 'static,
    W: Windowing<R, Item = T>,
{
    type Item = C::Batch;

    fn next(&mut self) -> Option<C::Batch> {
        loop {
            if let Some(current) = &mut self.current {
                if let Some(batch) = current.next() {
                    return Some(batch);
                }
                self.done.push(current.state());
                add(&mut self.finished_stats, current.stats());
                self.current = None;
            }
            let (loader, state) = self.waiting.pop_front()?;
            let resumed = loader.resume(&state);
            self.current = Some(resumed.expect("resume_in_world checked the state"));
        }
    }
}

/// Adds an old rank's figures to this rank's.
fn add(total: &mut Option<Stats>, part: Stats) {
    match total {
        None => *total = Some(part),
        Some(total) => total.absorb(part),
    }
}
