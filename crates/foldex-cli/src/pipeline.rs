//! Building a row's pipeline: the executor (or the rayon pool) is made before the clock starts,
//! then the items of the workload flow through it to the consumer.

use crate::across::{self, Across};
use crate::executors::{Choice, Kind};
use crate::measure::{self, Measurement};
use crate::reference;
use crate::workload::TimeDataset;
use foldex::{Executor, ExecutorExt};
use rayon::ThreadPool;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// An executor, or the reference's pool, ready to run.
pub enum Prepared {
    /// A foldex executor, which the loader drives.
    Foldex(Arc<dyn Executor>),
    /// The rayon pool of the reference pipeline.
    Rayon(Arc<ThreadPool>),
    /// An executor over the ranks of an MPI job, which folds the items across them.
    Across(Box<dyn Executor>),
}

/// Builds the executor `choice` names (its threads start here, outside the timed span). An
/// error says why it could not be made; a `TaskPoolEx` whose threads cannot start panics on its
/// first fold, here, with the message.
pub fn prepare(choice: Choice, across: Option<&dyn Across>) -> Result<Prepared, String> {
    let executor: Arc<dyn Executor> = match choice.kind {
        Kind::Mpi => {
            let across = across.ok_or("not in an MPI job")?;
            return across.executor().map(Prepared::Across);
        }
        Kind::Sequential => Arc::new(foldex::SequentialEx),
        Kind::Auto => Arc::new(foldex::AutoEx::new()),
        Kind::Threaded => {
            // A pool short of threads joins the ones it started and says why.
            let pool = foldex::Pool::try_new(choice.workers).map_err(|e| e.to_string())?;
            let ex = foldex::ThreadedEx::new().pool(pool);
            Arc::new(match choice.basesize {
                Some(b) => ex.basesize(b),
                None => ex,
            })
        }
        Kind::DepthFirst => {
            let pool = foldex::Pool::try_new(choice.workers).map_err(|e| e.to_string())?;
            let ex = foldex::DepthFirstEx::on(foldex::ThreadedEx::new().pool(pool));
            Arc::new(match choice.basesize {
                Some(b) => ex.basesize(b),
                None => ex,
            })
        }
        Kind::Rayon => return reference::pool(choice.workers).map(Prepared::Rayon),
        Kind::TaskPool | Kind::TaskPoolBackground => {
            let ex = foldex::TaskPoolEx::new()
                .ntasks(choice.workers)
                .background(choice.kind == Kind::TaskPoolBackground);
            Arc::new(match choice.basesize {
                Some(b) => ex.basesize(b),
                None => ex,
            })
        }
    };
    // Pools may start their threads on first use: start them now, off the clock.
    executor.for_each(0..4 * choice.workers, |i| {
        std::hint::black_box(i);
    });
    Ok(Prepared::Foldex(executor))
}

/// The reference's channel capacity when `--buffer` is not given: the loader's default (twice
/// the executor's workers), so that both pipelines may hold as many items ready.
pub fn default_buffer(workers: usize) -> usize {
    2 * workers
}

impl Prepared {
    /// One run over `data`: the pipeline consumed to its end (or until `stop`), or the fold
    /// across ranks.
    pub fn measure(
        &self,
        data: TimeDataset,
        workers: usize,
        buffer: Option<usize>,
        stop: &AtomicBool,
        on_item: &(dyn Fn() + Sync),
    ) -> Measurement {
        match self {
            Prepared::Across(executor) => across::fold(&**executor, data, on_item),
            _ => measure::consume(|| self.items(data, workers, buffer), stop, on_item),
        }
    }

    /// Starts the pipeline over `data`; the consumer iterates what this returns.
    fn items(
        &self,
        data: TimeDataset,
        workers: usize,
        buffer: Option<usize>,
    ) -> Box<dyn Iterator<Item = usize> + '_> {
        match self {
            Prepared::Foldex(executor) => Box::new(load(data, Arc::clone(executor), buffer)),
            Prepared::Rayon(pool) => {
                let buffer = buffer.unwrap_or_else(|| default_buffer(workers));
                Box::new(reference::items(data, Arc::clone(pool), buffer))
            }
            Prepared::Across(_) => unreachable!("a fold across ranks has no item stream"),
        }
    }
}

/// The seed's benchmark: `eachobsparallel(data, executor)`, every item as it finishes. With an
/// explicit buffer, the same through the `Loader` builder (`eachobsparallel` sizes its own).
fn load(
    data: TimeDataset,
    executor: Arc<dyn Executor>,
    buffer: Option<usize>,
) -> foldex::loader::Iter<usize> {
    let dataset = foldex::dataset::from_fn(data.n, move |i| data.get(i));
    match buffer {
        None => foldex::loader::eachobsparallel(dataset, executor),
        Some(buffer) => foldex::loader::Loader::new(dataset, executor)
            .ordered(false)
            .buffer(buffer)
            .collate(|batch: Vec<usize>| batch[0])
            .iter(),
    }
}
