//! The buffer of a loader whose user set none: twice the executor's workers, grown from what
//! the epochs before it showed.
//!
//! An epoch in which the consumer waited for batches ([`INPUT_BOUND`] of its time or more)
//! *and* the producers found the buffer full ([`BURSTY_FULL`] of the sampled deliveries or
//! more) was bursty: batches came in runs faster than the consumer takes them, with gaps in
//! between (uneven batches, or, ordered, a slow batch that holds back the finished ones behind
//! it). A larger buffer keeps more of a run for the gap, so the next epoch's buffer is twice
//! as large, up to [`MAX_GROWTH`] times the default. A steady epoch, input-bound or
//! consumer-bound, changes nothing: there a larger buffer only holds more memory. An epoch
//! that ended early, or that had too few batches to fill its buffer a few times over, teaches
//! nothing. A buffer set with [`Loader::buffer`](crate::Loader::buffer) is never changed.
//!
//! Under a byte cap ([`Loader::max_buffer_bytes`](crate::Loader::max_buffer_bytes)) the buffer
//! never grows past the batches the cap holds (the cap over the largest batch seen), nor after
//! an epoch whose producers waited for the cap: there the bytes, not the places, were short.

use crate::channel::MAX_BUFFER;
use crate::stats::{BufferOrigin, Stats, INPUT_BOUND};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The share of sampled deliveries that must have found the buffer full, in an epoch where the
/// consumer also waited, for the next epoch's buffer to grow.
pub(crate) const BURSTY_FULL: f64 = 0.10;

/// The largest tuned buffer, as a multiple of the default.
pub(crate) const MAX_GROWTH: usize = 8;

/// An epoch teaches only if it had this many times its buffer in batches.
const BUFFERS_PER_LESSON: u64 = 4;

/// The tuned buffer, shared by a loader's epochs.
#[derive(Debug, Default)]
pub(crate) struct BufferTuner {
    /// The grown buffer; 0 while it is the default.
    grown: AtomicUsize,
}

impl BufferTuner {
    /// The buffer of the next epoch, given the default, and where it comes from.
    pub fn size(&self, default: usize) -> (usize, BufferOrigin) {
        match self.grown.load(Ordering::Relaxed) {
            grown if grown > default => (grown, BufferOrigin::Grown { from: default }),
            _ => (default, BufferOrigin::Default),
        }
    }

    /// Learns from a finished epoch whose buffer was this tuner's (`stats.buffer` batches, or
    /// fewer when the epoch had fewer batches).
    pub fn learn(&self, stats: &Stats, default: usize) {
        let (buffer, _) = self.size(default);
        let enough = stats.batches >= BUFFERS_PER_LESSON.saturating_mul(buffer as u64);
        let bursty = stats.waited() >= INPUT_BOUND && stats.full >= BURSTY_FULL;
        let capped = stats.capped_by_bytes > Duration::ZERO;
        if enough && bursty && !capped {
            let mut most = default.saturating_mul(MAX_GROWTH).min(MAX_BUFFER);
            if let Some(cap) = stats.max_buffer_bytes {
                most = most.min(cap / stats.largest_batch_bytes.max(1));
            }
            let grown = buffer.saturating_mul(2).min(most).max(default);
            self.grown.store(grown, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn epoch(batches: u64, waited: f64, full: f64) -> Stats {
        Stats::of_epoch(
            batches,
            Duration::from_secs(1),
            Duration::from_secs_f64(waited),
            full,
        )
    }

    #[test]
    fn a_bursty_epoch_doubles_the_buffer_up_to_the_cap() {
        let tuner = BufferTuner::default();
        assert_eq!(tuner.size(4), (4, BufferOrigin::Default));
        let mut sizes = Vec::new();
        for _ in 0..6 {
            tuner.learn(&epoch(1000, 0.3, 0.4), 4);
            sizes.push(tuner.size(4).0);
        }
        assert_eq!(sizes, [8, 16, 32, 32, 32, 32]);
        assert_eq!(tuner.size(4).1, BufferOrigin::Grown { from: 4 });
    }

    #[test]
    fn steady_or_short_epochs_change_nothing() {
        let tuner = BufferTuner::default();
        for stats in [
            epoch(1000, 0.5, 0.0),  // input-bound, never full
            epoch(1000, 0.01, 0.9), // consumer-bound
            epoch(1000, 0.05, 0.2), // the consumer hardly waited
            epoch(15, 0.5, 0.5),    // under four buffers of batches
        ] {
            tuner.learn(&stats, 4);
            assert_eq!(tuner.size(4), (4, BufferOrigin::Default), "{stats:?}");
        }
    }

    #[test]
    fn a_byte_cap_bounds_the_growth_and_a_capped_epoch_teaches_nothing() {
        let tuner = BufferTuner::default();
        let mut bursty = epoch(1000, 0.3, 0.4);
        bursty.max_buffer_bytes = Some(10 << 20);
        bursty.largest_batch_bytes = 1 << 20; // ten batches fit in the cap
        let mut sizes = Vec::new();
        for _ in 0..4 {
            tuner.learn(&bursty, 4);
            sizes.push(tuner.size(4).0);
        }
        assert_eq!(sizes, [8, 10, 10, 10]);
        let tuner = BufferTuner::default();
        bursty.capped_by_bytes = Duration::from_millis(1);
        tuner.learn(&bursty, 4);
        assert_eq!(tuner.size(4), (4, BufferOrigin::Default));
    }

    #[test]
    fn the_cap_holds_for_huge_defaults() {
        let tuner = BufferTuner::default();
        tuner.learn(&epoch(u64::MAX, 0.5, 0.5), MAX_BUFFER);
        assert_eq!(tuner.size(MAX_BUFFER), (MAX_BUFFER, BufferOrigin::Default));
    }
}
