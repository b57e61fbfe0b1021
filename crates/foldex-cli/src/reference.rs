//! The reference pipeline: a rayon pool loads the items and sends them through a bounded
//! crossbeam channel to the consumer, the way one would write a parallel loader without foldex.

use crate::workload::TimeDataset;
use crossbeam_channel::{bounded, Receiver};
use foldex::protocol::exec::spawn_running;
use rayon::iter::{IntoParallelIterator, ParallelIterator};
use rayon::ThreadPool;
use std::sync::Arc;
use std::thread::JoinHandle;

/// A rayon pool of `threads` threads, built before the clock starts. Its threads start one at
/// a time, as foldex's pools start theirs (`exec::spawn_running`), so that a pool too large for
/// the address space fails its row instead of aborting the command.
pub fn pool(threads: usize) -> Result<Arc<ThreadPool>, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("foldex-bench-rayon-{i}"))
        .spawn_handler(|thread| {
            let mut builder = std::thread::Builder::new();
            if let Some(name) = thread.name() {
                builder = builder.name(name.to_owned());
            }
            if let Some(bytes) = thread.stack_size() {
                builder = builder.stack_size(bytes);
            }
            spawn_running(builder, || thread.run())?;
            Ok(())
        })
        .build()
        .map(Arc::new)
        .map_err(|e| format!("could not start a rayon pool of {threads} threads: {e}"))
}

/// The items of `data`, loaded by `pool` in parallel, at most `buffer` waiting in the channel.
pub fn items(data: TimeDataset, pool: Arc<ThreadPool>, buffer: usize) -> RayonItems {
    // crossbeam's bounded channel makes all its places up front; it never holds more than the
    // `n` items there are, so a larger buffer (`--buffer 1000000000000`) is the same as `n`.
    let (sender, receiver) = bounded(buffer.min(data.n.max(1)));
    let producer = std::thread::Builder::new()
        .name("foldex-bench-rayon-producer".to_owned())
        .spawn(move || {
            pool.install(|| {
                // A failed send means the consumer hung up: stop loading.
                let _hung_up = (0..data.n)
                    .into_par_iter()
                    .try_for_each(|i| sender.send(data.get(i)).map_err(drop));
            });
        })
        .expect("spawning the producer thread");
    RayonItems {
        receiver: Some(receiver),
        producer: Some(producer),
    }
}

/// The consumer's side of [`items`]. Dropping it stops the producer and waits for the items
/// in progress.
pub struct RayonItems {
    receiver: Option<Receiver<usize>>,
    producer: Option<JoinHandle<()>>,
}

impl Iterator for RayonItems {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        self.receiver.as_ref()?.recv().ok()
    }
}

impl Drop for RayonItems {
    fn drop(&mut self) {
        // Hang up first, so that a producer blocked on a full channel wakes and stops.
        drop(self.receiver.take());
        if let Some(producer) = self.producer.take()
            && let Err(payload) = producer.join()
            && !std::thread::panicking()
        {
            std::panic::resume_unwind(payload);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Variant;
    use std::time::Duration;

    fn data(n: usize) -> TimeDataset {
        TimeDataset {
            n,
            t: Duration::from_micros(50),
            variant: Variant::Spin,
        }
    }

    #[test]
    fn every_index_arrives_once() {
        foldex_testkit::watchdog("rayon reference, whole run", || {
            let mut seen: Vec<usize> = items(data(500), pool(2).unwrap(), 4).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..500).collect::<Vec<_>>());
        });
    }

    #[test]
    fn a_buffer_larger_than_the_items_makes_no_more_places() {
        foldex_testkit::watchdog("rayon reference, huge buffer", || {
            let mut seen: Vec<usize> = items(data(50), pool(2).unwrap(), 1 << 40).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..50).collect::<Vec<_>>());
            assert_eq!(items(data(3), pool(1).unwrap(), usize::MAX).count(), 3);
        });
    }

    #[test]
    fn hanging_up_early_stops_the_producer() {
        foldex_testkit::watchdog("rayon reference, early drop", || {
            let mut it = items(data(10_000_000), pool(2).unwrap(), 2);
            assert!(it.next().is_some());
            drop(it); // would take minutes, past the watchdog, if the producer went on
        });
    }
}
