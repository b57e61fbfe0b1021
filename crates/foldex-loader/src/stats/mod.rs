//! Diagnostics of an epoch, always on: the figures [`Iter::stats`](crate::Iter::stats) and
//! [`StreamIter::stats`](crate::StreamIter::stats) report ([`Stats`], with a one-line verdict),
//! and the recorder that counts them on the producing threads and the consumer.

mod recorder;
mod report;

pub use crate::stall::{LoadAt, StalledLoad};
pub(crate) use recorder::{EpochTally, Recorder, Run};
pub(crate) use report::INPUT_BOUND;
pub use report::{BufferOrigin, SkippedItem, Stats, Verdict, WorkerStats};
