//! The stages without state (`map`, `filter`, `filter_map`, `flat_map`, `inspect`,
//! `take_while`, `map_while`) and `map_init`'s; re-exported as [`crate::transform`].

use crate::make_value::MakeValue;
use crate::stage::{Route, Transform};
use foldex_core::StopProbe;
use std::ops::ControlFlow;

/// Declares a stage without state: its struct (one closure), and its `Transform` impl, whose
/// `step` is `$body` with the closure as `$f`.
macro_rules! stateless_stage {
    ($(
        $(#[$doc:meta])*
        $name:ident<$f:ident>, generics [$($g:ident),*], where [$($bound:tt)*],
        out $out:ty, breaks $breaks:literal, route $route:ident,
        |$this:ident, $acc:ident, $item:ident, $sink:ident, $probe:pat_param| $body:expr;
    )*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name<$f>(pub(crate) $f);

        /// The stage's name, without its closure (as rayon prints its adapters).
        impl<$f> std::fmt::Debug for $name<$f> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name)).finish_non_exhaustive()
            }
        }

        impl<In, $($g,)* $f> Transform<In> for $name<$f>
        where
            $($bound)*
        {
            type Out = $out;
            type State = ();
            const BREAKS: bool = $breaks;
            // Without state, a stage that cannot stop the fold maps each item alone.
            const PER_ITEM: bool = !$breaks;

            #[inline]
            fn route<Res, Way: Route<Res>>(&self, route: Way) -> Res {
                route.$route()
            }

            #[inline]
            fn start(&self) {}

            #[inline]
            fn step<A, K>(
                &self,
                _: &mut (),
                $acc: A,
                $item: In,
                $sink: &mut K,
                $probe: &StopProbe,
            ) -> ControlFlow<A, A>
            where
                K: FnMut(A, $out) -> ControlFlow<A, A>,
            {
                let $this = &self.0;
                $body
            }
        }
    )*};
}

/// How many inner items a `flat_map` passes on between two looks at the stop probe.
pub const INNER_CHECK: u32 = 1024;

/// Passes the items of `inner`, the items one item of a pipeline becomes, on to `sink`,
/// looking at `probe` every [`INNER_CHECK`] items: `Break(acc)` once the fold no longer needs
/// the block.
#[inline]
pub(crate) fn inner_try_fold<I: Iterator, A>(
    mut inner: I,
    acc: A,
    mut sink: impl FnMut(A, I::Item) -> ControlFlow<A, A>,
    probe: &StopProbe,
) -> ControlFlow<A, A> {
    if inner
        .size_hint()
        .1
        .is_some_and(|most| most <= INNER_CHECK as usize)
    {
        // Short: no need to look at the probe on the way.
        return inner.try_fold(acc, sink);
    }
    let mut until_check = INNER_CHECK;
    inner.try_fold(acc, |acc, out| {
        until_check -= 1;
        if until_check == 0 {
            until_check = INNER_CHECK;
            if probe.is_stopped() {
                return ControlFlow::Break(acc);
            }
        }
        sink(acc, out)
    })
}

stateless_stage! {
    /// `map` after a stage that changed the number of items.
    MapStage<F>, generics [R], where [F: Fn(In) -> R + Sync,], out R, breaks false, route plain,
    |f, acc, item, sink, _| sink(acc, f(item));

    /// Passes on the items for which the predicate holds.
    Filter<P>, generics [], where [P: Fn(&In) -> bool + Sync,], out In, breaks false, route plain,
    |keep, acc, item, sink, _| if keep(&item) { sink(acc, item) } else { ControlFlow::Continue(acc) };

    /// Passes on `y` for every item that maps to `Some(y)`.
    FilterMap<F>, generics [R], where [F: Fn(In) -> Option<R> + Sync,], out R, breaks false, route plain,
    |f, acc, item, sink, _| match f(item) {
        Some(out) => sink(acc, out),
        None => ControlFlow::Continue(acc),
    };

    /// Passes on every item of the iterator each item maps to, in order.
    /// The inner loop checks the fold's stop probe every [`INNER_CHECK`] items, so an inner
    /// iterator that runs long (or forever) ends once its block no longer matters, in a
    /// reduction that can stop early (`find_first`, `any`, `take_while`, ...; the others run
    /// every item whatever happens to their left, and are given a probe that never stops).
    FlatMap<F>, generics [U], where [F: Fn(In) -> U + Sync, U: IntoIterator,], out U::Item,
    breaks false, route plain,
    |f, acc, item, sink, probe| inner_try_fold(f(item).into_iter(), acc, sink, probe);

    /// Calls a function on each item by reference, and passes it on.
    Inspect<F>, generics [], where [F: Fn(&In) + Sync,], out In, breaks false, route plain,
    |f, acc, item, sink, _| {
        f(&item);
        sink(acc, item)
    };

    /// Passes items on while the predicate holds; the first item for which it fails stops the
    /// fold, as a `Break` there would.
    TakeWhile<P>, generics [], where [P: Fn(&In) -> bool + Sync,], out In, breaks true, route stopping,
    |keep, acc, item, sink, _| if keep(&item) { sink(acc, item) } else { ControlFlow::Break(acc) };

    /// Passes on `y` while items map to `Some(y)`; the first `None` stops the fold.
    MapWhile<F>, generics [R], where [F: Fn(In) -> Option<R> + Sync,], out R, breaks true, route stopping,
    |f, acc, item, sink, _| match f(item) {
        Some(out) => sink(acc, out),
        None => ControlFlow::Break(acc),
    };
}

/// `map_init` and `map_with`: a scratch value made once per piece by `init` (a closure, or
/// [`CloneOf`](crate::transform::CloneOf) a value), lent to `map` for every item.
#[derive(Clone, Copy)]
pub struct MapInit<I, F> {
    pub(crate) init: I,
    pub(crate) map: F,
}

/// The stage's name, without its closures.
impl<I, F> std::fmt::Debug for MapInit<I, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MapInit").finish_non_exhaustive()
    }
}

impl<In, T, R, I, F> Transform<In> for MapInit<I, F>
where
    I: MakeValue<Value = T> + Sync,
    F: Fn(&mut T, In) -> R + Sync,
    T: Send,
{
    type Out = R;
    type State = T;

    #[inline]
    fn start(&self) -> T {
        self.init.make()
    }

    #[inline]
    fn step<A, K>(
        &self,
        scratch: &mut T,
        acc: A,
        item: In,
        sink: &mut K,
        _: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, R) -> ControlFlow<A, A>,
    {
        sink(acc, (self.map)(scratch, item))
    }
}
