//! What each rank's block came to, encoded, and gathered on every rank.

use crate::error::MpiError;
use mpi::datatype::PartitionMut;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;
use serde::{Deserialize, Serialize};

/// One rank's block, as every rank sees it after the gather.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Outcome {
    /// The block's partial, encoded by the job's codec (what it came to, a `Break` or a panic
    /// in it included).
    Part(Vec<u8>),
    /// An earlier rank broke or panicked, so this block stopped; its part is not needed.
    Stopped,
    /// The block is empty (more ranks than items): nothing to send.
    Empty,
    /// The block's partial could not be encoded, or its local executor failed, for this
    /// reason.
    Failed(String),
}

/// What every rank learns from the gather: which ranks sent stop notices, and every rank's
/// outcome by rank (or the same error on every rank when the outcomes together exceed what
/// one MPI count can number).
pub(crate) struct Gathered {
    pub sent_notices: Vec<bool>,
    pub outcomes: Result<Vec<Outcome>, MpiError>,
}

/// Every rank's outcome on every rank: one gather of sizes and notice flags, one of bytes.
pub(crate) fn gather(comm: &SimpleCommunicator, mine: &Outcome, sent_notices: bool) -> Gathered {
    let bytes = postcard::to_stdvec(mine).expect("an outcome encodes");
    let size = comm.size() as usize;
    let mut pairs = vec![0u64; 2 * size];
    let me = [bytes.len() as u64, u64::from(sent_notices)];
    comm.all_gather_into(&me[..], &mut pairs[..]);
    let sent_notices = pairs.chunks(2).map(|pair| pair[1] == 1).collect();
    let sizes: Vec<u64> = pairs.chunks(2).map(|pair| pair[0]).collect();
    Gathered {
        sent_notices,
        outcomes: gather_bytes(comm, &bytes, &sizes),
    }
}

fn gather_bytes(
    comm: &SimpleCommunicator,
    bytes: &[u8],
    sizes: &[u64],
) -> Result<Vec<Outcome>, MpiError> {
    let size = sizes.len();
    // Offsets and the total are counted in `u64`; MPI counts them in `i32`.
    let mut at = 0u64;
    let mut displs: Vec<Count> = Vec::with_capacity(size);
    for (rank, &n) in sizes.iter().enumerate() {
        let fits = |x: u64| Count::try_from(x).ok();
        match (fits(at), fits(at + n)) {
            (Some(start), Some(_)) => displs.push(start),
            _ => {
                return Err(MpiError::Codec {
                    rank,
                    why: format!(
                        "the ranks' partials up to this one take {} bytes, more than one MPI \
                         gather can carry ({} bytes)",
                        at + n,
                        Count::MAX
                    ),
                })
            }
        }
        at += n;
    }
    let counts: Vec<Count> = sizes.iter().map(|&n| n as Count).collect();
    let mut all = vec![0u8; at as usize];
    {
        let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
        comm.all_gather_varcount_into(bytes, &mut partition);
    }
    Ok(counts
        .iter()
        .zip(&displs)
        .map(|(&n, &start)| {
            let slice = &all[start as usize..(start + n) as usize];
            postcard::from_bytes(slice).expect("an outcome decodes")
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_partial_travels_in_a_few_bytes() {
        // A partial of 30 bytes travels in 32 (variant, length, bytes).
        let outcome = postcard::to_stdvec(&Outcome::Part(vec![7; 30])).unwrap();
        assert_eq!(outcome.len(), 32);
        let stopped = postcard::to_stdvec(&Outcome::Stopped).unwrap();
        assert_eq!(stopped.len(), 1);
    }

    #[test]
    fn an_empty_sum_moves_41_bytes_per_rank() {
        use foldex_core::codec::Encoded;
        use foldex_core::codec::Postcard;
        use foldex_core::{Executor, ExecutorExt, Job, Partial};
        use std::sync::atomic::{AtomicUsize, Ordering};
        /// Runs the job whole and keeps the size of its partial's outcome.
        struct Size(AtomicUsize);
        impl Executor for Size {
            fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
                let codec = job.codec().unwrap();
                let bytes = codec.encode(job.run(0..job.len())).unwrap();
                let outcome = postcard::to_stdvec(&Outcome::Part(bytes.clone())).unwrap();
                self.0.store(outcome.len(), Ordering::Relaxed);
                codec.decode(&bytes).unwrap()
            }
        }
        let size = Size(AtomicUsize::new(0));
        let sum = size.fold(
            0..0usize,
            Encoded(|| 0u64, Postcard),
            |s, _| s + 1,
            |a, b| a + b,
        );
        assert_eq!(sum, 0);
        // The partial's 39 (kind, range, Break, panic flag, the accumulator's length and its
        // one-byte varint, the checksum) in an outcome.
        assert_eq!(size.0.load(Ordering::Relaxed), 41);
    }
}
