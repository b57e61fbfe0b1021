//! Named reductions: each runs the pipeline as one typed fold on the executor it is given.
//!
//! Every reduction gives what the same chain gives on `std::iter`, on every executor: ties in
//! `min*`/`max*` resolve as `Iterator` resolves them (the first minimum, the last maximum), and
//! `find_first`, `position_first`, `any` and `all` stop the fold at the first decisive item by
//! index (a `Break` there), so nothing to its right runs longer than it takes to notice;
//! `find_last` and `position_last` stop from the right where the pipeline allows it
//! ([`crate::from_right`]).

use crate::collect::FromPipeline;
use crate::indexed::OneToOne;
use crate::pipeline::Pipeline;
use crate::run::into_inner;
use crate::stage::Transform;
use crate::streamed::PipeSource;
use foldex_core::{Codec, Executor};
use std::cmp::Ordering;
use std::ops::ControlFlow;

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// Runs the pipeline as one fold: `step` receives every item that comes out of the
    /// transforms, `init` makes each piece's accumulator, `combine` joins adjacent pieces, left
    /// first. `step` may stop the fold with `Break`; the result is the sequential `try_fold`'s.
    /// Every other reduction is this one.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// use std::ops::ControlFlow::{Break, Continue};
    /// // The sum of the even numbers until the first one over 10.
    /// let r = (0..100).pipe().filter(|x| x % 2 == 0).try_fold(
    ///     &SequentialEx,
    ///     || 0,
    ///     |acc, x| if x > 10 { Break(acc) } else { Continue(acc + x) },
    ///     |a, b| a + b,
    /// );
    /// assert_eq!(r, Break(30));
    /// ```
    pub fn try_fold<E, A, I, F, C>(&self, ex: &E, init: I, step: F, combine: C) -> ControlFlow<A, A>
    where
        E: Executor + ?Sized,
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(A, X::Out) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
        K: Codec<A>,
    {
        self.run(ex, true, init, step, combine)
    }

    /// As [`try_fold`](Pipeline::try_fold) with a `step` that never stops the fold: the fold
    /// runs as `Iterator::fold`, which vectorises best.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let s = ["fold", "ex"].pipe().fold(&SequentialEx, String::new, |s, w| s + w, |a, b| a + &b);
    /// assert_eq!(s, "foldex");
    /// ```
    pub fn fold<E, A, I, F, C>(&self, ex: &E, init: I, step: F, combine: C) -> A
    where
        E: Executor + ?Sized,
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(A, X::Out) -> A + Sync,
        C: Fn(A, A) -> A + Sync,
        K: Codec<A>,
    {
        let step = |acc, item| ControlFlow::Continue(step(acc, item));
        into_inner(self.run(ex, false, init, step, combine))
    }

    /// Calls `f` on every item.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// let total = AtomicU64::new(0);
    /// (1..=100u64).pipe().for_each(&ThreadedEx::new(), |x| { total.fetch_add(x, Ordering::Relaxed); });
    /// assert_eq!(total.into_inner(), 5050);
    /// ```
    pub fn for_each<E, F>(&self, ex: &E, f: F)
    where
        E: Executor + ?Sized,
        F: Fn(X::Out) + Sync,
        K: Codec<()>,
    {
        self.fold(ex, || (), |(), item| f(item), |(), ()| ());
    }

    /// Calls `f` on every item with a scratch value made by `init` once per piece (FLoops'
    /// `@init`, rayon's `for_each_init`): a buffer or an RNG reused across a piece's items.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let digits = AtomicUsize::new(0);
    /// (0..1000u32).pipe().for_each_init(&ThreadedEx::new(), String::new, |buf, x| {
    ///     buf.clear();
    ///     buf.push_str(&x.to_string());
    ///     digits.fetch_add(buf.len(), Ordering::Relaxed);
    /// });
    /// assert_eq!(digits.into_inner(), 10 + 90 * 2 + 900 * 3);
    /// ```
    pub fn for_each_init<E, T, I, F>(&self, ex: &E, init: I, f: F)
    where
        E: Executor + ?Sized,
        T: Send,
        I: Fn() -> T + Sync,
        F: Fn(&mut T, X::Out) + Sync,
        K: Codec<T>,
    {
        let step = |mut scratch: T, item| {
            f(&mut scratch, item);
            scratch
        };
        self.fold(ex, init, step, |left, _| left);
    }

    /// The number of items.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!((0..100).pipe().filter(|x| x % 7 == 0).count(&SequentialEx), 15);
    /// ```
    pub fn count<E: Executor + ?Sized>(&self, ex: &E) -> usize
    where
        K: Codec<usize>,
    {
        self.fold(ex, || 0, |n, _| n + 1, |a, b| a + b)
    }

    /// Combines all items with `op` from `identity()` (which must be an identity of `op`, and
    /// `op` associative).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let longest = ["ab", "abcd", "a"].pipe().map(|s| s.len()).reduce(&SequentialEx, || 0, usize::max);
    /// assert_eq!(longest, 4);
    /// ```
    pub fn reduce<E, I, F>(&self, ex: &E, identity: I, op: F) -> X::Out
    where
        E: Executor + ?Sized,
        X::Out: Send,
        I: Fn() -> X::Out + Sync,
        F: Fn(X::Out, X::Out) -> X::Out + Sync,
        K: Codec<X::Out>,
    {
        self.fold(ex, &identity, &op, &op)
    }

    /// Combines all items with the associative `op`; `None` when there are none (as
    /// `Iterator::reduce`).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!((1..5).pipe().reduce_with(&SequentialEx, |a, b| a * b), Some(24));
    /// assert_eq!((0..0).pipe().reduce_with(&SequentialEx, |a, b| a * b), None);
    /// ```
    pub fn reduce_with<E, F>(&self, ex: &E, op: F) -> Option<X::Out>
    where
        E: Executor + ?Sized,
        X::Out: Send,
        F: Fn(X::Out, X::Out) -> X::Out + Sync,
        K: Codec<Option<X::Out>>,
    {
        let join = |a: Option<X::Out>, b: Option<X::Out>| match (a, b) {
            (Some(a), Some(b)) => Some(op(a, b)),
            (a, b) => a.or(b),
        };
        self.fold(ex, || None, |acc, x| join(acc, Some(x)), join)
    }

    /// The least item (the first of equals), as `Iterator::min`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!([3, 1, 2].pipe().min(&SequentialEx), Some(&1));
    /// assert_eq!((0..0).pipe().min(&SequentialEx), None);
    /// ```
    pub fn min<E: Executor + ?Sized>(&self, ex: &E) -> Option<X::Out>
    where
        X::Out: Ord + Send,
        K: Codec<Option<X::Out>>,
    {
        self.min_by(ex, Ord::cmp)
    }

    /// The greatest item (the last of equals), as `Iterator::max`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!([3, 1, 2].pipe().copied().max(&SequentialEx), Some(3));
    /// ```
    pub fn max<E: Executor + ?Sized>(&self, ex: &E) -> Option<X::Out>
    where
        X::Out: Ord + Send,
        K: Codec<Option<X::Out>>,
    {
        self.max_by(ex, Ord::cmp)
    }

    /// The least item by `compare` (the first of equals), as `Iterator::min_by`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = [2.5f64, -1.0, 7.0];
    /// assert_eq!(v.pipe().min_by(&SequentialEx, |a, b| a.total_cmp(b)), Some(&-1.0));
    /// ```
    pub fn min_by<E, F>(&self, ex: &E, compare: F) -> Option<X::Out>
    where
        E: Executor + ?Sized,
        X::Out: Send,
        F: Fn(&X::Out, &X::Out) -> Ordering + Sync,
        K: Codec<Option<X::Out>>,
    {
        self.reduce_with(ex, first_min(compare))
    }

    /// The greatest item by `compare` (the last of equals), as `Iterator::max_by`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = [2.5f64, -1.0, 7.0];
    /// assert_eq!(v.pipe().max_by(&SequentialEx, |a, b| a.total_cmp(b)), Some(&7.0));
    /// ```
    pub fn max_by<E, F>(&self, ex: &E, compare: F) -> Option<X::Out>
    where
        E: Executor + ?Sized,
        X::Out: Send,
        F: Fn(&X::Out, &X::Out) -> Ordering + Sync,
        K: Codec<Option<X::Out>>,
    {
        self.reduce_with(ex, last_max(compare))
    }

    /// The item with the least key (the first of equals), as `Iterator::min_by_key`; `key`
    /// runs once per item.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let words = ["bb", "a", "c"];
    /// assert_eq!(words.pipe().min_by_key(&SequentialEx, |w| w.len()), Some(&"a"));
    /// ```
    pub fn min_by_key<E, Key, F>(&self, ex: &E, key: F) -> Option<X::Out>
    where
        E: Executor + ?Sized,
        X::Out: Send,
        Key: Ord + Send,
        F: Fn(&X::Out) -> Key + Sync,
        K: Codec<Option<(Key, X::Out)>>,
    {
        self.keyed(ex, key, first_min_key)
    }

    /// The item with the greatest key (the last of equals), as `Iterator::max_by_key`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// // The last of equals, as `Iterator::max_by_key`.
    /// let words = ["ab", "c", "de"];
    /// assert_eq!(words.pipe().max_by_key(&SequentialEx, |w| w.len()), Some(&"de"));
    /// ```
    pub fn max_by_key<E, Key, F>(&self, ex: &E, key: F) -> Option<X::Out>
    where
        E: Executor + ?Sized,
        X::Out: Send,
        Key: Ord + Send,
        F: Fn(&X::Out) -> Key + Sync,
        K: Codec<Option<(Key, X::Out)>>,
    {
        self.keyed(ex, key, last_max_key)
    }

    /// The item whose key wins: `right_wins(b, a)` says whether key `b`, to the right of `a`,
    /// replaces it.
    fn keyed<E, Key, F>(&self, ex: &E, key: F, right_wins: fn(&Key, &Key) -> bool) -> Option<X::Out>
    where
        E: Executor + ?Sized,
        X::Out: Send,
        Key: Ord + Send,
        F: Fn(&X::Out) -> Key + Sync,
        K: Codec<Option<(Key, X::Out)>>,
    {
        let join = |a: Option<(Key, X::Out)>, b: Option<(Key, X::Out)>| match (a, b) {
            (Some(a), Some(b)) => Some(if right_wins(&b.0, &a.0) { b } else { a }),
            (a, b) => a.or(b),
        };
        let step = |acc: Option<(Key, X::Out)>, x| {
            let k = key(&x);
            match acc {
                Some(best) if !right_wins(&k, &best.0) => Some(best),
                _ => Some((k, x)),
            }
        };
        self.fold(ex, || None, step, join).map(|(_, x)| x)
    }

    /// `true` if `f` holds for some item; stops at the first such item.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// assert!((0..1_000_000).pipe().any(&ThreadedEx::new(), |x| x == 999));
    /// ```
    pub fn any<E, F>(&self, ex: &E, f: F) -> bool
    where
        E: Executor + ?Sized,
        F: Fn(X::Out) -> bool + Sync,
        K: Codec<bool>,
    {
        let step = |_, x| match f(x) {
            true => ControlFlow::Break(true),
            false => ControlFlow::Continue(false),
        };
        into_inner(self.try_fold(ex, || false, step, |a, b| a || b))
    }

    /// `true` if `f` holds for every item; stops at the first item for which it fails.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert!([2, 4, 6].pipe().all(&SequentialEx, |x| x % 2 == 0));
    /// ```
    pub fn all<E, F>(&self, ex: &E, f: F) -> bool
    where
        E: Executor + ?Sized,
        F: Fn(X::Out) -> bool + Sync,
        K: Codec<bool>,
    {
        !self.any(ex, |x| !f(x))
    }

    /// The first item (by index) for which `f` holds; nothing after it runs once it is found.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let hit = (0..1_000_000).pipe().map(|x| x as u64 * 7).find_first(&ThreadedEx::new(), |x| x % 1000 == 999);
    /// assert_eq!(hit, Some(5999));
    /// ```
    pub fn find_first<E, F>(&self, ex: &E, f: F) -> Option<X::Out>
    where
        E: Executor + ?Sized,
        X::Out: Send,
        F: Fn(&X::Out) -> bool + Sync,
        K: Codec<Option<X::Out>>,
    {
        let step = |_, x| match f(&x) {
            true => ControlFlow::Break(Some(x)),
            false => ControlFlow::Continue(None),
        };
        let first = |a: Option<_>, b| a.or(b);
        into_inner(self.try_fold(ex, || None, step, first))
    }

    /// An item for which `f` holds: the first one, since foldex's search is deterministic
    /// (rayon's `find_any` may return any).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!((1..100).pipe().find_any(&SequentialEx, |x| x % 10 == 0), Some(10));
    /// ```
    pub fn find_any<E, F>(&self, ex: &E, f: F) -> Option<X::Out>
    where
        E: Executor + ?Sized,
        X::Out: Send,
        F: Fn(&X::Out) -> bool + Sync,
        K: Codec<Option<X::Out>>,
    {
        self.find_first(ex, f)
    }

    /// The last item (by index) for which `f` holds. On an indexable source whose stages map
    /// each item alone (`map`, `filter`, `filter_map`, `flat_map`, `inspect`), the search runs
    /// from the right and stops at the match, as `find_first` does from the left; past a stage
    /// with state or a stop, or over a stream, every item is folded.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!((1..100).pipe().find_last(&SequentialEx, |x| x % 10 == 0), Some(90));
    /// ```
    pub fn find_last<E, F>(&self, ex: &E, f: F) -> Option<X::Out>
    where
        E: Executor + ?Sized,
        X::Out: Send,
        F: Fn(&X::Out) -> bool + Sync,
        K: Codec<Option<X::Out>>,
    {
        if let Some(hit) = self.find_last_from_right(ex, &f) {
            return hit;
        }
        let step = |acc: Option<X::Out>, x| if f(&x) { Some(x) } else { acc };
        self.fold(ex, || None, step, |a, b| b.or(a))
    }

    /// The position (among the pipeline's items) of the first item for which `f` holds.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let odd = (0..10).pipe().filter(|x| x % 2 == 1);
    /// assert_eq!(odd.position_first(&SequentialEx, |x| x > 4), Some(2));
    /// ```
    pub fn position_first<E, F>(&self, ex: &E, f: F) -> Option<usize>
    where
        E: Executor + ?Sized,
        F: Fn(X::Out) -> bool + Sync,
        K: Codec<(usize, Option<usize>)>,
    {
        let step = |(seen, _): Seen, x| match f(x) {
            true => ControlFlow::Break((seen + 1, Some(seen))),
            false => ControlFlow::Continue((seen + 1, None)),
        };
        let join = join_positions(|a, b| a.or(b));
        into_inner(self.try_fold(ex, || (0, None), step, join)).1
    }

    /// The position (among the pipeline's items) of the last item for which `f` holds. On an
    /// indexable pipeline the search runs from the right and stops at the match; past a stage
    /// that changes the number of items, every item is folded (the position counts them).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!([1, 5, 2, 5].pipe().position_last(&SequentialEx, |&x| x == 5), Some(3));
    /// ```
    pub fn position_last<E, F>(&self, ex: &E, f: F) -> Option<usize>
    where
        E: Executor + ?Sized,
        F: Fn(X::Out) -> bool + Sync,
        K: Codec<(usize, Option<usize>)>,
    {
        if let Some(position) = self.position_last_from_right(ex, &f) {
            return position;
        }
        let step = |(seen, last): Seen, x| match f(x) {
            true => (seen + 1, Some(seen)),
            false => (seen + 1, last),
        };
        self.fold(ex, || (0, None), step, join_positions(|a, b| b.or(a)))
            .1
    }

    /// Collects the items into `C`, in order: a `Vec`, a `String`, a map or set, or a
    /// `Result<C, E>` / `Option<C>` that stops at the first `Err` / `None` by index.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// use std::collections::HashMap;
    /// let squares: HashMap<usize, usize> = (0..4usize).pipe().map(|x| (x, x * x)).collect(&SequentialEx);
    /// assert_eq!(squares[&3], 9);
    /// let parsed: Result<Vec<u8>, _> = ["1", "x", "2"].pipe().map(|s| s.parse::<u8>()).collect(&SequentialEx);
    /// assert!(parsed.is_err());
    /// ```
    ///
    /// With a codec ([`encoded`](Pipeline::encoded)), a `Vec` is collected as a fold too, its
    /// partial written with the codec.
    pub fn collect<C>(&self, ex: &(impl Executor + ?Sized)) -> C
    where
        C: FromPipeline<X::Out>,
        K: Codec<C::Partial>,
    {
        if X::ONE_TO_ONE
            && self.codec.is_none()
            && let Some(source) = self.source.as_indexed()
        {
            let items = OneToOne {
                source,
                transform: &self.transform,
            };
            return C::collect_indexed(ex, items);
        }
        self.collect_folded(ex)
    }

    /// [`collect`](Pipeline::collect) as a fold: `C`'s partial per piece, merged left to right.
    pub(crate) fn collect_folded<C>(&self, ex: &(impl Executor + ?Sized)) -> C
    where
        C: FromPipeline<X::Out>,
        K: Codec<C::Partial>,
    {
        let acc = self.run(ex, C::BREAKS, C::start, C::push, C::merge);
        C::finish(into_inner(acc))
    }
}

/// `op` of `min_by`: the first of equal items wins.
fn first_min<T>(compare: impl Fn(&T, &T) -> Ordering) -> impl Fn(T, T) -> T {
    move |a, b| match compare(&b, &a) {
        Ordering::Less => b,
        _ => a,
    }
}

/// `op` of `max_by`: the last of equal items wins.
fn last_max<T>(compare: impl Fn(&T, &T) -> Ordering) -> impl Fn(T, T) -> T {
    move |a, b| match compare(&b, &a) {
        Ordering::Less => a,
        _ => b,
    }
}

/// `right_wins` of `min_by_key`: a key to the right wins only when smaller.
fn first_min_key<K: Ord>(right: &K, left: &K) -> bool {
    right < left
}

/// `right_wins` of `max_by_key`: a key to the right wins when not smaller.
fn last_max_key<K: Ord>(right: &K, left: &K) -> bool {
    right >= left
}

/// Items seen by a piece, and the position of the one it found (if any) among them.
type Seen = (usize, Option<usize>);

/// Joins the [`Seen`] of adjacent pieces; `pick` chooses between the left position and the
/// right one (already offset by the left piece's count).
fn join_positions(
    pick: fn(Option<usize>, Option<usize>) -> Option<usize>,
) -> impl Fn(Seen, Seen) -> Seen + Sync {
    move |(seen_a, a), (seen_b, b)| (seen_a + seen_b, pick(a, b.map(|p| seen_a + p)))
}
