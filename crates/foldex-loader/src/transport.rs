//! How an epoch's batches travel: one by one, or, when they are cheap, in parcels.
//!
//! When a batch costs next to nothing, an epoch's speed is set by the channel, not by the
//! work: every batch moves the cache lines of its place from a producer's core to the
//! consumer's and back. A *parcel* of `k` consecutive batches takes one ticket, one place in
//! the channel and one take of it, so those costs are paid once per `k` batches.
//!
//! Parcels are only worth it, and only harmless, when batches are cheap: a producer holds a
//! whole parcel before anyone sees its first batch, the last tickets of an epoch spread less
//! evenly, and a consumer that stops early leaves up to a parcel per producer to finish. So an
//! epoch uses parcels only when the batches of the epoch before it on the same loader cost
//! less than [`CHEAP_NANOS`] each (producers time one ticket in 16); the first epoch, and one
//! after an epoch too short to tell, sends batches one by one. The buffer keeps its
//! meaning: the channel has `buffer / k` places, so at most `buffer` finished batches wait.
//! A buffer of up to 64 batches has parcels of up to 8 (two places at least); a larger one
//! keeps 8 places and grows its parcels with it, up to [`MAX_PARCEL`]: a place more only
//! holds more batches, while a larger parcel pays the hand-over once for more of them.
//!
//! Under a byte cap ([`Loader::max_buffer_bytes`](crate::Loader::max_buffer_bytes)) batches
//! travel one by one: the cap admits each batch by its own bytes (`byte_gate.rs`), and a
//! parcel would hold batches that no admission has counted.

use crate::produce::{Delivered, Produce};
use std::mem;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The most batches a parcel holds: the producer stages them on its stack (2 KiB at most, see
/// [`MAX_STAGED_BYTES`]).
pub(crate) const MAX_PARCEL: usize = 32;

/// The parcel of a small buffer: as large as two places allow, up to this.
const SMALL_PARCEL: usize = 8;

/// A buffer beyond `SMALL_PARCEL * PLACES` batches has this many places, with parcels of
/// `buffer / PLACES` (up to [`MAX_PARCEL`]).
const PLACES: usize = 8;

/// Batches that cost less than this travel in parcels: above it, the hand-over a parcel saves
/// is a few percent of a batch at most (docs/benchmarks.md, "Loader throughput").
pub(crate) const CHEAP_NANOS: u64 = 1_000;

/// The largest batch value, in bytes, staged in parcels: [`MAX_PARCEL`] of them sit on a
/// producer's stack, and each place of the channel keeps room for a parcel.
const MAX_STAGED_BYTES: usize = 64;

/// How an epoch's batches travel, from what they cost in the epoch before.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Transport {
    /// Batches per parcel (1: one by one).
    pub parcel: usize,
    /// Batches cost under [`CHEAP_NANOS`]: threads waiting for one poll longer before they
    /// sleep (see `channel/waiting.rs`), parcels or not.
    pub cheap: bool,
}

/// What a batch cost, as producers of the current epoch timed it: the cheapest sample.
#[derive(Debug)]
pub(crate) struct CostMeter {
    /// Nanoseconds per batch; `u64::MAX` while nothing was timed.
    nanos: AtomicU64,
}

impl Default for CostMeter {
    fn default() -> Self {
        Self {
            nanos: AtomicU64::new(u64::MAX),
        }
    }
}

impl CostMeter {
    /// Notes that `batches` batches took `elapsed` to compute.
    pub fn note(&self, elapsed: Duration, batches: usize) {
        let nanos = elapsed.as_nanos() / batches.max(1) as u128;
        self.nanos
            .fetch_min(u64::try_from(nanos).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// How an epoch that starts now, with a buffer of `buffer` batches and a byte cap or not
    /// (`capped`), sends its batches, from what the epoch before measured; the meter then
    /// starts over for this epoch.
    pub fn plan<P: Produce>(&self, buffer: usize, capped: bool) -> Transport {
        let nanos = self.nanos.swap(u64::MAX, Ordering::Relaxed);
        let cheap = nanos < CHEAP_NANOS;
        Transport {
            parcel: if capped {
                1
            } else {
                Self::parcel::<P>(buffer, cheap)
            },
            cheap,
        }
    }

    fn parcel<P: Produce>(buffer: usize, cheap: bool) -> usize {
        let stageable = P::PARCELS && mem::size_of::<Delivered<P::Out>>() <= MAX_STAGED_BYTES;
        // Parcels as large as the buffer allows with two places at least, so that a producer
        // fills one while the consumer empties the other: the cache lines that move per batch,
        // not the number of places, set the pace once waiting threads poll long enough not to
        // put each other to sleep (docs/architecture.md, "Why it changed"). A larger buffer
        // keeps `PLACES` places and grows its parcels instead: more places would only hold
        // more batches, while a larger parcel pays its ticket, its place's cache lines and its
        // take once for more batches (docs/benchmarks.md, "Free items against the bridge").
        let parcel = SMALL_PARCEL
            .min(buffer / 2)
            .max((buffer / PLACES).min(MAX_PARCEL));
        if stageable && cheap && parcel >= 2 {
            parcel
        } else {
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::produce::Fresh;

    type Small =
        Fresh<foldex_dataset::FromFn<fn(usize) -> usize>, foldex_dataset::collate::Unbatched>;
    type Large =
        Fresh<foldex_dataset::FromFn<fn(usize) -> [u8; 256]>, foldex_dataset::collate::Unbatched>;

    #[test]
    fn cheap_small_batches_travel_in_parcels_from_the_second_epoch() {
        let meter = CostMeter::default();
        assert_eq!(
            meter.plan::<Small>(16, false).parcel,
            1,
            "nothing timed yet"
        );
        meter.note(Duration::from_nanos(2_400), 8);
        meter.note(Duration::from_nanos(90_000), 8);
        assert_eq!(
            meter.plan::<Small>(16, false).parcel,
            8,
            "the cheapest sample counts"
        );
        assert_eq!(
            meter.plan::<Small>(16, false).parcel,
            1,
            "each epoch measures anew"
        );
        let cheap = |buffer| {
            meter.note(Duration::from_nanos(300), 1);
            meter.plan::<Small>(buffer, false).parcel
        };
        assert_eq!(cheap(64), 8, "eight places of eight");
        assert_eq!(cheap(128), 16, "eight places");
        assert_eq!(cheap(256), 32, "eight places");
        assert_eq!(cheap(1 << 12), 32, "32 at most");
        assert_eq!(cheap(8), 4, "two places");
        assert_eq!(cheap(6), 3, "two places");
        assert_eq!(cheap(4), 2, "two places");
        assert_eq!(cheap(3), 1, "no parcel of one place");
    }

    #[test]
    fn expensive_or_large_batches_travel_alone() {
        let meter = CostMeter::default();
        meter.note(Duration::from_micros(5), 1);
        assert_eq!(meter.plan::<Small>(16, false).parcel, 1);
        meter.note(Duration::from_nanos(10), 1);
        assert_eq!(meter.plan::<Large>(16, false).parcel, 1);
        meter.note(Duration::from_nanos(10), 1);
        assert_eq!(meter.plan::<Small>(16, true).parcel, 1, "a byte cap");
    }
}
