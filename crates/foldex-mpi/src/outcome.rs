//! What each rank's block came to, encoded, and gathered on every rank.

use mpi::datatype::PartitionMut;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;
use serde::{Deserialize, Serialize};

/// One rank's block, as every rank sees it after the gather.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Outcome {
    /// The block folded whole: its partial, encoded.
    Done(Vec<u8>),
    /// The block broke: its partial up to the `Break`, encoded.
    Broke(Vec<u8>),
    /// The block panicked, with this message.
    Panicked(String),
    /// An earlier rank broke or panicked, so this block stopped; its part is not needed.
    Stopped,
    /// The block's partial could not be encoded, for this reason.
    Unencodable(String),
}

impl Outcome {
    /// Whether this rank told the later ranks to stop.
    pub fn sent_notices(&self) -> bool {
        matches!(self, Outcome::Broke(_) | Outcome::Panicked(_))
    }
}

/// Every rank's outcome, by rank, on every rank (one gather of lengths, one of bytes).
pub(crate) fn gather(comm: &SimpleCommunicator, mine: &Outcome) -> Vec<Outcome> {
    let bytes = postcard::to_stdvec(mine).expect("an outcome encodes");
    let size = comm.size() as usize;
    let mut counts: Vec<Count> = vec![0; size];
    let count = Count::try_from(bytes.len()).expect("a partial under 2 GiB");
    comm.all_gather_into(&count, &mut counts[..]);
    let displs: Vec<Count> = counts
        .iter()
        .scan(0, |at, &n| {
            let start = *at;
            *at += n;
            Some(start)
        })
        .collect();
    let total: usize = counts.iter().map(|&n| n as usize).sum();
    let mut all = vec![0u8; total];
    {
        let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
        comm.all_gather_varcount_into(&bytes[..], &mut partition);
    }
    counts
        .iter()
        .zip(&displs)
        .map(|(&n, &at)| {
            let slice = &all[at as usize..(at + n) as usize];
            postcard::from_bytes(slice).expect("an outcome decodes")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_partial_travels_in_a_few_bytes() {
        // A `u64` sum of 0 encodes in one byte; its outcome in three (variant, length, byte).
        let partial = postcard::to_stdvec(&0u64).unwrap();
        assert_eq!(partial.len(), 1);
        let outcome = postcard::to_stdvec(&Outcome::Done(partial)).unwrap();
        assert_eq!(outcome.len(), 3);
        let stopped = postcard::to_stdvec(&Outcome::Stopped).unwrap();
        assert_eq!(stopped.len(), 1);
    }
}
