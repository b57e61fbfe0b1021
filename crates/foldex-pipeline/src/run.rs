//! The one fold every reduction of a pipeline runs: the transforms' state beside the
//! reduction's accumulator in each piece, and, for stages that hold items at a piece's edge,
//! pieces joined through the stages' `merge`.
//!
//! ## A stage's stop is not the caller's Break
//!
//! `take_while` and `map_while` end the fold with a `Break` where they stop, so that nothing
//! to the right runs; the reduction's `step` may return a `Break` of its own. Only the latter
//! is the caller's: a run in which both can happen carries, beside each accumulator, whether
//! `step` made the Break, and a stage's stop comes out as `Continue`, as on `std::iter`.
//!
//! ## Speculative calls through stages that merge
//!
//! With `dedup`, `unique` or `skip_while` in the chain, a piece right of the front holds items
//! at its left edge that are decided only when it is joined ([`crate::stateful`]), so the
//! closures it runs on later items run ahead of the sequential order: a held item may yet
//! stop the run (a `Break`, a stage's stop, a panic) before them. Such a piece keeps the first
//! panic it meets (in a stage, the reduction, the source or a join) instead of raising it,
//! and stops there as a `Break` would, since the sequential run gets no further either. The
//! panic is raised once the piece is joined to the front (which runs as the sequential run
//! does) without a stop to its left; otherwise it never happened.

use crate::guarded::Positioned;
use crate::pipeline::Pipeline;
use crate::stage::{Route, Transform};
use crate::streamed::PipeSource;
use foldex_core::codec::Init;
use foldex_core::exec::PanicPayload;
use foldex_core::{Codec, Executor, StopProbe};
use std::marker::PhantomData;
use std::ops::ControlFlow;
use std::panic::{self, AssertUnwindSafe};

/// The accumulator, whether the fold broke or not.
pub(crate) fn into_inner<A>(flow: ControlFlow<A, A>) -> A {
    match flow {
        ControlFlow::Continue(acc) | ControlFlow::Break(acc) => acc,
    }
}

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// The one fold every reduction runs: the accumulator of a piece is the transforms' state
    /// beside the reduction's; `breaks` says whether `step` may return `Break`; the pipeline's
    /// codec, when set, writes the reduction's accumulator for executors that send partials to
    /// other processes (a piece's transform state is scratch, made afresh on the other side).
    /// The result is `Break` only where `step` made it.
    pub(crate) fn run<E, A, I, F, C>(
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
        K: Codec<A>,
    {
        self.run_probed(ex, breaks, init, |acc, out, _| step(acc, out), combine)
    }

    /// [`run`](Pipeline::run) with a `step` that is also given the fold's stop probe, for a
    /// reduction that loops long over one item (the pieces a
    /// [`RefPipeline`](crate::borrowed::RefPipeline) lends): the probe never reports a stop
    /// where `breaks` is false and no stage breaks.
    pub(crate) fn run_probed<E, A, I, F, C>(
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
        F: Fn(A, X::Out, &StopProbe) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
        K: Codec<A>,
    {
        self.transform.route(Folds {
            pipeline: self,
            ex,
            codec: self.codec.as_ref().map(|codec| codec as &dyn Codec<A>),
            breaks,
            init,
            step,
            combine,
        })
    }
}

/// A run's arguments, handed to the fold its stages need ([`Transform::route`]): only that
/// fold is compiled for the pipeline.
struct Folds<'p, S, X, K, E: ?Sized, I, F, C, A> {
    pipeline: &'p Pipeline<S, X, K>,
    ex: &'p E,
    codec: Option<&'p dyn Codec<A>>,
    breaks: bool,
    init: I,
    step: F,
    combine: C,
}

impl<S, X, K, E, A, I, F, C> Route<ControlFlow<A, A>> for Folds<'_, S, X, K, E, I, F, C, A>
where
    S: PipeSource,
    X: Transform<S::Item>,
    E: Executor + ?Sized,
    A: Send,
    I: Fn() -> A + Sync,
    F: Fn(A, X::Out, &StopProbe) -> ControlFlow<A, A> + Sync,
    C: Fn(A, A) -> A + Sync,
{
    /// The run for stages that hold nothing back: every piece runs its items in order, so the
    /// fold's own rules place every `Break` and panic.
    fn plain(self) -> ControlFlow<A, A> {
        let Folds {
            pipeline,
            ex,
            codec,
            breaks,
            init,
            step,
            combine,
        } = self;
        let transform = &pipeline.transform;
        let init = || (transform.start(), init());
        let combine = |(state, a): (X::State, A), (_, b): (X::State, A)| (state, combine(a, b));
        let piece_step = |(mut state, acc): (X::State, A), item: S::Item, probe: &StopProbe| {
            let mut sink = |acc, out| step(acc, out, probe);
            match transform.step(&mut state, acc, item, &mut sink, probe) {
                ControlFlow::Continue(acc) => ControlFlow::Continue((state, acc)),
                ControlFlow::Break(acc) => ControlFlow::Break((state, acc)),
            }
        };
        let init = PieceInit {
            init,
            codec: codec.map(|reduction| Scratch {
                reduction,
                transform,
                items: PhantomData,
            }),
        };
        let flow = if breaks || X::BREAKS {
            pipeline
                .source
                .try_fold_items(ex, false, init, piece_step, combine)
        } else {
            // Nothing here breaks: the stages get a probe that never reports a stop.
            let plain = |acc, item| into_inner(piece_step(acc, item, &StopProbe::NEVER));
            ControlFlow::Continue(pipeline.source.fold_items(ex, false, init, plain, combine))
        };
        match flow {
            ControlFlow::Continue((_, acc)) => ControlFlow::Continue(acc),
            ControlFlow::Break((_, acc)) => ControlFlow::Break(acc),
        }
    }

    /// The run where a stage may stop the fold: where `step` may too, each accumulator carries
    /// whether `step` made the Break (the module doc).
    fn stopping(self) -> ControlFlow<A, A> {
        if !self.breaks {
            return self.plain();
        }
        let Folds {
            pipeline,
            ex,
            codec,
            init,
            step,
            combine,
            ..
        } = self;
        let flagged = codec.map(Flagged);
        let flow = Folds {
            pipeline,
            ex,
            codec: flagged.as_ref().map(|codec| codec as &dyn Codec<(A, bool)>),
            breaks: true,
            init: || (init(), false),
            step: |(acc, _): (A, bool), item: X::Out, probe: &StopProbe| match step(
                acc, item, probe,
            ) {
                ControlFlow::Continue(acc) => ControlFlow::Continue((acc, false)),
                ControlFlow::Break(acc) => ControlFlow::Break((acc, true)),
            },
            combine: |(a, _): (A, bool), (b, stepped): (A, bool)| (combine(a, b), stepped),
        }
        .plain();
        match flow {
            ControlFlow::Break((acc, true)) => ControlFlow::Break(acc),
            ControlFlow::Continue((acc, _)) | ControlFlow::Break((acc, false)) => {
                ControlFlow::Continue(acc)
            }
        }
    }

    /// The run for stages that pass items on when pieces are joined and at the run's end, and
    /// decide every item where it is read (`fold_pieces`, `intersperse`), where nothing stops
    /// the run: the plain fold, with the stages' `merge` in its `combine` and their `finish`
    /// after it, and none of the per-item guards of the run for stages that hold items. Where
    /// `step` may stop the run, or a stage may (after `.boxed()`), that run instead, which
    /// knows where a join stopped.
    fn joining(self) -> ControlFlow<A, A> {
        if self.breaks || self.pipeline.transform.breaks() {
            return self.merging();
        }
        assert!(self.codec.is_none(), "{HELD_ITEMS_STAY}");
        let Folds {
            pipeline,
            ex,
            init,
            step,
            combine,
            ..
        } = self;
        let transform = &pipeline.transform;
        // Nothing stops the run here: every flow is `Continue`.
        let sink = |acc, out| step(acc, out, &StopProbe::NEVER);
        let piece_init = || (transform.start(), init());
        let piece_step = |(mut state, acc): (X::State, A), item: S::Item| {
            let flow = transform.step(&mut state, acc, item, &mut &sink, &StopProbe::NEVER);
            (state, into_inner(flow))
        };
        let join = |(mut left, a): (X::State, A), (right, b): (X::State, A)| {
            let a = into_inner(transform.merge(&mut left, right, a, &mut &sink));
            (left, combine(a, b))
        };
        let (state, acc) = pipeline
            .source
            .fold_items(ex, false, piece_init, piece_step, join);
        ControlFlow::Continue(into_inner(transform.finish(state, acc, &mut &sink)))
    }

    /// The run for stages that hold items back at a piece's edge ([`crate::stateful`]): the
    /// piece holding the run's first item starts from the stages' front state and runs as the
    /// sequential run does; the others keep their first panic (the module doc); pieces are
    /// joined with the stages' `merge` before `combine`.
    fn merging(self) -> ControlFlow<A, A> {
        assert!(self.codec.is_none(), "{HELD_ITEMS_STAY}");
        let Folds {
            pipeline,
            ex,
            init,
            step,
            combine,
            ..
        } = self;
        let transform = &pipeline.transform;
        let piece_init = || Part::open(None, init(), false);
        let piece_step =
            |mut part: Part<X::State, A>, (at, item): Positioned<S::Item>, probe: &StopProbe| {
                if !matches!(part.end, End::Open) {
                    // A join stopped it where the fold cannot see (a held item's Break), and
                    // the fold goes on into it (a stream's next batch): nothing more counts.
                    return ControlFlow::Break(part);
                }
                let state = part.state.get_or_insert_with(|| {
                    part.front = at == 0;
                    if part.front {
                        transform.front()
                    } else {
                        transform.start()
                    }
                });
                let acc = part
                    .acc
                    .take()
                    .expect("an open piece holds its accumulator");
                let mut stepped = false;
                let run = || {
                    let item = item.unwrap_or_else(|payload| panic::resume_unwind(payload));
                    let mut sink = |acc, out| noted(&mut stepped, step(acc, out, probe));
                    transform.step(state, acc, item, &mut sink, probe)
                };
                let flow = match part.front {
                    true => run(),
                    false => match panic::catch_unwind(AssertUnwindSafe(run)) {
                        Ok(flow) => flow,
                        Err(payload) => {
                            part.end = End::Panicked(payload);
                            return ControlFlow::Break(part);
                        }
                    },
                };
                match flow {
                    ControlFlow::Continue(acc) => {
                        part.acc = Some(acc);
                        ControlFlow::Continue(part)
                    }
                    ControlFlow::Break(acc) => {
                        part.acc = Some(acc);
                        part.end = End::stop(stepped);
                        ControlFlow::Break(part)
                    }
                }
            };
        let join = |mut left: Part<X::State, A>, right: Part<X::State, A>| {
            if !matches!(left.end, End::Open) {
                return left;
            }
            let front = left.front;
            let Some(left_state) = left.state.as_mut() else {
                // The left piece saw no item (its accumulator is `init()`, the identity).
                return right;
            };
            let acc = left
                .acc
                .take()
                .expect("an open piece holds its accumulator");
            let settle = || {
                let mut stepped = false;
                let mut sink = |acc, out| noted(&mut stepped, step(acc, out, &StopProbe::NEVER));
                let flow = match right.state {
                    Some(held) => transform.merge(left_state, held, acc, &mut sink),
                    None => ControlFlow::Continue(acc),
                };
                match (flow, right.end) {
                    (ControlFlow::Break(acc), _) => (Some(acc), End::stop(stepped)),
                    (ControlFlow::Continue(_), End::Panicked(payload)) if front => {
                        panic::resume_unwind(payload)
                    }
                    (ControlFlow::Continue(_), End::Panicked(payload)) => {
                        (None, End::Panicked(payload))
                    }
                    (ControlFlow::Continue(a), end) => {
                        let b = right
                            .acc
                            .expect("a piece without a kept panic holds its accumulator");
                        (Some(combine(a, b)), end)
                    }
                }
            };
            let (acc, end) = match front {
                true => settle(),
                false => panic::catch_unwind(AssertUnwindSafe(settle))
                    .unwrap_or_else(|payload| (None, End::Panicked(payload))),
            };
            left.acc = acc;
            left.end = end;
            left
        };
        let flow = pipeline
            .source
            .try_fold_guarded(ex, piece_init, piece_step, join);
        let (ControlFlow::Continue(mut part) | ControlFlow::Break(mut part)) = flow;
        if !part.front && part.state.is_some() {
            // The run's first pieces saw no items: what the others hold is decided now.
            let front = Part::open(Some(transform.front()), init(), true);
            part = join(front, part);
        }
        if matches!(part.end, End::Open | End::Stopped) {
            // The run's end: a stage that passes items on only at a piece's end
            // (`fold_pieces`) passes the last ones now; after a stage's stop, only the stages
            // after it do (`Then::finish`).
            let state = part.state.take().unwrap_or_else(|| transform.front());
            let acc = part
                .acc
                .take()
                .expect("an open piece holds its accumulator");
            let mut stepped = false;
            let mut sink = |acc, out| noted(&mut stepped, step(acc, out, &StopProbe::NEVER));
            let flow = transform.finish(state, acc, &mut sink);
            if flow.is_break() {
                part.end = End::stop(stepped);
            }
            part.acc = Some(into_inner(flow));
        }
        let acc = || {
            part.acc
                .expect("a run that raised no panic holds its accumulator")
        };
        match part.end {
            End::Open | End::Stopped => ControlFlow::Continue(acc()),
            End::Broke => ControlFlow::Break(acc()),
            End::Panicked(payload) => panic::resume_unwind(payload),
        }
    }
}

/// `flow`, noting in `stepped` whether it is a `Break` (made by the reduction's `step`).
#[inline]
fn noted<A>(stepped: &mut bool, flow: ControlFlow<A, A>) -> ControlFlow<A, A> {
    *stepped = flow.is_break();
    flow
}

/// A piece of a run through stages that merge.
struct Part<St, A> {
    /// The stages' state: `None` until the piece's first item.
    state: Option<St>,
    /// The reduction's accumulator; `None` once a panic is kept (nothing here counts then).
    acc: Option<A>,
    /// The piece begins at the run's first item: it runs as the sequential run does.
    front: bool,
    end: End,
}

impl<St, A> Part<St, A> {
    fn open(state: Option<St>, acc: A, front: bool) -> Self {
        Self {
            state,
            acc: Some(acc),
            front,
            end: End::Open,
        }
    }
}

/// How a piece ended.
enum End {
    /// Every item went through.
    Open,
    /// A stage stopped the run (`take_while`): the result is `Continue`.
    Stopped,
    /// The reduction's `step` returned `Break`.
    Broke,
    /// A panic kept by a piece right of the front.
    Panicked(PanicPayload),
}

impl End {
    /// The end of a piece that broke: the reduction's own Break where `step` made it.
    fn stop(stepped: bool) -> Self {
        if stepped {
            End::Broke
        } else {
            End::Stopped
        }
    }
}

/// A reduction's codec with a byte before the accumulator: whether `step` made the Break.
struct Flagged<'c, A>(&'c dyn Codec<A>);

impl<A> Codec<(A, bool)> for Flagged<'_, A> {
    fn encode(&self, (acc, stepped): &(A, bool), out: &mut Vec<u8>) -> Result<(), String> {
        out.push(u8::from(*stepped));
        self.0.encode(acc, out)
    }

    fn decode(&self, bytes: &[u8]) -> Result<(A, bool), String> {
        match bytes.split_first() {
            Some((&flag @ (0 | 1), acc)) => Ok((self.0.decode(acc)?, flag == 1)),
            Some((flag, _)) => Err(format!("a Break flag of {flag}, not 0 or 1")),
            None => Err("no Break flag before the accumulator".to_owned()),
        }
    }
}

/// Why a pipeline with a stage that holds items at a piece's edge cannot carry a codec.
const HELD_ITEMS_STAY: &str = "foldex: a pipeline with dedup, unique or skip_while (or \
     fold_pieces, intersperse, or positions after a transform) cannot send its partials to \
     other processes: those stages hold items at a piece's edge, which have no codec; run it on \
     an executor in this process";

/// What makes a piece's accumulator (`init`), and the codec that writes it (`codec`) where the
/// reduction has one: no boxing, and nothing per piece beyond `init`.
struct PieceInit<I, K> {
    init: I,
    codec: Option<K>,
}

impl<T, I: Fn() -> T + Sync, K: Codec<T>> Init<T> for PieceInit<I, K> {
    #[inline]
    fn init(&self) -> T {
        (self.init)()
    }

    fn codec(&self) -> Option<&dyn Codec<T>> {
        self.codec.as_ref().map(|codec| codec as &dyn Codec<T>)
    }
}

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
