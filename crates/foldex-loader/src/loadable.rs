//! What a loader reads: any [`Dataset`], or a [`TryDataset`] under an
//! [`ErrorPolicy`](crate::ErrorPolicy) ([`Checked`]).
//!
//! The loader calls one sealed trait for both, so that the error policy's plumbing (skipping
//! an observation, recording it in the epoch's stats) reaches the loader without passing
//! through [`Dataset`], whose methods are all a user implements.

use crate::policy::Checked;
use crate::stall::{InFlight, Naming};
use crate::stats::Recorder;
use foldex_dataset::{Dataset, TryDataset};
use std::fmt;

/// What a [`Loader`](crate::Loader) loads: every [`Dataset`], and [`Checked`] (a
/// [`TryDataset`] under an error policy). Sealed; its `Item` is the dataset's observation.
pub trait Loadable: sealed::Load {}

impl<T: sealed::Load + ?Sized> Loadable for T {}

pub(crate) mod sealed {
    use super::LoadContext;

    /// How the loader reads an observation.
    pub trait Load: Send + Sync {
        /// One observation.
        type Item;

        /// The number of observations.
        fn input_len(&self) -> usize;

        /// The observation at `index`; `None` when the error policy left it out.
        fn load(&self, index: usize, cx: &LoadContext<'_>) -> Option<Self::Item>;

        /// Loads the observation at `index` into `buf`, reusing its memory; `false` when the
        /// error policy left it out.
        fn load_into(&self, index: usize, buf: &mut Self::Item, cx: &LoadContext<'_>) -> bool;
    }
}

/// What a load sees of the epoch it loads for: where to record retries and skipped items, and
/// what [`ItemContext`](foldex_dataset::ItemContext) tells the dataset.
#[derive(Clone, Copy, Default)]
pub struct LoadContext<'a> {
    pub(crate) recorder: Option<&'a Recorder>,
    pub(crate) seed: u64,
    pub(crate) epoch: u64,
    pub(crate) offset: usize,
    pub(crate) worker: usize,
    /// With a timeout: where loads are noted while they run, and what they are named by
    /// (an index, or a stream position) from `index + offset`.
    pub(crate) watch: Option<(&'a InFlight, Naming)>,
}

impl fmt::Debug for LoadContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadContext").finish_non_exhaustive()
    }
}

impl<D: Dataset + ?Sized> sealed::Load for D {
    type Item = D::Item;

    fn input_len(&self) -> usize {
        self.len()
    }

    fn load(&self, index: usize, _: &LoadContext<'_>) -> Option<D::Item> {
        Some(self.get(index))
    }

    fn load_into(&self, index: usize, buf: &mut D::Item, _: &LoadContext<'_>) -> bool {
        self.get_into(index, buf);
        true
    }
}

impl<D> sealed::Load for Checked<D>
where
    D: TryDataset,
    D::Error: fmt::Display + Send + 'static,
{
    type Item = D::Output;

    fn input_len(&self) -> usize {
        self.inner().len()
    }

    fn load(&self, index: usize, cx: &LoadContext<'_>) -> Option<D::Output> {
        self.load_checked(index, cx.recorder)
    }

    fn load_into(&self, index: usize, buf: &mut D::Output, cx: &LoadContext<'_>) -> bool {
        match self.load_checked(index, cx.recorder) {
            Some(output) => {
                *buf = output;
                true
            }
            None => false,
        }
    }
}
