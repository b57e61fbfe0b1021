//! The one fold every reduction of a pipeline runs: the transforms' state beside the
//! reduction's accumulator in each piece, and, for stages that hold items at a piece's edge,
//! pieces joined through the stages' `merge`.

use crate::indexed::ByRef;
use crate::pipeline::Pipeline;
use crate::streamed::PipeSource;
use crate::transform::Transform;
use foldex_core::{Codec, Executor, ExecutorExt, StopProbe};
use std::marker::PhantomData;
use std::ops::ControlFlow;

/// The accumulator, whether the fold broke or not.
pub(crate) fn into_inner<A>(flow: ControlFlow<A, A>) -> A {
    match flow {
        ControlFlow::Continue(acc) | ControlFlow::Break(acc) => acc,
    }
}

impl<S: PipeSource, X: Transform<S::Item>> Pipeline<S, X> {
    /// The one fold every reduction runs: the accumulator of a piece is the transforms' state
    /// beside the reduction's; `breaks` says whether `step` may return `Break`; `codec`, when
    /// given, writes the reduction's accumulator for executors that send partials to other
    /// processes (a piece's transform state is scratch, made afresh on the other side).
    pub(crate) fn run<E, A, I, F, C>(
        &self,
        ex: &E,
        codec: Option<&dyn Codec<A>>,
        breaks: bool,
        init: I,
        step: F,
        combine: C,
    ) -> ControlFlow<A, A>
    where
        E: Executor + ?Sized,
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(A, X::Out) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        if X::MERGES {
            assert!(codec.is_none(), "{HELD_ITEMS_STAY}");
            return self.run_merging(ex, breaks, init, step, combine);
        }
        let transform = &self.transform;
        let init = || (transform.start(), init());
        let combine = |(state, a): (X::State, A), (_, b): (X::State, A)| (state, combine(a, b));
        let piece_step = |(mut state, acc): (X::State, A), item: S::Item, probe: &StopProbe| {
            let mut sink = |acc, out| step(acc, out);
            match transform.step(&mut state, acc, item, &mut sink, probe) {
                ControlFlow::Continue(acc) => ControlFlow::Continue((state, acc)),
                ControlFlow::Break(acc) => ControlFlow::Break((state, acc)),
            }
        };
        let codec = codec.map(|reduction| Scratch {
            reduction,
            transform,
            items: PhantomData,
        });
        let indexed = || match self.source.as_indexed() {
            Some(source) => ByRef(source),
            None => panic!("{STREAMS_STAY}"),
        };
        let flow = if breaks || X::BREAKS {
            match &codec {
                Some(codec) => ex.try_fold_encoded(indexed(), init, piece_step, combine, codec),
                None => ex.try_fold_probed(self.source.input(), init, piece_step, combine),
            }
        } else {
            // Nothing here breaks: the stages get a probe that never reports a stop.
            let plain = |acc, item| into_inner(piece_step(acc, item, &StopProbe::NEVER));
            ControlFlow::Continue(match &codec {
                Some(codec) => ex.fold_encoded(indexed(), init, plain, combine, codec),
                None => ex.fold(self.source.input(), init, plain, combine),
            })
        };
        match flow {
            ControlFlow::Continue((_, acc)) => ControlFlow::Continue(acc),
            ControlFlow::Break((_, acc)) => ControlFlow::Break(acc),
        }
    }

    /// [`run`](Self::run) for stages that hold items back at a piece's edge
    /// ([`crate::stateful`]): pieces are joined with the stages' `merge` before `combine`, and
    /// what the run still holds is released in front of the result. A `merge` may pass an item
    /// to a `step` that breaks; the piece then carries `true`, and nothing to its right counts.
    fn run_merging<E, A, I, F, C>(
        &self,
        ex: &E,
        breaks: bool,
        init: I,
        step: F,
        combine: C,
    ) -> ControlFlow<A, A>
    where
        E: Executor + ?Sized,
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(A, X::Out) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        let transform = &self.transform;
        let source = self.source.input();
        let piece_init = || (transform.start(), init(), false);
        let join = |(mut state, a, stopped): (X::State, A, bool), (right, b, right_stopped)| {
            if stopped {
                return (state, a, true);
            }
            match transform.merge(&mut state, right, a, &mut |acc, out| step(acc, out)) {
                ControlFlow::Continue(a) => (state, combine(a, b), right_stopped),
                ControlFlow::Break(a) => (state, a, true),
            }
        };
        let piece_step =
            |(mut state, acc, stopped): (X::State, A, bool), item: S::Item, probe: &StopProbe| {
                let mut sink = |acc, out| step(acc, out);
                match transform.step(&mut state, acc, item, &mut sink, probe) {
                    ControlFlow::Continue(acc) => ControlFlow::Continue((state, acc, stopped)),
                    ControlFlow::Break(acc) => ControlFlow::Break((state, acc, stopped)),
                }
            };
        let (broke, (mut state, acc, stopped)) = if breaks || X::BREAKS {
            match ex.try_fold_probed(source, piece_init, piece_step, join) {
                ControlFlow::Continue(piece) => (false, piece),
                ControlFlow::Break(piece) => (true, piece),
            }
        } else {
            let plain = |piece, item| into_inner(piece_step(piece, item, &StopProbe::NEVER));
            (false, ex.fold(source, piece_init, plain, join))
        };
        match transform.release(&mut state, init(), &mut |acc, out| step(acc, out)) {
            ControlFlow::Break(front) => ControlFlow::Break(front),
            ControlFlow::Continue(front) if broke || stopped => {
                ControlFlow::Break(combine(front, acc))
            }
            ControlFlow::Continue(front) => ControlFlow::Continue(combine(front, acc)),
        }
    }
}

/// Why a pipeline with `dedup`, `unique` or `skip_while` cannot carry a codec.
const HELD_ITEMS_STAY: &str = "foldex: a pipeline with dedup, unique or skip_while cannot send \
     its partials to other processes: those stages hold items at a piece's edge, which have no \
     codec; run it on an executor in this process";

/// Why a pipeline over a stream cannot carry a codec.
const STREAMS_STAY: &str = "foldex: a pipeline over a stream cannot send its partials to other \
     processes: a stream is pulled in one process; collect it, or index the input";

/// A piece's accumulator, the transforms' scratch state beside the reduction's, written as the
/// reduction's alone: the state is scratch for the items of one piece (`combine` keeps the
/// left one, and no item is folded after a combine), so the other side starts a fresh one.
struct Scratch<'c, A, In, X> {
    reduction: &'c dyn Codec<A>,
    transform: &'c X,
    items: PhantomData<fn(In)>,
}

impl<A, In, X: Transform<In>> Codec<(X::State, A)> for Scratch<'_, A, In, X> {
    fn encode(&self, (_, acc): &(X::State, A), out: &mut Vec<u8>) -> Result<(), String> {
        self.reduction.encode(acc, out)
    }

    fn decode(&self, bytes: &[u8]) -> Result<(X::State, A), String> {
        Ok((self.transform.start(), self.reduction.decode(bytes)?))
    }
}
