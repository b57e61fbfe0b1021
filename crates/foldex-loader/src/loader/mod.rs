//! The loader: its builder ([`Loader`], `builder.rs`), the sealed choice between owned and
//! reused batches (`mode.rs`), the byte cap's setting (`bytes.rs`), the merging of a world's
//! states for elastic resumption (`merge.rs`), the start of an epoch (`start.rs`) and the
//! consumer's iterator ([`Iter`], `iter.rs`).

mod builder;
mod bytes;
mod iter;
mod merge;
mod mode;
mod start;

pub use builder::{eachobsparallel, Loader};
pub(crate) use bytes::{measure_of, AnyMeasure};
pub use iter::Iter;
pub use mode::{BatchMode, Owned, Reuse, ReusedBatch};
