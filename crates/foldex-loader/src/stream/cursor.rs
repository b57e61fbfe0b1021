//! Exact resumption of a stream: the puller's cursor at the start of each window, what the
//! consumer has received of that window, and how the shards are reopened from a cursor.
//!
//! **The protocol.** Before each window the puller notes its *cursor*: the stream position,
//! the window's length, how many of the rank's shards it has opened, the interleave cycle (which
//! shards are open, in turn order, and how many items each has given), the shuffle buffer
//! ([`Held`]) and the buffer's generator. The cursor travels with the window. A [`StreamState`]
//! is the cursor of the window being delivered plus what the consumer has received of that
//! window (its window loader's [`LoaderState`](crate::LoaderState) schedule: a prefix of
//! batches, and batches above it when unordered). Resuming restores the puller at the cursor,
//! pulls that window again (the same items: the order is a function of the shards and the
//! settings) and delivers only its batches not received, then the windows after it as usual.
//!
//! **Restoring the puller.** Shards that can seek ([`SeekShard`](super::SeekShard)) have their
//! buffered items noted by `(shard, position)` ([`Held::Tags`]; the buffer keeps each item's
//! pair beside it): the shards of the cycle are opened at the positions they had reached and
//! each buffered item is fetched by its position. Other shards have only the buffer's length
//! noted ([`Held::Count`]; the buffer keeps nothing beside its items, so that checkpointing
//! costs nothing on this path): the puller of the epoch's start is *replayed* up to the
//! cursor's position, its shards read (not computed) and its buffer drawn from as in the epoch,
//! which leaves it exactly where it was; the replay's cursor is then checked against the
//! state's (a shard that changed is reported). A state whose buffer has no tags is replayed by
//! a loader whose shards can seek too.

use super::pull::{Reading, Reopened, Tag};
use super::seek::Seek;
use crate::error::ResumeError;
use foldex_dataset::ItemRng;
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// Where the puller stands before a window.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub(crate) struct Cursor {
    /// The stream position of the window's first item.
    pub offset: usize,
    /// The window's length in items (whole batches; the stream's last window may hold fewer).
    pub window_len: usize,
    /// How many of the rank's shards have been opened.
    pub opened: usize,
    /// The shards open, in turn order: `(shard, items pulled from it)`.
    pub cycle: Vec<(usize, usize)>,
    /// The shuffle buffer's items.
    pub held: Held,
    /// The shuffle buffer's generator (`None`: not shuffled).
    pub rng: Option<ItemRng>,
}

impl Cursor {
    /// The cursor at the start of an epoch whose first window holds `window_len` items and
    /// whose shuffle buffer (if any) draws from `rng`.
    pub fn first(window_len: usize, rng: Option<ItemRng>) -> Self {
        Self {
            offset: 0,
            window_len,
            opened: 0,
            cycle: Vec::new(),
            held: Held::Count(0),
            rng,
        }
    }

    /// Whether a replay that reached `self` stands where `state` says (the buffer compared by
    /// its length: the replay restores its items).
    pub fn same_place(&self, state: &Cursor) -> bool {
        self.offset == state.offset
            && self.opened == state.opened
            && self.cycle == state.cycle
            && self.held.len() == state.held.len()
            && self.rng == state.rng
    }

    /// The cursor in words, for a message.
    pub fn describe(&self) -> String {
        format!(
            "stream position {}, {} shards opened, (shard, items read) {:?} open, {} items in \
             the shuffle buffer",
            self.offset,
            self.opened,
            self.cycle,
            self.held.len()
        )
    }
}

/// A cursor's shuffle buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub(crate) enum Held {
    /// Its length, when the shards cannot seek: a resumption replays the puller, which refills it.
    Count(usize),
    /// Where its items came from, in the buffer's order, when the shards can seek: a
    /// resumption fetches each by its position.
    Tags(Vec<Tag>),
}

impl Held {
    /// How many items the buffer holds.
    pub fn len(&self) -> usize {
        match self {
            Held::Count(len) => *len,
            Held::Tags(tags) => tags.len(),
        }
    }

    /// The items' tags, if kept.
    fn tags(&self) -> &[Tag] {
        match self {
            Held::Count(_) => &[],
            Held::Tags(tags) => tags,
        }
    }
}

/// The loader's settings that fix a stream's order and its batches; a state resumes only under
/// the same.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub(crate) struct StreamSettings {
    pub shards: usize,
    pub shard: (usize, usize),
    pub interleave: usize,
    /// The shuffle buffer's size and seed.
    pub shuffle: Option<(usize, u64)>,
    pub batch_size: usize,
    /// The seed of the items' contexts.
    pub seed: u64,
}

/// Where the consumer of a [`StreamLoader`](crate::StreamLoader)'s epoch stands: enough to
/// continue with exactly the next batch, with [`StreamLoader::resume`](crate::StreamLoader::resume).
/// From [`StreamIter::state`](crate::StreamIter::state); serde-serializable (feature `serde`),
/// so that it can go into a checkpoint.
///
/// It holds the puller's cursor at the start of the window being delivered (the interleave
/// cycle, each open shard's position, the shuffle buffer's generator and its length, or, when
/// the shards can seek, its items as `(shard, position)` pairs) and which of that window's
/// batches were received: its size grows with the interleave cycle (and, when seeking, the
/// shuffle buffer), not with the stream. A state is refused by a loader
/// whose shards, shard, interleave, shuffle buffer, batch size or item seed differ.
///
/// ```
/// use foldex_loader::StreamLoader;
/// use foldex_threaded::ThreadedEx;
///
/// let shards = vec![(0..10).collect::<Vec<u32>>(), (10..25).collect()];
/// let loader = || {
///     StreamLoader::from_seekable(shards.clone(), |x: &u32| *x, ThreadedEx::new().basesize(1))
///         .interleave(2)
///         .shuffle_buffer(5, 7)
///         .batch_size(3)
/// };
/// let whole: Vec<Vec<u32>> = loader().iter().collect();
///
/// let mut first = loader().iter();
/// let head: Vec<Vec<u32>> = first.by_ref().take(4).collect();
/// let state = first.state();
/// drop(first);
/// let tail: Vec<Vec<u32>> = loader().resume(&state).unwrap().collect();
/// assert_eq!([head, tail].concat(), whole);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct StreamState {
    pub(crate) epoch: u64,
    pub(crate) settings: StreamSettings,
    pub(crate) cursor: Cursor,
    /// Every batch of the cursor's window below this one was received.
    pub(crate) next_batch: usize,
    /// Batches of the window above `next_batch` received too (unordered delivery), ascending.
    pub(crate) received_above: Vec<usize>,
}

impl StreamState {
    /// The epoch.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The stream position below which every item was received: the epoch's items before it
    /// are not delivered again on resumption (unordered, a few batches above it may have been
    /// received too).
    pub fn position(&self) -> usize {
        let batch = self.settings.batch_size;
        let in_window = self
            .next_batch
            .saturating_mul(batch)
            .min(self.cursor.window_len);
        self.cursor.offset.saturating_add(in_window)
    }

    /// Checks that this state continues an epoch of a loader with `settings` whose rank reads
    /// `shards`, and that the epoch after it can be numbered.
    pub(crate) fn check(
        &self,
        settings: &StreamSettings,
        shards: &[usize],
    ) -> Result<(), ResumeError> {
        let mismatch = |setting, state: String, loader: String| {
            Err(ResumeError::Mismatch {
                setting,
                state,
                loader,
            })
        };
        let (s, l) = (&self.settings, settings);
        if s.shards != l.shards {
            return mismatch("shards", s.shards.to_string(), l.shards.to_string());
        }
        if s.shard != l.shard {
            let describe = |(rank, world)| format!("rank {rank} of {world}");
            return mismatch("shard", describe(s.shard), describe(l.shard));
        }
        if s.interleave != l.interleave {
            return mismatch(
                "interleave",
                s.interleave.to_string(),
                l.interleave.to_string(),
            );
        }
        if s.shuffle != l.shuffle {
            let describe = |shuffle: Option<(usize, u64)>| match shuffle {
                None => "none".to_owned(),
                Some((size, seed)) => format!("{size} items, seed {seed}"),
            };
            return mismatch("shuffle_buffer", describe(s.shuffle), describe(l.shuffle));
        }
        if s.batch_size != l.batch_size {
            return mismatch(
                "batch_size",
                s.batch_size.to_string(),
                l.batch_size.to_string(),
            );
        }
        if s.seed != l.seed {
            return mismatch("seed", s.seed.to_string(), l.seed.to_string());
        }
        if self.epoch == u64::MAX {
            return Err(ResumeError::LastEpoch { epoch: self.epoch });
        }
        self.check_cursor(shards)
    }

    /// Refuses a cursor that this loader's rank could not have reached (a corrupt state).
    fn check_cursor(&self, shards: &[usize]) -> Result<(), ResumeError> {
        let c = &self.cursor;
        let corrupt = |state: String, loader: String| {
            Err(ResumeError::Mismatch {
                setting: "stream position",
                state,
                loader,
            })
        };
        let batch = self.settings.batch_size;
        if c.window_len == 0 || !c.window_len.is_multiple_of(batch) {
            let state = format!("a window of {} items", c.window_len);
            return corrupt(state, format!("windows of whole batches of {batch}"));
        }
        if c.opened > shards.len() {
            let state = format!("{} shards opened", c.opened);
            return corrupt(state, format!("{} shards on this rank", shards.len()));
        }
        let opened = &shards[..c.opened];
        let interleave = self.settings.interleave;
        if c.cycle.len() > interleave {
            let state = format!("{} shards open at once", c.cycle.len());
            return corrupt(state, format!("interleave {interleave}"));
        }
        if c.rng.is_some() != self.settings.shuffle.is_some() {
            let state = format!(
                "shuffle generator {}",
                if c.rng.is_some() { "present" } else { "absent" }
            );
            return corrupt(state, format!("shuffle_buffer {:?}", self.settings.shuffle));
        }
        let held_room = self.settings.shuffle.map_or(0, |(size, _)| size);
        if c.held.len() > held_room {
            let state = format!("{} items in the shuffle buffer", c.held.len());
            return corrupt(state, format!("a buffer of {held_room}"));
        }
        let pulled: HashMap<usize, usize> = c.cycle.iter().copied().collect();
        let mut seen = HashSet::new();
        let shards_in = |list: &[usize]| format!("opened shards {list:?}");
        for &(shard, _) in c.cycle.iter().chain(c.held.tags()) {
            if !opened.contains(&shard) {
                return corrupt(format!("shard {shard}"), shards_in(opened));
            }
        }
        if pulled.len() != c.cycle.len() {
            return corrupt(
                format!("cycle {:?}", c.cycle),
                "each shard open once".to_owned(),
            );
        }
        for &tag in c.held.tags() {
            let beyond = pulled.get(&tag.0).is_some_and(|&p| tag.1 >= p);
            if beyond || !seen.insert(tag) {
                let state = format!("shuffle buffer item {tag:?}");
                return corrupt(state, "each pulled item held once".to_owned());
            }
        }
        Ok(())
    }
}

/// The interleave cycle and the shuffle buffer's items of `cursor`, whose buffer is `tags`,
/// reopened from `seek` (see the module's doc).
///
/// # Panics
/// When a shard has fewer items than the cursor says were pulled from it (it changed since the
/// state was taken), with a message naming the shard and both counts.
pub(crate) fn restore<R>(cursor: &Cursor, tags: &[Tag], seek: &dyn Seek<R>) -> Reopened<R, Tag> {
    let cycle = cursor
        .cycle
        .iter()
        .map(|&(shard, pulled)| Reading {
            shard,
            pulled,
            iter: seek.open_at(shard, pulled),
        })
        .collect();
    let held = tags
        .iter()
        .map(|&(shard, position)| {
            let item = seek
                .item_at(shard, position)
                .unwrap_or_else(|| shorter(shard, position + 1));
            (item, (shard, position))
        })
        .collect();
    (cycle, held)
}

fn shorter(shard: usize, needed: usize) -> ! {
    panic!(
        "foldex-loader: cannot resume the stream: shard {shard} has fewer than {needed} items, \
         and the state needs {needed} of it (the shard changed since the state was taken)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> StreamSettings {
        StreamSettings {
            shards: 4,
            shard: (0, 2),
            interleave: 2,
            shuffle: Some((3, 9)),
            batch_size: 2,
            seed: 9,
        }
    }

    /// Rank 0 of 2 reads shards 0 and 2: it has opened both, reads shard 2 at item 5, and holds
    /// items of both in its buffer.
    fn state() -> StreamState {
        StreamState {
            epoch: 1,
            settings: settings(),
            cursor: Cursor {
                offset: 12,
                window_len: 8,
                opened: 2,
                cycle: vec![(2, 5)],
                held: Held::Tags(vec![(0, 7), (2, 4)]),
                rng: Some(foldex_dataset::rng_for(9, 1, 3)),
            },
            next_batch: 1,
            received_above: vec![],
        }
    }

    #[test]
    fn a_cursor_this_rank_could_not_have_reached_is_refused() {
        let shards = [0, 2];
        assert_eq!(state().check(&settings(), &shards), Ok(()));
        assert_eq!(state().position(), 14);
        let refused = |change: fn(&mut Cursor)| {
            let mut state = state();
            change(&mut state.cursor);
            match state.check(&settings(), &shards) {
                Err(ResumeError::Mismatch {
                    setting,
                    state,
                    loader,
                }) => {
                    assert_eq!(setting, "stream position");
                    format!("{state} / {loader}")
                }
                other => panic!("not refused: {other:?}"),
            }
        };
        assert_eq!(
            refused(|c| c.cycle = vec![(1, 5)]),
            "shard 1 / opened shards [0, 2]"
        );
        assert_eq!(
            refused(|c| c.opened = 3),
            "3 shards opened / 2 shards on this rank"
        );
        assert_eq!(
            refused(|c| c.held = Held::Tags(vec![(0, 7), (2, 4), (2, 5)])),
            "shuffle buffer item (2, 5) / each pulled item held once"
        );
        assert_eq!(
            refused(|c| c.held = Held::Tags(vec![(0, 7), (0, 7)])),
            "shuffle buffer item (0, 7) / each pulled item held once"
        );
        assert_eq!(
            refused(|c| c.window_len = 3),
            "a window of 3 items / windows of whole batches of 2"
        );
        assert_eq!(
            refused(|c| c.rng = None),
            "shuffle generator absent / shuffle_buffer Some((3, 9))"
        );
    }
}
