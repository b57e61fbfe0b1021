//! [`Postcard`]: a codec for any serde accumulator (the `serde` feature).

use crate::Codec;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Writes any serde accumulator with `postcard`: compact (a `u64` of 0 is one byte: integers
/// are varints), with no schema in the bytes, which every process shares anyway since every
/// process runs the same program. Give it with a fold's `init` ([`Encoded`]), or to a pipeline
/// (`pipeline.encoded(Postcard)`), to run the fold on `foldex_mpi::MpiEx`.
///
/// ```
/// use foldex_core::codec::Encoded;
/// use foldex_core::codec::Postcard;
/// use foldex_core::ExecutorExt;
/// use foldex_seq::SequentialEx;
/// // Any executor accepts a codec; an executor of other processes needs one.
/// let n = SequentialEx.fold(0..100usize, Encoded(|| 0u64, Postcard), |n, _| n + 1, |a, b| a + b);
/// assert_eq!(n, 100);
/// ```
///
/// [`Encoded`]: crate::codec::Encoded
#[derive(Debug, Clone, Copy, Default)]
pub struct Postcard;

impl<A: Serialize + DeserializeOwned> Codec<A> for Postcard {
    fn encode(&self, acc: &A, out: &mut Vec<u8>) -> Result<(), String> {
        let bytes = postcard::to_extend(acc, std::mem::take(out)).map_err(|e| e.to_string())?;
        *out = bytes;
        Ok(())
    }

    fn decode(&self, bytes: &[u8]) -> Result<A, String> {
        postcard::from_bytes(bytes).map_err(|e| e.to_string())
    }
}
