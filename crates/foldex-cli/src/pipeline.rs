//! Building a row's pipeline: the executor (or the rayon pool) is made before the clock starts,
//! then the items of the workload flow through it to the consumer.

use crate::executors::{Choice, Kind};
use crate::reference;
use crate::workload::TimeDataset;
use foldex::{Executor, ExecutorExt};
use rayon::ThreadPool;
use std::sync::Arc;

/// An executor, or the reference's pool, ready to run.
pub enum Prepared {
    /// A foldex executor, which the loader drives.
    Foldex(Arc<dyn Executor>),
    /// The rayon pool of the reference pipeline.
    Rayon(Arc<ThreadPool>),
}

/// Builds the executor `choice` names (its threads start here, outside the timed span).
pub fn prepare(choice: Choice) -> Result<Prepared, String> {
    let executor: Arc<dyn Executor> = match choice.kind {
        Kind::Sequential => Arc::new(foldex::SequentialEx),
        Kind::Threaded => {
            let ex = foldex::ThreadedEx::new().threads(choice.workers);
            Arc::new(match choice.basesize {
                Some(b) => ex.basesize(b),
                None => ex,
            })
        }
        Kind::Rayon => return reference::pool(choice.workers).map(Prepared::Rayon),
        Kind::TaskPool | Kind::TaskPoolBackground => {
            let ex = foldex_taskpool::TaskPoolEx::new()
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

/// The reference's channel capacity when `--buffer` is not given: the loader's default for the
/// same number of workers, so that both pipelines may hold as many items ready.
pub fn default_buffer(workers: usize) -> usize {
    2 * workers
}

impl Prepared {
    /// Starts the pipeline over `data`; the consumer iterates what this returns.
    pub fn items(
        &self,
        data: TimeDataset,
        workers: usize,
        buffer: Option<usize>,
    ) -> Box<dyn Iterator<Item = usize> + '_> {
        let buffer = buffer.unwrap_or_else(|| default_buffer(workers));
        match self {
            Prepared::Foldex(executor) => Box::new(feed(data, Arc::clone(executor), buffer)),
            Prepared::Rayon(pool) => Box::new(reference::items(data, Arc::clone(pool), buffer)),
        }
    }
}

fn feed(
    data: TimeDataset,
    executor: Arc<dyn Executor>,
    buffer: usize,
) -> impl Iterator<Item = usize> {
    use std::ops::ControlFlow::{Break, Continue};
    let (sender, receiver) = crossbeam_channel::bounded(buffer);
    let producer = std::thread::spawn(move || {
        let _ = executor.try_fold(
            0..data.n,
            || (),
            |(), i| match sender.send(data.get(i)) {
                Ok(()) => Continue(()),
                Err(_) => Break(()),
            },
            |(), ()| (),
        );
    });
    Feed {
        receiver: Some(receiver),
        producer: Some(producer),
    }
}

struct Feed {
    receiver: Option<crossbeam_channel::Receiver<usize>>,
    producer: Option<std::thread::JoinHandle<()>>,
}

impl Iterator for Feed {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        self.receiver.as_ref()?.recv().ok()
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        drop(self.receiver.take());
        if let Some(p) = self.producer.take() {
            let _ = p.join();
        }
    }
}
