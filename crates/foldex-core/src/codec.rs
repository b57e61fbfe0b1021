//! How a fold's partial results cross a process boundary, for executors whose pieces run in
//! other processes (`foldex-mpi`'s `MpiEx`).
//!
//! A fold carries a codec only when its caller gives one: the typed API cannot ask whether an
//! arbitrary accumulator serialises. The codec comes with the fold's `init`, which describes the
//! accumulator ([`Init`]): a closure has none, [`Encoded`] pairs one with a [`Codec`]. An
//! executor finds it with [`Job::codec`]; a job without one cannot leave its process.
//!
//! [`Job::codec`]: crate::Job::codec

use crate::audited::Partial;
#[cfg(feature = "serde")]
pub use crate::postcard::Postcard;

/// Writes a fold's accumulator as bytes and reads it back. Implement it for a format (a serde
/// format in `foldex-mpi`'s `Postcard`) or by hand:
///
/// ```
/// use foldex_core::codec::Encoded;
/// use foldex_core::{Codec, ExecutorExt};
/// use foldex_seq::SequentialEx;
///
/// struct LittleEndian;
/// impl Codec<u64> for LittleEndian {
///     fn encode(&self, acc: &u64, out: &mut Vec<u8>) -> Result<(), String> {
///         out.extend_from_slice(&acc.to_le_bytes());
///         Ok(())
///     }
///     fn decode(&self, bytes: &[u8]) -> Result<u64, String> {
///         let bytes = bytes.try_into().map_err(|_| format!("{} bytes, not 8", bytes.len()))?;
///         Ok(u64::from_le_bytes(bytes))
///     }
/// }
///
/// let init = Encoded(|| 0u64, LittleEndian);
/// let sum = SequentialEx.fold(0..10usize, init, |a, i| a + i as u64, |a, b| a + b);
/// assert_eq!(sum, 45);
/// ```
pub trait Codec<A>: Sync {
    /// Appends `acc` to `out`.
    ///
    /// # Errors
    /// Why `acc` cannot be written. A panic counts as an error too.
    fn encode(&self, acc: &A, out: &mut Vec<u8>) -> Result<(), String>;

    /// Reads back an accumulator that [`encode`](Codec::encode) wrote, from exactly `bytes`.
    ///
    /// # Errors
    /// Why `bytes` is not an accumulator. A panic counts as an error too.
    fn decode(&self, bytes: &[u8]) -> Result<A, String>;
}

impl<A, C: Codec<A> + ?Sized> Codec<A> for &C {
    fn encode(&self, acc: &A, out: &mut Vec<u8>) -> Result<(), String> {
        (**self).encode(acc, out)
    }
    fn decode(&self, bytes: &[u8]) -> Result<A, String> {
        (**self).decode(bytes)
    }
}

/// What makes each piece's accumulator, and the codec that writes it as bytes, if any: the
/// `init` of every fold ([`ExecutorExt`](crate::ExecutorExt), [`SpawnExt`](crate::SpawnExt)).
/// A closure `Fn() -> A` has no codec; [`Encoded`] pairs one with a [`Codec`].
pub trait Init<A>: Sync {
    /// A fresh accumulator: an identity of the fold's `combine`.
    fn init(&self) -> A;

    /// The codec of the accumulator, where the fold's partials may cross processes.
    fn codec(&self) -> Option<&dyn Codec<A>>;
}

impl<A, F: Fn() -> A + Sync> Init<A> for F {
    #[inline]
    fn init(&self) -> A {
        self()
    }

    #[inline]
    fn codec(&self) -> Option<&dyn Codec<A>> {
        None
    }
}

/// A fold's `init` (`.0`) with a codec for its accumulators (`.1`), so that an executor whose
/// pieces run in other processes (`foldex_mpi::MpiEx`, with `foldex_mpi::Postcard` for serde
/// accumulators) can run the fold; executors in this process ignore the codec. A fold over a
/// [`Stream`](crate::Stream) cannot send its partials elsewhere: given a codec, it panics
/// saying so. [`Codec`]'s example folds with one.
#[derive(Debug, Clone, Copy)]
pub struct Encoded<I, K>(pub I, pub K);

impl<A, I: Fn() -> A + Sync, K: Codec<A>> Init<A> for Encoded<I, K> {
    #[inline]
    fn init(&self) -> A {
        (self.0)()
    }

    #[inline]
    fn codec(&self) -> Option<&dyn Codec<A>> {
        Some(&self.1)
    }
}

/// A job's partials as bytes, for an executor that sends them to another process: what
/// [`Job::codec`](crate::Job::codec) returns when the fold's caller gave a [`Codec`].
///
/// The bytes hold what the partial covers, what it came to (folded whole, stopped by a
/// `Break`, skipped), its accumulator (not a skipped piece's, which never counts), and what the
/// job knows that the receiving copy of the
/// fold needs in order to give the same answer: where the leftmost `Break` is, and the leftmost
/// panic's place and message (its payload, if not a string, cannot travel). Decoding them in
/// another process's copy of the same fold (SPMD: every process builds the same job) gives a
/// partial of that copy, and tells it of that `Break` and that panic, which it then treats as
/// its own: the panic is re-raised there, with its message, unless a `Break` comes first.
pub trait PartialCodec<'a> {
    /// `partial` as bytes.
    ///
    /// # Errors
    /// Why not: the accumulator did not encode (its `Serialize` failed or panicked), or the
    /// job was halted by an executor bug, which is raised in this process.
    fn encode(&self, partial: Partial<'a>) -> Result<Vec<u8>, String>;

    /// The partial that [`encode`](PartialCodec::encode) wrote as `bytes` in a copy of this
    /// job.
    ///
    /// # Errors
    /// Why `bytes` is not such a partial, or its accumulator did not decode.
    fn decode(&self, bytes: &[u8]) -> Result<Partial<'a>, String>;
}
