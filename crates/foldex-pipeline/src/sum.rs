//! `sum` and `product` into whatever `Iterator::sum` and `Iterator::product` accept: numbers,
//! and `Result<T, E>` / `Option<T>` of them, which stop at the first `Err` / `None` by index.
//!
//! The bound is std's (`T: Sum<Item>`, and `Sum<T>` to join pieces), so the reduction cannot
//! name `Result` to know when to stop. It asks `T` instead: each step totals three values, the
//! accumulator, the item and the identity, and std's `Sum` and `Product` for `Result` and
//! `Option` are documented to take no element after a failure. So where the identity was not
//! taken, the accumulator is a failure no later item changes, and the fold stops there. For a
//! number the three values inline to one addition.

use crate::pipeline::Pipeline;
use crate::run::into_inner;
use crate::stage::Transform;
use crate::streamed::PipeSource;
use foldex_core::{Codec, Executor};
use std::cell::Cell;
use std::iter::{self, Product, Sum};
use std::ops::ControlFlow;

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// The sum of the items, as `Iterator::sum` (the empty sum is `T`'s zero). Into a
    /// `Result<T, E>` or an `Option<T>` it is the first `Err` / `None` by index, and no item
    /// after it runs.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let ex = ThreadedEx::new();
    /// assert_eq!((1..5).pipe().map(|x| x as u64).sum::<u64>(&ex), 10);
    /// let parsed: Result<u32, _> = ["1", "2", "x", "y"].pipe().map(|s| s.parse::<u32>()).sum(&ex);
    /// assert!(parsed.is_err());
    /// let halves: Option<u32> = (0..10u32).pipe().map(|x| (x % 2 == 0).then_some(x / 2)).sum(&ex);
    /// assert_eq!(halves, None);
    /// ```
    pub fn sum<T>(&self, ex: &(impl Executor + ?Sized)) -> T
    where
        T: Sum<X::Out> + Sum<T> + Send,
        K: Codec<T>,
    {
        let step = |acc, x| {
            let item = || iter::once(x).sum::<T>();
            until_failure(acc, item, || iter::empty::<T>().sum(), |three| three.sum())
        };
        let join = |a, b| [a, b].into_iter().sum();
        let identity = || iter::empty::<T>().sum();
        into_inner(self.try_fold(ex, identity, step, join))
    }

    /// The product of the items, as `Iterator::product` (the empty product is `T`'s one). Into
    /// a `Result<T, E>` or an `Option<T>` it is the first `Err` / `None` by index, and no item
    /// after it runs.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!((1..=5u64).pipe().product::<u64>(&SequentialEx), 120);
    /// let checked: Option<u64> = (1..6u64).pipe().map(|x| x.checked_sub(1)).product(&SequentialEx);
    /// assert_eq!(checked, Some(0));
    /// ```
    pub fn product<T>(&self, ex: &(impl Executor + ?Sized)) -> T
    where
        T: Product<X::Out> + Product<T> + Send,
        K: Codec<T>,
    {
        let step = |acc, x| {
            let item = || iter::once(x).product::<T>();
            until_failure(
                acc,
                item,
                || iter::empty::<T>().product(),
                |three| three.product(),
            )
        };
        let join = |a, b| [a, b].into_iter().product();
        let identity = || iter::empty::<T>().product();
        into_inner(self.try_fold(ex, identity, step, join))
    }
}

/// `total` of the accumulator, the item and the identity; `Break` where `total` did not take
/// the identity (the module doc).
#[inline]
fn until_failure<T, F, G>(
    acc: T,
    item: F,
    identity: G,
    total: impl FnOnce(Three<'_, T, F, G>) -> T,
) -> ControlFlow<T, T>
where
    F: FnOnce() -> T,
    G: FnOnce() -> T,
{
    let took_identity = Cell::new(false);
    let three = Three {
        acc: Some(acc),
        item: Some(item),
        identity: Some(identity),
        took_identity: &took_identity,
    };
    let acc = total(three);
    match took_identity.get() {
        true => ControlFlow::Continue(acc),
        false => ControlFlow::Break(acc),
    }
}

/// The accumulator, the item (made when taken) and the identity (noted when taken).
struct Three<'c, T, F, G> {
    acc: Option<T>,
    item: Option<F>,
    identity: Option<G>,
    took_identity: &'c Cell<bool>,
}

impl<T, F: FnOnce() -> T, G: FnOnce() -> T> Iterator for Three<'_, T, F, G> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if let Some(acc) = self.acc.take() {
            return Some(acc);
        }
        if let Some(item) = self.item.take() {
            return Some(item());
        }
        let identity = self.identity.take()?;
        self.took_identity.set(true);
        Some(identity())
    }

    /// All three, in order, without a branch per value: the sum of a number folds.
    #[inline]
    fn fold<B, H: FnMut(B, T) -> B>(self, init: B, mut f: H) -> B {
        let mut total = init;
        if let Some(acc) = self.acc {
            total = f(total, acc);
        }
        if let Some(item) = self.item {
            total = f(total, item());
        }
        if let Some(identity) = self.identity {
            self.took_identity.set(true);
            total = f(total, identity());
        }
        total
    }
}
