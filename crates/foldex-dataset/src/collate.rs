//! Turning the observations of one batch into the batch the consumer receives.

use std::fmt;
use std::marker::PhantomData;
use std::mem;

/// Builds a batch from its observations, in epoch order. Runs on the executor's threads.
///
/// Any `Fn(Vec<Item>) -> B + Send + Sync` closure is a `Collate`; the default, [`VecCollate`],
/// hands the `Vec` over as it is.
///
/// ```
/// use foldex_dataset::Collate;
/// let sum = |items: Vec<u32>| items.iter().sum::<u32>();
/// assert_eq!(sum.collate(vec![1, 2, 3]), 6);
/// ```
pub trait Collate<Item>: Send + Sync {
    /// What the consumer receives per batch.
    type Batch;

    /// The batch made of `items` (never empty).
    fn collate(&self, items: Vec<Item>) -> Self::Batch;

    /// The batch made of one item; override it to skip the `Vec` for batches of one.
    fn collate_one(&self, item: Item) -> Self::Batch {
        self.collate(vec![item])
    }

    /// Builds the batch into `out`, reusing its memory; what a loader with
    /// `Loader::reuse_buffers(true)` calls. `items` holds the batch's
    /// observations; whatever this leaves in it (buffers of an earlier batch, say) is reused to
    /// load the next batch into. The default replaces `out` with `collate(items)`; [`VecCollate`]
    /// swaps the two vectors, and [`in_place`] writes into `out`.
    fn collate_into(&self, items: &mut Vec<Item>, out: &mut Self::Batch) {
        *out = self.collate(mem::take(items));
    }

    /// What a loader delivers for a batch whose every observation the error policy
    /// (`ErrorPolicy::skip`) left out: a batch, or `None` to
    /// deliver nothing in its place. The default collates an empty `Vec`; [`Unbatched`] gives
    /// `None`, so that a skipped observation is simply not delivered.
    fn collate_empty(&self) -> Option<Self::Batch> {
        Some(self.collate(Vec::new()))
    }
}

/// The default collate: a batch is the `Vec` of its observations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VecCollate;

impl<Item> Collate<Item> for VecCollate {
    type Batch = Vec<Item>;
    fn collate(&self, items: Vec<Item>) -> Vec<Item> {
        items
    }
    /// The batch takes the observations' buffers, and hands its old ones back to be loaded
    /// into: with buffer reuse, no observation is ever copied or allocated twice.
    fn collate_into(&self, items: &mut Vec<Item>, out: &mut Vec<Item>) {
        mem::swap(items, out);
    }
}

/// A collate that writes each batch into a buffer, `f(items, &mut out)`; see [`in_place`].
pub struct InPlace<F, B> {
    f: F,
    batch: PhantomData<fn() -> B>,
}

impl<F, B> fmt::Debug for InPlace<F, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InPlace").finish_non_exhaustive()
    }
}

/// A collate that writes a batch into an existing buffer: `f(items, &mut out)` must fill
/// `out` (clearing what it held). With `Loader::reuse_buffers(true)`
/// `out` is a recycled batch, so stacking observations into one tensor allocates nothing;
/// otherwise `out` starts as `B::default()`.
///
/// ```
/// use foldex_dataset::{from_fn, collate::in_place};
/// use foldex_loader::Loader;
/// use foldex_threaded::ThreadedEx;
/// // Stack batches of 4-float observations into one flat buffer per batch.
/// let stack = in_place(|items: &[Vec<f32>], out: &mut Vec<f32>| {
///     out.clear();
///     items.iter().for_each(|x| out.extend_from_slice(x));
/// });
/// let loader = Loader::new(from_fn(6, |i| vec![i as f32; 4]), ThreadedEx::new().basesize(1)).batch_size(3).collate(stack);
/// assert_eq!(loader.iter().map(|b| b.len()).collect::<Vec<_>>(), vec![12, 12]);
/// ```
pub fn in_place<Item, B, F>(f: F) -> InPlace<F, B>
where
    B: Default,
    F: Fn(&[Item], &mut B) + Send + Sync,
{
    InPlace {
        f,
        batch: PhantomData,
    }
}

impl<Item, B, F> Collate<Item> for InPlace<F, B>
where
    B: Default,
    F: Fn(&[Item], &mut B) + Send + Sync,
{
    type Batch = B;
    fn collate(&self, items: Vec<Item>) -> B {
        let mut out = B::default();
        (self.f)(&items, &mut out);
        out
    }
    fn collate_into(&self, items: &mut Vec<Item>, out: &mut B) {
        (self.f)(items, out);
    }
}

impl<Item, B, F> Collate<Item> for F
where
    F: Fn(Vec<Item>) -> B + Send + Sync,
{
    type Batch = B;
    fn collate(&self, items: Vec<Item>) -> B {
        self(items)
    }
}

/// Pairs collated part by part: a batch of `(x, y)` observations becomes
/// `(first.collate(xs), second.collate(ys))`, such as stacked images beside a `Vec` of labels.
///
/// ```
/// use foldex_dataset::{from_fn, VecCollate};
/// use foldex_loader::Loader;
/// use foldex_threaded::ThreadedEx;
/// let sum = |xs: Vec<f32>| xs.iter().sum::<f32>();
/// let loader = Loader::new(from_fn(4, |i| (i as f32, i % 2)), ThreadedEx::new().basesize(1))
///     .batch_size(2)
///     .collate((sum, VecCollate));
/// assert_eq!(loader.iter().collect::<Vec<_>>(), vec![(1.0, vec![0, 1]), (5.0, vec![0, 1])]);
/// ```
impl<X, Y, A, B> Collate<(X, Y)> for (A, B)
where
    A: Collate<X>,
    B: Collate<Y>,
{
    type Batch = (A::Batch, B::Batch);
    fn collate(&self, items: Vec<(X, Y)>) -> Self::Batch {
        let (xs, ys): (Vec<X>, Vec<Y>) = items.into_iter().unzip();
        (self.0.collate(xs), self.1.collate(ys))
    }
    /// Each part collated into its part of `out` (so a recycled batch keeps its memory), the
    /// parts' buffers handed back paired up again.
    fn collate_into(&self, items: &mut Vec<(X, Y)>, out: &mut Self::Batch) {
        let (mut xs, mut ys): (Vec<X>, Vec<Y>) = items.drain(..).unzip();
        self.0.collate_into(&mut xs, &mut out.0);
        self.1.collate_into(&mut ys, &mut out.1);
        items.extend(xs.into_iter().zip(ys));
    }
    fn collate_empty(&self) -> Option<Self::Batch> {
        Some((self.0.collate_empty()?, self.1.collate_empty()?))
    }
}

/// Batches of one observation, delivered as the observation itself: what
/// `eachobsparallel` and `Loader::unbatched`
/// use. Only for batches of one: a larger batch fails with a panic that names the problem.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unbatched;

impl<Item> Collate<Item> for Unbatched {
    type Batch = Item;
    fn collate(&self, items: Vec<Item>) -> Item {
        let count = items.len();
        let mut items = items.into_iter();
        match (items.next(), items.next()) {
            (Some(item), None) => item,
            _ => panic!("foldex-dataset: Unbatched takes batches of one observation, got {count}"),
        }
    }
    fn collate_one(&self, item: Item) -> Item {
        item
    }
    fn collate_empty(&self) -> Option<Item> {
        None
    }
}
