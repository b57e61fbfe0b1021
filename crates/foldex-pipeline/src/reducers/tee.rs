//! Several reducers in one pass (a tuple of them, Transducers.jl's `TeeRF`), a reducer over
//! the items mapped first, and [`Pipeline::reduce_all`], which runs any reducer.

use super::Reducer;
use crate::pipeline::Pipeline;
use crate::stage::Transform;
use crate::streamed::PipeSource;
use foldex_core::{Codec, Executor};

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// Runs `reducer` over the items in one fold and gives its result: a tuple of reducers
    /// (up to 8) gives a tuple of results, all from one pass over the data (Transducers.jl's
    /// `TeeRF` / `ProductRF`). Each item is cloned into every reducer of a tuple but the last,
    /// so items are best small or references. The reducers are in [`crate::reducers`]; each
    /// gives what the same reduction gives on `std::iter`, on every executor. Nothing in a
    /// tuple stops the pass early (see [`crate::reducers`]).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_pipeline::reducers::{count, max, mean, sum};
    /// use foldex_threaded::ThreadedEx;
    /// let ex = ThreadedEx::new();
    /// let sizes = [120u32, 4, 87, 4, 300];
    /// let (n, total, largest, avg) = sizes.pipe().copied().reduce_all(&ex, (count(), sum::<u32>(), max(), mean()));
    /// assert_eq!((n, total, largest, avg.get()), (5, 515, Some(300), Some(103.0)));
    /// ```
    #[doc(alias = "tee")]
    pub fn reduce_all<E, R>(&self, ex: &E, reducer: R) -> R::Acc
    where
        E: Executor + ?Sized,
        R: Reducer<X::Out>,
        K: Codec<R::Acc>,
    {
        let step = |mut acc, item| {
            reducer.push(&mut acc, item);
            acc
        };
        let merge = |mut left, right| {
            reducer.merge(&mut left, right);
            left
        };
        self.fold(ex, || reducer.start(), step, merge)
    }
}

/// A reducer over `f(item)` for each item: so that the reducers of a tuple each see their own
/// view of the items (Transducers' `Map(f)'(rf)`).
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_pipeline::reducers::{count, map, sum};
/// use foldex_seq::SequentialEx;
/// let words = ["fold", "on", "any"];
/// let (n, letters) = words.pipe().reduce_all(&SequentialEx, (count(), map(|w: &&str| w.len(), sum::<usize>())));
/// assert_eq!((n, letters), (3, 9));
/// ```
pub fn map<T, U, F: Fn(T) -> U, R: Reducer<U>>(f: F, reducer: R) -> Map<F, R> {
    Map { f, reducer }
}

/// The [`Reducer`] of [`map`].
#[derive(Debug, Clone, Copy)]
pub struct Map<F, R> {
    f: F,
    reducer: R,
}

impl<T, U, F: Fn(T) -> U + Sync, R: Reducer<U>> Reducer<T> for Map<F, R> {
    type Acc = R::Acc;
    fn start(&self) -> R::Acc {
        self.reducer.start()
    }
    #[inline]
    fn push(&self, acc: &mut R::Acc, item: T) {
        self.reducer.push(acc, (self.f)(item));
    }
    fn merge(&self, left: &mut R::Acc, right: R::Acc) {
        self.reducer.merge(left, right);
    }
}

/// A tuple of reducers: each item cloned into every one but the last, which takes it.
macro_rules! tee {
    ($($r:ident $i:tt),* ; $last:ident $l:tt) => {
        impl<T: Clone, $($r: Reducer<T>,)* $last: Reducer<T>> Reducer<T> for ($($r,)* $last,) {
            type Acc = ($($r::Acc,)* $last::Acc,);
            fn start(&self) -> Self::Acc {
                ($(self.$i.start(),)* self.$l.start(),)
            }
            #[inline]
            fn push(&self, acc: &mut Self::Acc, item: T) {
                $(self.$i.push(&mut acc.$i, item.clone());)*
                self.$l.push(&mut acc.$l, item);
            }
            fn merge(&self, left: &mut Self::Acc, right: Self::Acc) {
                $(self.$i.merge(&mut left.$i, right.$i);)*
                self.$l.merge(&mut left.$l, right.$l);
            }
        }
    };
}

tee!(A 0; B 1);
tee!(A 0, B 1; C 2);
tee!(A 0, B 1, C 2; D 3);
tee!(A 0, B 1, C 2, D 3; E 4);
tee!(A 0, B 1, C 2, D 3, E 4; F 5);
tee!(A 0, B 1, C 2, D 3, E 4, F 5; G 6);
tee!(A 0, B 1, C 2, D 3, E 4, F 5, G 6; H 7);
