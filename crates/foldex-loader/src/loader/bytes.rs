//! The byte cap's setting on a [`Loader`], and how an epoch finds the measure of its batches.
//! The cap itself is `byte_gate.rs`.

use super::Loader;
use crate::byte_gate::Measure;
use crate::byte_size::ByteSize;
use crate::loadable::Loadable;
use foldex_core::ConfigError;
use foldex_dataset::Collate;
use std::any::Any;
use std::num::NonZeroUsize;
use std::sync::Arc;

/// A batch type's measure, as a loader keeps it without naming the type.
pub(crate) type AnyMeasure = Arc<dyn Any + Send + Sync>;

/// The measure of batches of type `B`, for [`Loader::with_byte_cap`].
pub(crate) fn measure_of<B: ByteSize + 'static>() -> AnyMeasure {
    Arc::new(<B as ByteSize>::byte_size as fn(&B) -> usize)
}

impl<D, C, M> Loader<D, C, M>
where
    D: Loadable,
    C: Collate<D::Item>,
    C::Batch: ByteSize + 'static,
{
    /// At most about `bytes` bytes of finished batches wait for the consumer, measured with
    /// [`ByteSize`] (the collate's output; with [`reuse_buffers`](Loader::reuse_buffers), the
    /// batch a guard holds). Producers wait while the cap is reached, besides waiting for
    /// [`buffer`](Loader::buffer) places. Set it after [`collate`](Loader::collate).
    ///
    /// A batch larger than the cap is still delivered, alone: it is admitted when nothing
    /// else is held, and, ordered, the batch the consumer needs next never waits. A thread
    /// that makes batches while it helps (it cannot wait) reserves room for the largest batch
    /// so far first, one such thread at a time, and its batch may overshoot that room. So,
    /// for batches of any sizes, the bytes waiting never exceed `bytes` plus the largest batch
    /// (unordered) or plus twice the largest batch (ordered). With
    /// [`reuse_buffers`](Loader::reuse_buffers), recycled buffers count too (by their batch),
    /// and one that does not fit is freed. Batches being made and the consumer's are not
    /// counted.
    /// [`Stats::peak_bytes`](crate::Stats::peak_bytes) reports what an epoch held, and its
    /// verdict says "capped by bytes" when the cap kept the consumer waiting. Batches travel
    /// one by one (no parcels), and a tuned default buffer grows no further than the batches
    /// the cap holds.
    ///
    /// Without this setting nothing is measured.
    ///
    /// ```
    /// use foldex_dataset::from_fn;
    /// use foldex_loader::Loader;
    /// use foldex_threaded::ThreadedEx;
    /// let rows = from_fn(64, |i| vec![i as u8; 1 << 16]); // 64 KiB each
    /// let loader = Loader::new(rows, ThreadedEx::new().basesize(1))
    ///     .batch_size(4) // a batch holds 256 KiB
    ///     .max_buffer_bytes(1 << 20);
    /// let mut epoch = loader.iter();
    /// assert_eq!(epoch.by_ref().count(), 16);
    /// let stats = epoch.stats();
    /// assert!(stats.peak_bytes <= (1 << 20) + 2 * stats.largest_batch_bytes);
    /// ```
    ///
    /// # Panics
    /// If `bytes` is 0: "max_buffer_bytes must be at least 1, got 0".
    #[track_caller]
    pub fn max_buffer_bytes(self, bytes: usize) -> Self {
        let bytes = ConfigError::require_nonzero("max_buffer_bytes", bytes);
        self.with_byte_cap(bytes, measure_of::<C::Batch>())
    }
}

impl<D, C, M> Loader<D, C, M> {
    /// Caps the bytes of waiting batches at `bytes`, measuring batches with `measure` (from
    /// [`measure_of`] for the collate's batch type).
    pub(crate) fn with_byte_cap(mut self, bytes: NonZeroUsize, measure: AnyMeasure) -> Self {
        self.settings.max_buffer_bytes = Some(bytes);
        self.byte_measure = Some(measure);
        self
    }

    /// The measure of this loader's batches, of type `B`, when a byte cap is set.
    pub(super) fn measure<B: 'static>(&self) -> Option<Measure<B>> {
        let measure = self.byte_measure.as_ref()?;
        let measure = *measure
            .downcast_ref::<fn(&B) -> usize>()
            .expect("max_buffer_bytes measures the loader's own batch type");
        Some(Arc::new(measure))
    }
}
