//! A loader over streams: items that come from iterators (lines of files, a directory walk,
//! records from a channel) instead of a dataset indexed by position. PyTorch's
//! `IterableDataset`, tf.data's `from_generator` with `interleave` and `shuffle`.
//!
//! **How an epoch runs.** One thread, the *puller*, opens this rank's shards, interleaves them
//! (`cycle_length` at a time, an item from each in turn), passes the items through the seeded
//! shuffle buffer, and hands them on in *windows* through a channel of one window: the first
//! window is one batch, each next one four times the one before, up to `window` batches. A window
//! is handed on once it is full or the stream has ended, so a stream that pauses holds back
//! the batches of the window being filled. Each window is an epoch of an ordinary [`Loader`](crate::Loader) over those items
//! (its dataset computes item `i` of the window with `compute`), so everything the indexable
//! loader gives holds within a window: batches computed on the executor, bounded memory,
//! ordered or unordered delivery, panics with their payload. The consumer reads the windows
//! in order, one epoch at a time: the next window's loader starts once the current one has
//! delivered its last batch. Starting it earlier would let its producers, waiting for room
//! that only a consumer of that window makes, hold the executor's threads that the current
//! window still needs (a deadlock that a test reproduced); so the executor drains once per
//! window, which the growing windows make rare.
//!
//! **Memory.** At most three windows of pulled items: the one being delivered, the one the
//! puller has finished and waits to hand on, and the one it fills; plus the loader's buffer.
//!
//! **Order.** The stream's order is the shards' items interleaved, then shuffled by the buffer:
//! a function of the shards, `cycle_length`, the seed, the epoch and the buffer's size. Batches
//! cut that order into `batch_size` pieces; a window holds whole batches, so only the stream's
//! last batch can be short.
//!
//! **Dropping an epoch early.** Dropping the [`StreamIter`] cancels the window in flight (its
//! loader stops and returns, as a `Loader`'s epoch does) and tells the puller to stop, which it
//! does, dropping the shards' iterators, as soon as its current `next()` returns. The drop does not wait for that `next()`:
//! a stream that blocks forever (a channel whose senders never hang up) leaves its puller
//! blocked, not the consumer; end such a stream by closing its source (drop the senders), or
//! set [`StreamLoader::timeout`], which turns the wait into an error naming the shard and item.
//!
//! **Checkpoints.** [`StreamIter::state`] gives a [`StreamState`] from which
//! [`StreamLoader::resume`] continues the epoch with exactly the next batch: the puller's
//! cursor travels with each window, and resumption restores it, reopening the shards at their
//! positions ([`SeekShard`]) or replaying them (the protocol is described in `cursor.rs`).
//! [`StreamLoader::resume_in_world`] continues an epoch in a world of another size from one
//! state of each old rank: each new rank takes over whole old ranks' streams ([`WorldIter`],
//! the protocol in `world.rs`).

mod builder;
mod cursor;
mod iter;
mod pull;
mod seek;
mod window;
mod world;

pub use builder::{StreamLoader, DEFAULT_WINDOW};
pub use cursor::StreamState;
pub use iter::StreamIter;
pub use seek::{DatasetItems, SeekShard};
pub use window::{Computed, Policed, Windowing};
pub use world::WorldIter;
