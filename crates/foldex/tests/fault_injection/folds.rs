//! The `folds` and `spawned_folds` groups: fold cases (breaks, panics in `step` and `combine`,
//! an accumulator that shows a lost or reordered item) run blocking and through `SpawnExt`.

use crate::{knobs, payload, run_group, CombineBoom, Ctx, ExecSpec, Payload, Rng};
use foldex::prelude::*;
use foldex::protocol::FoldHandle;
use foldex::protocol::Source;
use foldex_testkit::Boom;
use std::fmt;
use std::ops::ControlFlow::{self, Break, Continue};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

// ------------------------------------------------------------------------------------------------
// Fold cases
// ------------------------------------------------------------------------------------------------

/// The accumulator: a polynomial hash of the items in order, their count, and the smallest
/// and one past the largest index folded. Concatenation is associative, not commutative, and
/// `Acc::EMPTY` is its identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Acc {
    n: u64,
    hash: u64,
    lo: usize,
    hi: usize,
}

const HASH_BASE: u64 = 0x0000_0100_0000_01B3;

impl Acc {
    const EMPTY: Acc = Acc {
        n: 0,
        hash: 0,
        lo: usize::MAX,
        hi: 0,
    };

    fn push(self, i: usize) -> Acc {
        let value = ((i as u64) ^ 0xA5A5_5A5A).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        Acc {
            n: self.n + 1,
            hash: self.hash.wrapping_mul(HASH_BASE).wrapping_add(value),
            lo: self.lo.min(i),
            hi: self.hi.max(i + 1),
        }
    }

    fn then(self, right: Acc) -> Acc {
        let shift = HASH_BASE.wrapping_pow(u32::try_from(right.n).expect("small folds"));
        Acc {
            n: self.n + right.n,
            hash: self.hash.wrapping_mul(shift).wrapping_add(right.hash),
            lo: self.lo.min(right.lo),
            hi: self.hi.max(right.hi),
        }
    }

    fn covers(&self, i: usize) -> bool {
        self.lo <= i && i < self.hi
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    Fold,
    TryFold,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SourceKind {
    Range,
    Slice,
}

/// When `combine` panics (payload `CombineBoom`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CombineFault {
    /// Every call panics, with `CombineBoom(usize::MAX)`.
    Always,
    /// A call whose left operand holds this index panics, with `CombineBoom(index)`.
    LeftCovers(usize),
    /// A call whose right operand holds this index panics, with `CombineBoom(index)`.
    RightCovers(usize),
}

impl CombineFault {
    fn payload(self) -> Payload {
        match self {
            CombineFault::Always => Payload::Combine(usize::MAX),
            CombineFault::LeftCovers(i) | CombineFault::RightCovers(i) => Payload::Combine(i),
        }
    }
}

/// One fold: where it breaks, panics, or waits.
#[derive(Debug, Clone)]
struct FoldCase {
    api: Api,
    source: SourceKind,
    executor: ExecSpec,
    len: usize,
    /// `step` returns `Break` at these indices (`try_fold` only).
    breaks: Vec<usize>,
    /// `step` panics with `Boom(index)` at these indices.
    panics: Vec<usize>,
    combine_fault: Option<CombineFault>,
    /// `step` sleeps this many µs at this index before anything else.
    slow: Option<(usize, u64)>,
}

const PRIMES: [usize; 16] = [
    2, 3, 5, 7, 11, 13, 17, 31, 61, 97, 101, 257, 509, 1021, 2053, 4099,
];

fn draw_len(rng: &mut Rng, max: usize) -> usize {
    let len = match rng.below(20) {
        0..=1 => 0,
        2..=3 => 1,
        4..=7 => rng.range(2, 20),
        8..=11 => rng.pick(&PRIMES),
        12..=16 => rng.range(21, 600),
        _ => rng.range(601, max.max(601)),
    };
    len.min(max)
}

/// An index for a fault: mostly inside `0..len`, sometimes at the edges or past the end.
fn draw_position(rng: &mut Rng, len: usize) -> usize {
    match rng.below(10) {
        0 => 0,
        1 => len.saturating_sub(1),
        2 => len + rng.below(3),
        _ if len == 0 => rng.below(3),
        _ => rng.below(len),
    }
}

impl FoldCase {
    fn draw(rng: &mut Rng, max_len: usize) -> Self {
        let len = draw_len(rng, max_len);
        let api = if rng.chance(65) {
            Api::TryFold
        } else {
            Api::Fold
        };
        let source = if rng.chance(70) {
            SourceKind::Range
        } else {
            SourceKind::Slice
        };
        let mut breaks = Vec::new();
        if api == Api::TryFold && rng.chance(60) {
            for _ in 0..rng.range(1, 3) {
                breaks.push(draw_position(rng, len));
            }
        }
        let mut panics = Vec::new();
        if rng.chance(60) {
            for _ in 0..rng.range(1, 2) {
                panics.push(draw_position(rng, len));
            }
        }
        let combine_fault = match rng.below(100) {
            0..=4 => Some(CombineFault::Always),
            5..=9 => Some(CombineFault::LeftCovers(draw_position(rng, len))),
            10..=14 => Some(CombineFault::RightCovers(draw_position(rng, len))),
            _ => None,
        };
        let slow = if rng.chance(15) && len > 0 {
            // Most often at a Break, so that a panic to its right can happen first.
            let at = match breaks.first() {
                Some(&b) if rng.chance(60) => b,
                _ => rng.below(len),
            };
            Some((at, rng.range(20, 300) as u64))
        } else {
            None
        };
        Self {
            api,
            source,
            executor: ExecSpec::draw(rng, len),
            len,
            breaks,
            panics,
            combine_fault,
            slow,
        }
    }

    fn step(&self, acc: Acc, i: usize) -> ControlFlow<Acc, Acc> {
        if let Some((at, micros)) = self.slow
            && at == i
        {
            std::thread::sleep(Duration::from_micros(micros));
        }
        if self.panics.contains(&i) {
            panic::panic_any(Boom(i));
        }
        let acc = acc.push(i);
        if self.breaks.contains(&i) {
            Break(acc)
        } else {
            Continue(acc)
        }
    }

    fn plain_step(&self, acc: Acc, i: usize) -> Acc {
        match self.step(acc, i) {
            Continue(acc) | Break(acc) => acc,
        }
    }

    fn combine(&self, a: Acc, b: Acc) -> Acc {
        match self.combine_fault {
            Some(CombineFault::Always) => panic::panic_any(CombineBoom(usize::MAX)),
            Some(CombineFault::LeftCovers(i)) if a.covers(i) => panic::panic_any(CombineBoom(i)),
            Some(CombineFault::RightCovers(i)) if b.covers(i) => panic::panic_any(CombineBoom(i)),
            _ => a.then(b),
        }
    }

    /// Runs the case on `ex` (blocking), over its source.
    fn run(&self, ex: &dyn Executor) -> Outcome {
        match self.source {
            SourceKind::Range => self.run_on(ex, 0..self.len, |i| i),
            SourceKind::Slice => {
                let data: Vec<usize> = (0..self.len).collect();
                self.run_on(ex, &data[..], |i: &usize| *i)
            }
        }
    }

    fn run_on<S: Source>(
        &self,
        ex: &dyn Executor,
        source: S,
        index: impl Fn(S::Item) -> usize + Sync,
    ) -> Outcome {
        let ran = panic::catch_unwind(AssertUnwindSafe(|| match self.api {
            Api::TryFold => Outcome::from(ex.try_fold(
                source,
                || Acc::EMPTY,
                |acc, item| self.step(acc, index(item)),
                |a, b| self.combine(a, b),
            )),
            Api::Fold => Outcome::Continue(ex.fold(
                source,
                || Acc::EMPTY,
                |acc, item| self.plain_step(acc, index(item)),
                |a, b| self.combine(a, b),
            )),
        }));
        ran.unwrap_or_else(|p| Outcome::Panic(payload(p)))
    }

    /// Whether `got` is right, given `want` from `SequentialEx`: equal, or (only with a
    /// `combine` fault) a panic with exactly that fault's payload.
    fn accepts(&self, want: &Outcome, got: &Outcome) -> bool {
        got == want
            || self
                .combine_fault
                .is_some_and(|f| *got == Outcome::Panic(f.payload()))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Continue(Acc),
    Break(Acc),
    Panic(Payload),
}

impl From<ControlFlow<Acc, Acc>> for Outcome {
    fn from(flow: ControlFlow<Acc, Acc>) -> Self {
        match flow {
            Continue(acc) => Outcome::Continue(acc),
            Break(acc) => Outcome::Break(acc),
        }
    }
}

/// The same executor still folds correctly (after a case that panicked on it).
fn check_still_usable(ctx: &Ctx, case: &dyn fmt::Debug, ex: &dyn Executor) {
    let got = panic::catch_unwind(AssertUnwindSafe(|| {
        ex.fold(
            0..257usize,
            Vec::new,
            |mut v, i| {
                v.push(i);
                v
            },
            |mut a, mut b| {
                a.append(&mut b);
                a
            },
        )
    }));
    match got {
        Ok(v) if v == (0..257).collect::<Vec<_>>() => {}
        Ok(v) => ctx.fail(
            case,
            format_args!("after the case, a plain fold on the same executor gave {v:?}"),
        ),
        Err(p) => ctx.fail(
            case,
            format_args!(
                "after the case, a plain fold on the same executor panicked: {:?}",
                payload(p)
            ),
        ),
    }
}

pub(crate) fn folds() {
    run_group(
        "folds",
        3_000,
        |rng| FoldCase::draw(rng, 5_000),
        |ctx, case| {
            let want = case.run(&SequentialEx);
            let ex = case.executor.build();
            let got = case.run(&*ex);
            if !case.accepts(&want, &got) {
                ctx.fail(
                    case,
                    format_args!("SequentialEx gave {want:?}, the executor gave {got:?}"),
                );
            }
            if matches!(got, Outcome::Panic(_)) {
                check_still_usable(ctx, case, &*ex);
            }
        },
    );
}

// ------------------------------------------------------------------------------------------------
// Non-blocking folds
// ------------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HandleAction {
    /// `join` after sleeping this many µs (0: at once).
    Join(u64),
    /// Poll `is_finished` (yielding) until it says so, then `join`.
    PollThenJoin,
    /// Drop the handle after sleeping this many µs.
    Drop(u64),
}

#[derive(Debug, Clone)]
struct SpawnCase {
    fold: FoldCase,
    action: HandleAction,
}

/// Joins or drops `handle` as the case says; `None` when it was dropped.
fn settle<T>(
    case: &SpawnCase,
    handle: FoldHandle<T>,
    outcome: impl FnOnce(T) -> Outcome,
) -> Option<Outcome> {
    let pause = |micros: u64| {
        if micros > 0 {
            std::thread::sleep(Duration::from_micros(micros));
        }
    };
    let join = |handle: FoldHandle<T>| {
        panic::catch_unwind(AssertUnwindSafe(|| handle.join()))
            .map_or_else(|p| Outcome::Panic(payload(p)), outcome)
    };
    match case.action {
        HandleAction::Join(micros) => {
            pause(micros);
            Some(join(handle))
        }
        HandleAction::PollThenJoin => {
            while !handle.is_finished() {
                std::thread::yield_now();
            }
            Some(join(handle))
        }
        HandleAction::Drop(micros) => {
            pause(micros);
            drop(handle);
            None
        }
    }
}

const SPAWN_CASES: usize = 800;

pub(crate) fn spawned_folds() {
    // Handles dropped: the case, its step counter, and the counter's value after the drop.
    let mut dropped: Vec<(usize, SpawnCase, Arc<AtomicUsize>, usize)> = Vec::new();
    run_group(
        "spawned_folds",
        SPAWN_CASES,
        |rng| {
            let mut fold = FoldCase::draw(rng, 3_000);
            fold.source = SourceKind::Range;
            let delay = |rng: &mut Rng| {
                if rng.chance(35) {
                    0
                } else {
                    rng.range(1, 300) as u64
                }
            };
            let action = match rng.below(10) {
                0..=5 => HandleAction::Join(delay(rng)),
                6 => HandleAction::PollThenJoin,
                _ => HandleAction::Drop(delay(rng)),
            };
            SpawnCase { fold, action }
        },
        |ctx, case| {
            let want = case.fold.run(&SequentialEx);
            let ex = case.fold.executor.build();
            let steps = Arc::new(AtomicUsize::new(0));
            let (plan, plan2) = (Arc::new(case.fold.clone()), Arc::new(case.fold.clone()));
            let counter = Arc::clone(&steps);
            let len = case.fold.len;
            let got = match case.fold.api {
                Api::TryFold => {
                    let handle = ex.spawn_try_fold(
                        0..len,
                        || Acc::EMPTY,
                        move |acc, i| {
                            counter.fetch_add(1, Ordering::Relaxed);
                            plan.step(acc, i)
                        },
                        move |a, b| plan2.combine(a, b),
                    );
                    settle(case, handle, Outcome::from)
                }
                Api::Fold => {
                    let handle = ex.spawn_fold(
                        0..len,
                        || Acc::EMPTY,
                        move |acc, i| {
                            counter.fetch_add(1, Ordering::Relaxed);
                            plan.plain_step(acc, i)
                        },
                        move |a, b| plan2.combine(a, b),
                    );
                    settle(case, handle, Outcome::Continue)
                }
            };
            match got {
                None => {
                    let at_drop = steps.load(Ordering::Relaxed);
                    dropped.push((ctx.case, case.clone(), steps, at_drop));
                }
                Some(got) => {
                    if !case.fold.accepts(&want, &got) {
                        ctx.fail(
                            case,
                            format_args!(
                                "SequentialEx gave {want:?}, the joined handle gave {got:?}"
                            ),
                        );
                    }
                    if matches!(got, Outcome::Panic(_)) {
                        check_still_usable(ctx, case, &*ex);
                    }
                }
            }
        },
    );
    // Long after every drop returned: a dropped fold never ran `step` again.
    for (n, case, counter, at_drop) in dropped {
        let now = counter.load(Ordering::Relaxed);
        if now != at_drop {
            let ctx = Ctx {
                group: "spawned_folds",
                case: n,
                count: SPAWN_CASES * knobs().scale,
                seed: knobs().seed,
            };
            ctx.fail(
                &case,
                format_args!(
                    "the handle was dropped after {at_drop} steps, yet step ran {} more times \
                     after the drop returned",
                    now - at_drop
                ),
            );
        }
    }
}
