//! [`Encoded`]: a pipeline's reductions with a codec for their accumulators, so that an
//! executor in other processes (`foldex-mpi`'s `MpiEx`) can run them.

use crate::pipeline::Pipeline;
use crate::reduce::{first_min, first_min_key, last_max, last_max_key, Seen};
use crate::streamed::PipeSource;
use crate::transform::Transform;
use foldex_core::{Codec, Executor};
use std::iter::Sum;
use std::ops::{Add, ControlFlow};

/// A pipeline whose reductions write their accumulators with the codec `K`: made by
/// [`Pipeline::encoded`]. Each reduction gives what the same reduction of the pipeline gives,
/// on every executor; it compiles only where `K` can write that reduction's accumulator (for a
/// serde codec, where the items serialise), and executors in this process ignore the codec.
///
/// ```
/// use foldex_core::Codec;
/// use foldex_pipeline::IntoPipeline;
/// use foldex_seq::SequentialEx;
///
/// /// Writes `usize` and `Option<u64>` as little-endian words.
/// struct Words;
/// impl Codec<usize> for Words {
///     fn encode(&self, n: &usize, out: &mut Vec<u8>) -> Result<(), String> {
///         out.extend_from_slice(&(*n as u64).to_le_bytes());
///         Ok(())
///     }
///     fn decode(&self, b: &[u8]) -> Result<usize, String> {
///         Ok(u64::from_le_bytes(b.try_into().map_err(|_| "8 bytes")?) as usize)
///     }
/// }
///
/// let evens = (0..1000u64).pipe().filter(|x| x % 2 == 0);
/// assert_eq!(evens.encoded(Words).count(&SequentialEx), 500);
/// ```
#[derive(Debug)]
pub struct Encoded<'p, S, X, K> {
    pipeline: &'p Pipeline<S, X>,
    codec: K,
}

impl<S: PipeSource, X: Transform<S::Item>> Pipeline<S, X> {
    /// This pipeline's reductions with `codec` for their accumulators, for an executor whose
    /// pieces run in other processes (`foldex_mpi::MpiEx`, with `foldex_mpi::Postcard` for serde
    /// items). A pipeline over a stream, or with `dedup`, `unique` or `skip_while` (which hold
    /// items at a piece's edge), cannot send its partials elsewhere: its encoded reductions
    /// panic saying so.
    pub fn encoded<K>(&self, codec: K) -> Encoded<'_, S, X, K> {
        Encoded {
            pipeline: self,
            codec,
        }
    }
}

impl<S: PipeSource, X: Transform<S::Item>, K> Encoded<'_, S, X, K> {
    /// [`Pipeline::fold`].
    pub fn fold<E, A, I, F, C>(&self, ex: &E, init: I, step: F, combine: C) -> A
    where
        E: Executor + ?Sized,
        K: Codec<A>,
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(A, X::Out) -> A + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        (self.pipeline).fold_encoded(ex, Some(&self.codec), init, step, combine)
    }

    /// [`Pipeline::try_fold`].
    pub fn try_fold<E, A, I, F, C>(&self, ex: &E, init: I, step: F, combine: C) -> ControlFlow<A, A>
    where
        E: Executor + ?Sized,
        K: Codec<A>,
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(A, X::Out) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        (self.pipeline).try_fold_encoded(ex, Some(&self.codec), init, step, combine)
    }

    /// [`Pipeline::count`].
    pub fn count<E: Executor + ?Sized>(&self, ex: &E) -> usize
    where
        K: Codec<usize>,
    {
        self.pipeline.count_encoded(ex, Some(&self.codec))
    }

    /// [`Pipeline::sum`].
    pub fn sum<T>(&self, ex: &(impl Executor + ?Sized)) -> T
    where
        K: Codec<T>,
        T: Add<X::Out, Output = T> + Sum<T> + Send,
    {
        self.pipeline.sum_encoded(ex, Some(&self.codec))
    }

    /// [`Pipeline::reduce`].
    pub fn reduce<E, I, F>(&self, ex: &E, identity: I, op: F) -> X::Out
    where
        E: Executor + ?Sized,
        K: Codec<X::Out>,
        X::Out: Send,
        I: Fn() -> X::Out + Sync,
        F: Fn(X::Out, X::Out) -> X::Out + Sync,
    {
        self.fold(ex, &identity, &op, &op)
    }

    /// [`Pipeline::reduce_with`].
    pub fn reduce_with<E, F>(&self, ex: &E, op: F) -> Option<X::Out>
    where
        E: Executor + ?Sized,
        K: Codec<Option<X::Out>>,
        X::Out: Send,
        F: Fn(X::Out, X::Out) -> X::Out + Sync,
    {
        (self.pipeline).reduce_with_encoded(ex, Some(&self.codec), op)
    }

    /// [`Pipeline::min`].
    pub fn min<E: Executor + ?Sized>(&self, ex: &E) -> Option<X::Out>
    where
        K: Codec<Option<X::Out>>,
        X::Out: Ord + Send,
    {
        self.reduce_with(ex, first_min(Ord::cmp))
    }

    /// [`Pipeline::max`].
    pub fn max<E: Executor + ?Sized>(&self, ex: &E) -> Option<X::Out>
    where
        K: Codec<Option<X::Out>>,
        X::Out: Ord + Send,
    {
        self.reduce_with(ex, last_max(Ord::cmp))
    }

    /// [`Pipeline::min_by_key`]; the codec writes the key beside the item.
    pub fn min_by_key<E, Key, F>(&self, ex: &E, key: F) -> Option<X::Out>
    where
        E: Executor + ?Sized,
        K: Codec<Option<(Key, X::Out)>>,
        X::Out: Send,
        Key: Ord + Send,
        F: Fn(&X::Out) -> Key + Sync,
    {
        (self.pipeline).keyed(ex, Some(&self.codec), key, first_min_key)
    }

    /// [`Pipeline::max_by_key`]; the codec writes the key beside the item.
    pub fn max_by_key<E, Key, F>(&self, ex: &E, key: F) -> Option<X::Out>
    where
        E: Executor + ?Sized,
        K: Codec<Option<(Key, X::Out)>>,
        X::Out: Send,
        Key: Ord + Send,
        F: Fn(&X::Out) -> Key + Sync,
    {
        (self.pipeline).keyed(ex, Some(&self.codec), key, last_max_key)
    }

    /// [`Pipeline::any`].
    pub fn any<E, F>(&self, ex: &E, f: F) -> bool
    where
        E: Executor + ?Sized,
        K: Codec<bool>,
        F: Fn(X::Out) -> bool + Sync,
    {
        self.pipeline.any_encoded(ex, Some(&self.codec), f)
    }

    /// [`Pipeline::all`].
    pub fn all<E, F>(&self, ex: &E, f: F) -> bool
    where
        E: Executor + ?Sized,
        K: Codec<bool>,
        F: Fn(X::Out) -> bool + Sync,
    {
        !self.any(ex, |x| !f(x))
    }

    /// [`Pipeline::find_first`].
    pub fn find_first<E, F>(&self, ex: &E, f: F) -> Option<X::Out>
    where
        E: Executor + ?Sized,
        K: Codec<Option<X::Out>>,
        X::Out: Send,
        F: Fn(&X::Out) -> bool + Sync,
    {
        (self.pipeline).find_first_encoded(ex, Some(&self.codec), f)
    }

    /// [`Pipeline::position_first`]; the codec writes a piece's count of items beside the
    /// position it found, `(usize, Option<usize>)`.
    pub fn position_first<E, F>(&self, ex: &E, f: F) -> Option<usize>
    where
        E: Executor + ?Sized,
        K: Codec<Seen>,
        F: Fn(X::Out) -> bool + Sync,
    {
        (self.pipeline).position_first_encoded(ex, Some(&self.codec), f)
    }

    /// The items in order, as `collect::<Vec<_>>` gives them.
    pub fn collect_vec<E: Executor + ?Sized>(&self, ex: &E) -> Vec<X::Out>
    where
        K: Codec<Vec<X::Out>>,
        X::Out: Send,
    {
        let push = |mut v: Vec<X::Out>, x| {
            v.push(x);
            v
        };
        let append = |mut a: Vec<X::Out>, mut b: Vec<X::Out>| {
            a.append(&mut b);
            a
        };
        self.fold(ex, Vec::new, push, append)
    }
}
