//! An executor called the way a data loader's driver calls it.

use foldex_core::exec::stand_in_for_helper;
use foldex_core::{Executor, Job, Partial};

/// Calls `execute` of the executor it wraps as a thread that stands in for a helper
/// ([`stand_in_for_helper`]), as a loader's driver does; everything else passes through. Run the
/// conformance suite on it to check an executor's stand-in path.
///
/// ```
/// use foldex_core::{Executor, ExecutorExt, Job, Partial};
/// use foldex_testkit::StandIn;
///
/// struct Inline;
/// impl Executor for Inline {
///     fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
///         job.run(0..job.len())
///     }
/// }
///
/// assert_eq!(StandIn(Inline).sum::<usize>(0..10), 45);
/// ```
#[derive(Debug, Clone)]
pub struct StandIn<E>(pub E);

impl<E: Executor> Executor for StandIn<E> {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        stand_in_for_helper(|| self.0.execute(job))
    }
    fn workers(&self) -> usize {
        self.0.workers()
    }
    fn is_worker_thread(&self) -> bool {
        self.0.is_worker_thread()
    }
    fn help(&self) -> bool {
        self.0.help()
    }
}
