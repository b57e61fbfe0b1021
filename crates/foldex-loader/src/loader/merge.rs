//! Merging a world's states into one state of the epoch's remainder, which resumes under any
//! world (the model is in `elastic.rs`).

use super::Loader;
use crate::elastic::{merge, Progress, Remainder};
use crate::error::ResumeError;
use crate::loadable::Loadable;
use crate::state::{LoaderState, Schedule};

impl<D: Loadable, C, M> Loader<D, C, M> {
    /// Merges the states of every rank of a world, one each in any order (each from
    /// [`Iter::state`](crate::Iter::state) on its rank), into one state of what remains of
    /// their epoch, which [`Loader::resume`] continues on any shard of any world: on each new
    /// rank, the loader (set up as the old ranks were, but for its `shard`) deals itself its
    /// part of the remainder, and the new ranks together deliver every remaining observation
    /// once, their [`Tail`](foldex_dataset::Tail) applied to the remainder (as `shard` applies
    /// it to a whole epoch; a padded rank repeats the epoch's first observations).
    ///
    /// Whatever no old rank delivered remains, including what the old world would have left
    /// out (`Tail::Drop`, `partial(false)`). The merged state is small: O(1) when the ranks
    /// stopped at the same batch, else it lists the positions delivered beyond the slowest
    /// rank. It may come from an elastic resumption itself: states of a world that resumed
    /// from a merged state merge again.
    ///
    /// Refused ([`ResumeError`], naming both sides): a state from other settings than this
    /// loader's (sampler, seed, batch size, dataset length), states of different worlds,
    /// epochs or remainders, a rank missing or given twice.
    ///
    /// ```
    /// use foldex_dataset::{from_fn, Tail};
    /// use foldex_loader::Loader;
    /// use foldex_seq::SequentialEx;
    /// let rank = |r, world| Loader::new(from_fn(20, |i| i), SequentialEx)
    ///     .batch_size(2).shuffle(5).shard(r, world).shard_tail(Tail::Uneven);
    /// // Three ranks stop at different batches.
    /// let mut seen = Vec::new();
    /// let states: Vec<_> = (0..3).map(|r| {
    ///     let mut iter = rank(r, 3).iter();
    ///     seen.extend(iter.by_ref().take(r + 1).flatten());
    ///     iter.state()
    /// }).collect();
    /// // Two ranks take over.
    /// let merged = rank(0, 2).merge_states(&states).unwrap();
    /// for r in 0..2 {
    ///     seen.extend(rank(r, 2).resume(&merged).unwrap().flatten());
    /// }
    /// seen.sort();
    /// assert_eq!(seen, (0..20).collect::<Vec<_>>());
    /// ```
    pub fn merge_states(&self, states: &[LoaderState]) -> Result<LoaderState, ResumeError> {
        let inconsistent = |why: String| Err(ResumeError::Inconsistent(why));
        let Some(first) = states.first() else {
            return inconsistent("no state to merge".to_owned());
        };
        let world = first.shard.unwrap_or((0, 1)).1;
        if states.len() != world {
            return inconsistent(format!(
                "{} given, of a world of {world} ranks (rank {}'s state says so): merging takes \
                 one state of each rank",
                counted(states.len()),
                first.shard.unwrap_or((0, 1)).0
            ));
        }
        let mut by_rank: Vec<Option<&LoaderState>> = vec![None; world];
        for state in states {
            let (rank, its_world) = state.shard.unwrap_or((0, 1));
            let first_rank = first.shard.unwrap_or((0, 1)).0;
            if its_world != world {
                return inconsistent(format!(
                    "rank {first_rank}'s state is of a world of {world} ranks, rank {rank}'s of \
                     {its_world}"
                ));
            }
            if rank >= world {
                return inconsistent(format!("a state names rank {rank} of a world of {world}"));
            }
            if by_rank[rank].is_some() {
                return inconsistent(format!("rank {rank}'s state is given twice"));
            }
            if state.epoch != first.epoch {
                return inconsistent(format!(
                    "rank {first_rank}'s state is of epoch {}, rank {rank}'s of epoch {}",
                    first.epoch, state.epoch
                ));
            }
            if state.remainder != first.remainder {
                return inconsistent(format!(
                    "rank {first_rank}'s state continues {}, rank {rank}'s {}",
                    describe(first.remainder.as_ref()),
                    describe(state.remainder.as_ref())
                ));
            }
            self.check_rank_state(state, (rank, world))?;
            by_rank[rank] = Some(state);
        }
        let base = first
            .remainder
            .clone()
            .unwrap_or_else(|| Remainder::whole(self.sampler_len()));
        let merged = merge(&base, world, |r| {
            let state = by_rank[r].expect("every rank's state is there");
            self.progress(state, (r, world), state.next_batch)
        });
        Ok(self.dealt_state(first.epoch, (0, 1), Some(&merged)))
    }

    /// [`Loader::merge_states`] for ranks that stopped in step (synchronous data-parallel
    /// training, where every rank takes a batch per step): `state`, from any one rank, stands
    /// for every rank of its world, each having received its first `state.next_batch`
    /// batches (all of them, when it has fewer). O(1) memory.
    ///
    /// Refused, beside what `merge_states` refuses: a state with batches received above its
    /// `next_batch` (unordered delivery), since what the other ranks received early is not
    /// known: merge every rank's state then.
    ///
    /// ```
    /// use foldex_dataset::from_fn;
    /// use foldex_loader::Loader;
    /// use foldex_seq::SequentialEx;
    /// let rank = |r, world| Loader::new(from_fn(24, |i| i), SequentialEx)
    ///     .batch_size(2).shuffle(5).shard(r, world);
    /// // Four ranks take three steps; rank 0 saves its state.
    /// let mut seen = Vec::new();
    /// let mut state = None;
    /// for r in 0..4 {
    ///     let mut iter = rank(r, 4).iter();
    ///     seen.extend(iter.by_ref().take(3).flatten());
    ///     state.get_or_insert(iter.state());
    /// }
    /// // Three ranks take over.
    /// let merged = rank(0, 3).merge_in_step(&state.unwrap()).unwrap();
    /// for r in 0..3 {
    ///     seen.extend(rank(r, 3).resume(&merged).unwrap().flatten());
    /// }
    /// seen.sort();
    /// assert_eq!(seen, (0..24).collect::<Vec<_>>());
    /// ```
    pub fn merge_in_step(&self, state: &LoaderState) -> Result<LoaderState, ResumeError> {
        let (rank, world) = state.shard.unwrap_or((0, 1));
        if world == 0 || rank >= world {
            return Err(ResumeError::Inconsistent(format!(
                "the state names rank {rank} of a world of {world}"
            )));
        }
        self.check_rank_state(state, (rank, world))?;
        if !state.received_above.is_empty() {
            return Err(ResumeError::Inconsistent(format!(
                "rank {rank}'s state has batches received above its next_batch {} (unordered \
                 delivery: {:?}), so the other ranks' cannot be inferred from it; merge every \
                 rank's state with merge_states",
                state.next_batch, state.received_above
            )));
        }
        let base = state
            .remainder
            .clone()
            .unwrap_or_else(|| Remainder::whole(self.sampler_len()));
        let merged = merge(&base, world, |r| {
            self.progress(state, (r, world), state.next_batch)
        });
        Ok(self.dealt_state(state.epoch, (0, 1), Some(&merged)))
    }

    /// Checks `state` as rank `shard`'s (a valid shard): this loader's settings, and batches
    /// within its part.
    fn check_rank_state(
        &self,
        state: &LoaderState,
        shard: (usize, usize),
    ) -> Result<(), ResumeError> {
        if let Some(remainder) = &state.remainder {
            remainder.check(self.sampler_len())?;
        }
        let fresh = self.dealt_state(state.epoch, shard, state.remainder.as_ref());
        // A state without a shard (written before it was recorded) counts as unsharded.
        let state = LoaderState {
            shard: state.shard.or(Some((0, 1))),
            ..state.clone()
        };
        state.check(&fresh)?;
        Schedule::after(
            &state,
            self.batches_of(shard, state.remainder.as_ref()).count(),
        )?;
        Ok(())
    }

    /// What rank `shard` received of its part, `next_batch` batches (at most all of them) and
    /// `state.received_above`.
    fn progress<'s>(
        &self,
        state: &'s LoaderState,
        shard: (usize, usize),
        next_batch: usize,
    ) -> Progress<'s> {
        let batches = self.batches_of(shard, state.remainder.as_ref());
        let next_batch = next_batch.min(batches.count());
        let prefix = if next_batch == 0 {
            0
        } else {
            batches.positions(next_batch - 1).end
        };
        Progress {
            len: batches.len,
            prefix,
            above: &state.received_above,
            batch_size: batches.batch_size,
        }
    }
}

/// "N states", for the messages.
fn counted(n: usize) -> String {
    crate::counted::counted(n as u64, "state", "states").to_string()
}

/// A remainder as the messages name it.
fn describe(remainder: Option<&Remainder>) -> String {
    match remainder {
        None => "the whole epoch".to_owned(),
        Some(r) => format!(
            "a remainder of {} positions (from {}, {} done above it)",
            r.count(),
            r.start,
            r.done.len()
        ),
    }
}
