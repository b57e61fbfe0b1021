//! What a loader does when an observation fails to load: fail fast, skip and record, or retry.

use crate::stats::Recorder;
use foldex_dataset::{ItemError, TryDataset};
use std::fmt;
use std::panic;

/// What a loader does with an observation of a [`TryDataset`] that fails to load; see
/// [`Checked`].
///
/// - [`ErrorPolicy::fail_fast`] (the default): the epoch stops, and the consumer's `next()`
///   panics with the [`ItemError`] as its payload (downcast it after `catch_unwind` to handle
///   it), like any panic in a dataset.
/// - [`ErrorPolicy::skip`]: the observation is left out of its batch (a batch may then be
///   shorter, or empty) and recorded, with its error, in [`Stats::skipped`](crate::Stats).
///   Unbatched ([`Loader::unbatched`](crate::Loader::unbatched), `eachobsparallel`), a skipped
///   observation is simply not delivered, so the iterator's `len()` counted it.
/// - [`ErrorPolicy::retry`]`(n)`: try again up to `n` times (for flaky storage), then fail fast,
///   or skip with [`ErrorPolicy::then_skip`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ErrorPolicy {
    retries: u32,
    skip: bool,
}

impl ErrorPolicy {
    /// Stop the epoch at the first failure (the default).
    pub fn fail_fast() -> Self {
        Self::default()
    }

    /// Leave failed observations out, and record them in the epoch's stats.
    pub fn skip() -> Self {
        Self {
            retries: 0,
            skip: true,
        }
    }

    /// Try a failed observation again, up to `times` more times, then fail fast.
    pub fn retry(times: u32) -> Self {
        Self {
            retries: times,
            skip: false,
        }
    }

    /// After the retries, skip rather than fail.
    pub fn then_skip(self) -> Self {
        Self { skip: true, ..self }
    }

    /// How many more times a failed load is tried.
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// Whether a failure that survives its retries is skipped (else the epoch fails).
    pub fn skips(&self) -> bool {
        self.skip
    }
}

/// A [`TryDataset`] loaded under an [`ErrorPolicy`]: a [`Loader`](crate::Loader) over it
/// delivers its successful outputs.
///
/// ```
/// use foldex_dataset::from_fn;
/// use foldex_loader::{Checked, ErrorPolicy, Loader};
/// use foldex_threaded::ThreadedEx;
/// let files = from_fn(10, |i| if i % 4 == 1 { Err(format!("file {i} is corrupt")) } else { Ok(i) });
/// let loader = Loader::new(Checked::new(files, ErrorPolicy::skip()), ThreadedEx::new().basesize(1)).batch_size(5);
/// let mut iter = loader.iter();
/// let batches: Vec<Vec<usize>> = iter.by_ref().collect();
/// assert_eq!(batches, vec![vec![0, 2, 3, 4], vec![6, 7, 8]]);
/// let skipped: Vec<usize> = iter.stats().skipped.iter().map(|s| s.index).collect();
/// assert_eq!(skipped, vec![1, 5, 9]);
/// ```
///
/// [`Checked::get`] loads one observation outside a loader: it has nowhere to skip to or
/// record in, so it retries as the policy says, then fails fast.
#[derive(Debug, Clone)]
pub struct Checked<D> {
    dataset: D,
    policy: ErrorPolicy,
}

impl<D: TryDataset> Checked<D> {
    /// Loads `dataset` under `policy`.
    pub fn new(dataset: D, policy: ErrorPolicy) -> Self {
        Self { dataset, policy }
    }

    /// The policy.
    pub fn policy(&self) -> ErrorPolicy {
        self.policy
    }

    /// The wrapped dataset.
    pub fn into_inner(self) -> D {
        self.dataset
    }

    pub(crate) fn inner(&self) -> &D {
        &self.dataset
    }
}

impl<D> Checked<D>
where
    D: TryDataset,
    D::Error: fmt::Display + Send + 'static,
{
    /// The observation at `index`, retried as the policy says; a failure that survives the
    /// retries panics with its [`ItemError`] as the payload.
    pub fn get(&self, index: usize) -> D::Output {
        self.load_checked(index, None)
            .expect("without a loader, failures are not skipped")
    }

    /// The observation at `index` under the policy, recording retries and skips in
    /// `recorder` (a loader's epoch); `None` when it was skipped.
    pub(crate) fn load_checked(
        &self,
        index: usize,
        recorder: Option<&Recorder>,
    ) -> Option<D::Output> {
        let result = self.try_with_retries(index, recorder);
        self.settle(index, result, recorder)
    }

    fn try_with_retries(
        &self,
        index: usize,
        recorder: Option<&Recorder>,
    ) -> Result<D::Output, D::Error> {
        let mut result = self.dataset.try_get(index);
        for _ in 0..self.policy.retries {
            if result.is_ok() {
                break;
            }
            if let Some(recorder) = recorder {
                recorder.retried();
            }
            result = self.dataset.try_get(index);
        }
        result
    }

    fn settle(
        &self,
        index: usize,
        result: Result<D::Output, D::Error>,
        recorder: Option<&Recorder>,
    ) -> Option<D::Output> {
        match (result, recorder) {
            (Ok(output), _) => Some(output),
            (Err(error), Some(recorder)) if self.policy.skip => {
                recorder.skipped(index, error.to_string());
                None
            }
            // `resume_unwind`, not `panic!`: the error is the payload the consumer receives,
            // and a load failure is not a bug worth a panic message on every worker.
            (Err(error), _) => panic::resume_unwind(Box::new(ItemError { index, error })),
        }
    }
}
