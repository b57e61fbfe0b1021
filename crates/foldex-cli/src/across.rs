//! `foldex bench` inside an MPI job: the `mpi` executor's rows fold the workload across the
//! ranks, each rank folding its block of the items on one thread.

use crate::measure::{self, Measurement};
use crate::workload::TimeDataset;
use foldex::protocol::codec::{Codec, Encoded};
use foldex::{Executor, ExecutorExt};
use std::time::Instant;

/// The MPI job that a run of `foldex bench --executors mpi` is part of. foldex-mpi's `foldex`
/// binary implements it, so that this crate needs no MPI.
pub trait Across: Send + Sync {
    /// This process's rank, `0..size()`; rank 0 prints the table.
    fn rank(&self) -> usize;

    /// The number of ranks.
    fn size(&self) -> usize;

    /// An executor over every rank, each rank folding its block on one thread. Collective:
    /// every rank asks for it at the same point of the run; the thread that asked is the only
    /// one that uses it.
    ///
    /// # Errors
    /// Why it could not be made.
    fn executor(&self) -> Result<Box<dyn Executor>, String>;
}

/// Folds `data` across the ranks with `executor` (what [`Across::executor`] made), counting the
/// items and summing their indices; every rank returns the whole job's figures. The clock
/// covers the fold, from the first item's start to every rank holding the result.
pub fn fold(
    executor: &dyn Executor,
    data: TimeDataset,
    on_item: &(dyn Fn() + Sync),
) -> Measurement {
    let cpu_before = crate::cputime::process();
    let caller_before = crate::cputime::thread();
    let started = Instant::now();
    let (items, index_sum) = executor.fold(
        0..data.n,
        Encoded(|| (0u64, 0u128), CountAndSum),
        |(items, sum), i| {
            let index = data.get(i);
            on_item();
            (items + 1, sum + index as u128)
        },
        |(a, x), (b, y)| (a + b, x + y),
    );
    let wall = started.elapsed();
    Measurement {
        wall,
        cpu: measure::since(crate::cputime::process(), cpu_before),
        // The fold's caller stands for the consumer: the result comes to it, at the end.
        consumer_cpu: measure::since(crate::cputime::thread(), caller_before),
        items: items as usize,
        index_sum,
        interrupted: false,
    }
}

/// `(items, index sum)` as 24 little-endian bytes.
struct CountAndSum;

impl Codec<(u64, u128)> for CountAndSum {
    fn encode(&self, &(items, sum): &(u64, u128), out: &mut Vec<u8>) -> Result<(), String> {
        out.extend_from_slice(&items.to_le_bytes());
        out.extend_from_slice(&sum.to_le_bytes());
        Ok(())
    }

    fn decode(&self, bytes: &[u8]) -> Result<(u64, u128), String> {
        let (Ok(items), Ok(sum)) = (
            bytes.get(..8).unwrap_or_default().try_into(),
            bytes.get(8..).unwrap_or_default().try_into(),
        ) else {
            return Err(format!("{} bytes where 24 were due", bytes.len()));
        };
        Ok((u64::from_le_bytes(items), u128::from_le_bytes(sum)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Variant;
    use foldex_testkit::ThroughBytes;
    use std::time::Duration;

    #[test]
    fn a_fold_through_bytes_sees_every_item_once() {
        let data = TimeDataset {
            n: 1000,
            t: Duration::ZERO,
            variant: Variant::Spin,
        };
        let m = fold(&ThroughBytes { pieces: 3 }, data, &|| ());
        assert_eq!((m.items, m.index_sum), (1000, data.index_sum()));
        assert!(CountAndSum.decode(&[0; 23]).is_err());
    }
}
