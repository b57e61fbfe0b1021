//! Items borrowed from the items of a pipeline: the words of owned lines, the fields of owned
//! records, counted or searched with no allocation per word.
//!
//! [`Pipeline::flat_map`] cannot pass on a `&str` borrowed from an owned `String`: the line is
//! gone when the closure returns (rustc's E0515). A stage can, since it holds the line while
//! it passes each word on: [`Pipeline::flat_map_ref`] makes a [`RefPipeline`], whose items are
//! `&T` borrowed from each item of the pipeline while that item is alive. Its reductions see
//! them there ([`count`](RefPipeline::count), [`any`](RefPipeline::any),
//! [`find_first`](RefPipeline::find_first), [`fold`](RefPipeline::fold), and
//! [`counts`](RefPipeline::counts) into a map that allocates a key only when it is new), and
//! [`map`](RefPipeline::map) makes an owned value of each, giving back a [`Pipeline`].
//!
//! What lends the pieces is a function path (`str::split_whitespace`, `str::lines`,
//! `<[T]>::iter`) or a `fn` of your own, given the item as `&B` where the item is `AsRef<B>`
//! (`String`, `&String` and `&str` for `B = str`): a closure cannot return what borrows from
//! its argument in stable Rust (its return type names one lifetime, not each caller's), and
//! [`Lend`] asks for every lifetime.
//!
//! ```
//! use foldex_core::Stream;
//! use foldex_pipeline::{from_stream, IntoPipeline};
//! use foldex_threaded::ThreadedEx;
//!
//! let ex = ThreadedEx::new();
//! let lines = ["the cat", "the hat and the bat"].map(String::from);
//! let words = from_stream(Stream::new(lines)).flat_map_ref(str::split_whitespace);
//! let counts = words.counts(&ex);
//! assert_eq!((counts["the"], counts["bat"], counts.len()), (3, 1, 5));
//!
//! /// The fields of a record: a `fn`, where a closure could not return what borrows `line`.
//! fn fields(line: &str) -> std::str::Split<'_, char> {
//!     line.split(',')
//! }
//! let records = vec![String::from("a,bb"), String::from("ccc,d")];
//! let widths: Vec<usize> = records.pipe().flat_map_ref(fields).map(str::len).collect(&ex);
//! assert_eq!(widths, [1, 2, 3, 1]);
//! ```

use crate::group::{merge_groups, Count};
use crate::pipeline::Pipeline;
use crate::run::into_inner;
use crate::stage::{Append, Transform};
use crate::stages::inner_try_fold;
use crate::streamed::PipeSource;
use foldex_core::{Codec, Executor, StopProbe};
use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::marker::PhantomData;
use std::ops::ControlFlow;

/// A function that lends the pieces of an item: `&'a T`s borrowed from a `&'a B`, for every
/// lifetime `'a`. Every `Fn(&'a B) -> I` does where `I` iterates over `&'a T`, for each `'a`:
/// function paths and `fn` items, not closures (the [module doc](self)).
pub trait Lend<'a, B: ?Sized + 'a, T: ?Sized + 'a>: Sync {
    /// The pieces of one item.
    type Iter: Iterator<Item = &'a T>;
    /// The pieces of `item`, in order.
    fn lend(&self, item: &'a B) -> Self::Iter;
}

impl<'a, B, T, F, I> Lend<'a, B, T> for F
where
    B: ?Sized + 'a,
    T: ?Sized + 'a,
    F: Fn(&'a B) -> I + Sync,
    I: IntoIterator<Item = &'a T>,
{
    type Iter = I::IntoIter;

    #[inline]
    fn lend(&self, item: &'a B) -> I::IntoIter {
        self(item).into_iter()
    }
}

/// Which borrowed pieces a [`RefPipeline`] keeps: [`KeepAll`], a predicate on `&&T` (as
/// `Iterator::filter` gives it), or both of two ([`Both`]).
pub trait KeepRef<T: ?Sized>: Sync {
    /// Whether `piece` goes on.
    fn keep(&self, piece: &&T) -> bool;
}

/// Keeps every piece: the filter of a [`RefPipeline`] before any `filter`.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeepAll;

impl<T: ?Sized> KeepRef<T> for KeepAll {
    #[inline]
    fn keep(&self, _: &&T) -> bool {
        true
    }
}

impl<T: ?Sized, P: Fn(&&T) -> bool + Sync> KeepRef<T> for P {
    #[inline]
    fn keep(&self, piece: &&T) -> bool {
        self(piece)
    }
}

/// Keeps the pieces that both filters keep, asking the first one first.
#[derive(Debug, Clone, Copy)]
pub struct Both<P, Q>(P, Q);

impl<T: ?Sized, P: KeepRef<T>, Q: KeepRef<T>> KeepRef<T> for Both<P, Q> {
    #[inline]
    fn keep(&self, piece: &&T) -> bool {
        self.0.keep(piece) && self.1.keep(piece)
    }
}

/// The lending function of a [`RefPipeline`] with its filters: one item's kept pieces.
#[derive(Debug)]
pub struct Lender<F, Q, B: ?Sized, T: ?Sized> {
    lend: F,
    keep: Q,
    pieces: PhantomData<fn(&B) -> &T>,
}

// By hand: a derive would ask `B` and `T` (`str`) to be `Clone` too.
impl<F: Clone, Q: Clone, B: ?Sized, T: ?Sized> Clone for Lender<F, Q, B, T> {
    fn clone(&self) -> Self {
        Self {
            lend: self.lend.clone(),
            keep: self.keep.clone(),
            pieces: PhantomData,
        }
    }
}

impl<F: Copy, Q: Copy, B: ?Sized, T: ?Sized> Copy for Lender<F, Q, B, T> {}

impl<F, Q, B: ?Sized, T: ?Sized> Lender<F, Q, B, T>
where
    F: for<'a> Lend<'a, B, T>,
    Q: KeepRef<T>,
{
    /// Passes the kept pieces of `item` on to `sink`, in order, looking at `probe` as a long
    /// `flat_map` does.
    #[inline]
    fn each<A>(
        &self,
        item: &B,
        acc: A,
        sink: impl FnMut(A, &T) -> ControlFlow<A, A>,
        probe: &StopProbe,
    ) -> ControlFlow<A, A> {
        let kept = self.lend.lend(item).filter(|piece| self.keep.keep(piece));
        inner_try_fold(kept, acc, sink, probe)
    }
}

/// The items of a pipeline lent out in pieces, `&T` borrowed from each item while it is alive
/// ([`Pipeline::flat_map_ref`]; the [module doc](self)). `F` lends the pieces of an item seen
/// as `&B`; `Q` filters them.
///
/// Its reductions give what the same chain gives on `std::iter` over the owned items
/// (`lines.iter().flat_map(|l| l.split_whitespace())`), on every executor, and run as the
/// pipeline's own do (one fold; a stream's pipeline runs once).
#[derive(Debug)]
#[must_use = "a pipeline does nothing until a reduction runs it"]
pub struct RefPipeline<S, X, K, F, B: ?Sized, T: ?Sized, Q = KeepAll> {
    pipeline: Pipeline<S, X, K>,
    lender: Lender<F, Q, B, T>,
}

impl<S, X, K, F, B, T, Q> Clone for RefPipeline<S, X, K, F, B, T, Q>
where
    Pipeline<S, X, K>: Clone,
    Lender<F, Q, B, T>: Clone,
    B: ?Sized,
    T: ?Sized,
{
    fn clone(&self) -> Self {
        Self {
            pipeline: self.pipeline.clone(),
            lender: self.lender.clone(),
        }
    }
}

impl<S, X, K, F, B, T, Q> Copy for RefPipeline<S, X, K, F, B, T, Q>
where
    Pipeline<S, X, K>: Copy,
    Lender<F, Q, B, T>: Copy,
    B: ?Sized,
    T: ?Sized,
{
}

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// Replaces each item with the pieces `lend` borrows from it, in order: `&T`s that later
    /// stages and the reduction see while the item is alive. `lend` takes the item as `&B`
    /// (the item is `AsRef<B>`: a `String`, `&String` or `&str` as `&str`) and is a function
    /// path or a `fn` (`str::split_whitespace`, `str::lines`, `<[T]>::iter`): the
    /// [`borrowed`](crate::borrowed) module says why not a closure.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let lines = vec![String::from("to fold"), String::from("or not to fold")];
    /// let words = lines.pipe().flat_map_ref(str::split_whitespace);
    /// assert_eq!(words.count(&SequentialEx), 6);
    /// assert_eq!(words.find_first(&SequentialEx, |w| w.len() == 3), Some(String::from("not")));
    /// ```
    pub fn flat_map_ref<B, T, F>(self, lend: F) -> RefPipeline<S, X, K, F, B, T>
    where
        B: ?Sized,
        T: ?Sized,
        X::Out: AsRef<B>,
        F: for<'a> Lend<'a, B, T>,
    {
        RefPipeline {
            pipeline: self,
            lender: Lender {
                lend,
                keep: KeepAll,
                pieces: PhantomData,
            },
        }
    }
}

impl<S, X, K, F, B, T, Q> RefPipeline<S, X, K, F, B, T, Q>
where
    S: PipeSource,
    X: Transform<S::Item>,
    X::Out: AsRef<B>,
    F: for<'a> Lend<'a, B, T>,
    Q: KeepRef<T>,
    B: ?Sized,
    T: ?Sized,
{
    /// Keeps the pieces for which `keep` holds (given `&&T`, as `Iterator::filter` gives it).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let lines = ["a bb ccc", "dd e"];
    /// let long = lines.pipe().flat_map_ref(str::split_whitespace).filter(|w| w.len() > 1);
    /// assert_eq!(long.count(&SequentialEx), 3);
    /// ```
    pub fn filter<P>(self, keep: P) -> RefPipeline<S, X, K, F, B, T, Both<Q, P>>
    where
        P: Fn(&&T) -> bool + Sync,
    {
        let Lender {
            lend, keep: kept, ..
        } = self.lender;
        RefPipeline {
            pipeline: self.pipeline,
            lender: Lender {
                lend,
                keep: Both(kept, keep),
                pieces: PhantomData,
            },
        }
    }

    /// Each piece becomes `f(piece)`, owned: a [`Pipeline`] again, with every transform and
    /// reduction.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let lines = ["a bb", "ccc"];
    /// let lens = lines.pipe().flat_map_ref(str::split_whitespace).map(str::len);
    /// assert_eq!(lens.collect::<Vec<_>>(&SequentialEx), [1, 2, 3]);
    /// ```
    pub fn map<R, G>(self, f: G) -> Pipeline<S, X::Output, K>
    where
        G: Fn(&T) -> R + Sync,
        X: Append<LendMap<F, Q, B, T, G>>,
    {
        let Pipeline {
            source,
            transform,
            codec,
        } = self.pipeline;
        Pipeline {
            source,
            transform: transform.append(LendMap {
                lender: self.lender,
                map: f,
            }),
            codec,
        }
    }

    /// Runs the pipeline as one fold over the pieces, as [`Pipeline::try_fold`]: `step` sees
    /// each piece borrowed, `Break` stops the fold, and the result is the sequential
    /// `try_fold`'s.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// use std::ops::ControlFlow::{Break, Continue};
    /// let lines = ["a bb", "ccc dddd"];
    /// // The letters of the words before the first one of 3 letters.
    /// let r = lines.pipe().flat_map_ref(str::split_whitespace).try_fold(
    ///     &SequentialEx,
    ///     || 0,
    ///     |n, w| if w.len() == 3 { Break(n) } else { Continue(n + w.len()) },
    ///     |a, b| a + b,
    /// );
    /// assert_eq!(r, Break(3));
    /// ```
    pub fn try_fold<E, A, I, St, C>(
        &self,
        ex: &E,
        init: I,
        step: St,
        combine: C,
    ) -> ControlFlow<A, A>
    where
        E: Executor + ?Sized,
        A: Send,
        I: Fn() -> A + Sync,
        St: Fn(A, &T) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
        K: Codec<A>,
    {
        self.run(ex, true, init, step, combine)
    }

    /// As [`try_fold`](RefPipeline::try_fold) with a `step` that never stops the fold.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let lines = ["a bb", "ccc"];
    /// let words = lines.pipe().flat_map_ref(str::split_whitespace);
    /// let joined = words.fold(&SequentialEx, String::new, |s, w| s + w, |a, b| a + &b);
    /// assert_eq!(joined, "abbccc");
    /// ```
    pub fn fold<E, A, I, St, C>(&self, ex: &E, init: I, step: St, combine: C) -> A
    where
        E: Executor + ?Sized,
        A: Send,
        I: Fn() -> A + Sync,
        St: Fn(A, &T) -> A + Sync,
        C: Fn(A, A) -> A + Sync,
        K: Codec<A>,
    {
        let step = |acc, piece: &T| ControlFlow::Continue(step(acc, piece));
        into_inner(self.run(ex, false, init, step, combine))
    }

    /// The one fold of every reduction here: each item's kept pieces, lent to `step`.
    fn run<E, A, I, St, C>(
        &self,
        ex: &E,
        breaks: bool,
        init: I,
        step: St,
        combine: C,
    ) -> ControlFlow<A, A>
    where
        E: Executor + ?Sized,
        A: Send,
        I: Fn() -> A + Sync,
        St: Fn(A, &T) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
        K: Codec<A>,
    {
        let step = |acc, item: X::Out, probe: &StopProbe| {
            self.lender.each(item.as_ref(), acc, &step, probe)
        };
        self.pipeline.run_probed(ex, breaks, init, step, combine)
    }

    /// Calls `f` on every piece.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let letters = AtomicUsize::new(0);
    /// ["a bb", "ccc"].pipe().flat_map_ref(str::split_whitespace).for_each(&SequentialEx, |w| {
    ///     letters.fetch_add(w.len(), Ordering::Relaxed);
    /// });
    /// assert_eq!(letters.into_inner(), 6);
    /// ```
    pub fn for_each<E, G>(&self, ex: &E, f: G)
    where
        E: Executor + ?Sized,
        G: Fn(&T) + Sync,
        K: Codec<()>,
    {
        self.fold(ex, || (), |(), piece| f(piece), |(), ()| ());
    }

    /// The number of pieces.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!(["a bb", "", "c"].pipe().flat_map_ref(str::split_whitespace).count(&SequentialEx), 3);
    /// ```
    pub fn count<E: Executor + ?Sized>(&self, ex: &E) -> usize
    where
        K: Codec<usize>,
    {
        self.fold(ex, || 0, |n, _| n + 1, |a, b| a + b)
    }

    /// Whether `f` holds for some piece; the fold stops at the first such piece, as
    /// [`Pipeline::any`].
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let words = ["a bb", "ccc"].pipe().flat_map_ref(str::split_whitespace);
    /// assert!(words.any(&SequentialEx, |w| w == "bb"));
    /// ```
    pub fn any<E, G>(&self, ex: &E, f: G) -> bool
    where
        E: Executor + ?Sized,
        G: Fn(&T) -> bool + Sync,
        K: Codec<bool>,
    {
        let step = |_, piece: &T| match f(piece) {
            true => ControlFlow::Break(true),
            false => ControlFlow::Continue(false),
        };
        into_inner(self.try_fold(ex, || false, step, |a, b| a || b))
    }

    /// Whether `f` holds for every piece; the fold stops at the first piece where it fails.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let words = ["a bb", "ccc"].pipe().flat_map_ref(str::split_whitespace);
    /// assert!(words.all(&SequentialEx, |w| w.len() < 4));
    /// ```
    pub fn all<E, G>(&self, ex: &E, f: G) -> bool
    where
        E: Executor + ?Sized,
        G: Fn(&T) -> bool + Sync,
        K: Codec<bool>,
    {
        !self.any(ex, |piece| !f(piece))
    }

    /// An owned copy of the first piece, in order, for which `f` holds (the pieces end with the
    /// run); the fold stops there, as [`Pipeline::find_first`]. Only that piece is copied.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let words = ["a bb", "ccc dd"].pipe().flat_map_ref(str::split_whitespace);
    /// assert_eq!(words.find_first(&SequentialEx, |w| w.len() == 2), Some(String::from("bb")));
    /// ```
    pub fn find_first<E, G>(&self, ex: &E, f: G) -> Option<T::Owned>
    where
        E: Executor + ?Sized,
        T: ToOwned,
        T::Owned: Send,
        G: Fn(&&T) -> bool + Sync,
        K: Codec<Option<T::Owned>>,
    {
        let step = |_, piece: &T| match f(&piece) {
            true => ControlFlow::Break(Some(piece.to_owned())),
            false => ControlFlow::Continue(None),
        };
        let first = |a: Option<_>, b| a.or(b);
        into_inner(self.try_fold(ex, || None, step, first))
    }

    /// How many times each piece occurs (itertools' `counts`): a piece is copied into the map
    /// only when it is new to a piece of the fold, and found by reference otherwise, so a word
    /// count of owned lines allocates per distinct word, not per word.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let lines = vec![String::from("the cat and the hat"), String::from("and the bat")];
    /// let counts = lines.pipe().flat_map_ref(str::split_whitespace).counts(&ThreadedEx::new());
    /// assert_eq!((counts["the"], counts["and"], counts["bat"]), (3, 2, 1));
    /// ```
    pub fn counts<E>(&self, ex: &E) -> HashMap<T::Owned, usize>
    where
        E: Executor + ?Sized,
        T: ToOwned + Eq + Hash,
        T::Owned: Borrow<T> + Eq + Hash + Send,
        K: Codec<Box<HashMap<T::Owned, usize>>>,
    {
        // Boxed, so that passing a piece's map from one `step` to the next moves a pointer.
        let step = |mut counts: Box<HashMap<T::Owned, usize>>, piece: &T| {
            match counts.get_mut(piece) {
                Some(n) => *n += 1,
                None => {
                    counts.insert(piece.to_owned(), 1);
                }
            }
            counts
        };
        let merge = |left: Box<HashMap<T::Owned, usize>>, right: Box<HashMap<T::Owned, usize>>| {
            Box::new(merge_groups::<_, (), _>(&Count, *left, *right))
        };
        *self.fold(ex, Box::default, step, merge)
    }
}

/// The stage of [`RefPipeline::map`]: each kept piece of an item, borrowed, becomes an owned
/// value.
#[derive(Debug)]
pub struct LendMap<F, Q, B: ?Sized, T: ?Sized, G> {
    lender: Lender<F, Q, B, T>,
    map: G,
}

impl<F: Clone, Q: Clone, B: ?Sized, T: ?Sized, G: Clone> Clone for LendMap<F, Q, B, T, G> {
    fn clone(&self) -> Self {
        Self {
            lender: self.lender.clone(),
            map: self.map.clone(),
        }
    }
}

impl<F: Copy, Q: Copy, B: ?Sized, T: ?Sized, G: Copy> Copy for LendMap<F, Q, B, T, G> {}

impl<In, F, Q, B, T, G, R> Transform<In> for LendMap<F, Q, B, T, G>
where
    In: AsRef<B>,
    F: for<'a> Lend<'a, B, T>,
    Q: KeepRef<T>,
    G: Fn(&T) -> R + Sync,
    B: ?Sized,
    T: ?Sized,
{
    type Out = R;
    type State = ();

    #[inline]
    fn start(&self) {}

    #[inline]
    fn step<A, Sk>(
        &self,
        _: &mut (),
        acc: A,
        item: In,
        sink: &mut Sk,
        probe: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        Sk: FnMut(A, R) -> ControlFlow<A, A>,
    {
        let sink = |acc, piece: &T| sink(acc, (self.map)(piece));
        self.lender.each(item.as_ref(), acc, sink, probe)
    }
}
