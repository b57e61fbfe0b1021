//! The composition suite: seeded random chains of up to five stages, drawn from every transform
//! and stateful stage (stacked as they come) after a random source (a slice, index-preserving
//! adapters, a stream), ended by a random reduction, with a panic now and then in any closure
//! at any value, run on the executor under test and compared with the same chain on
//! `std::iter`: the value, the panic's payload, and the side effects the docs promise.
//!
//! Chains are built at run time through [`Pipeline::boxed`](foldex_pipeline::Pipeline::boxed),
//! so the suite compiles once, whatever the chains and the executor: each stage is the real
//! one, joined to the chain before it by the real `Then`. proptest shrinks a failing case to a
//! minimal chain. `FOLDEX_COMPOSITION_CASES` sets the number of cases (default 64 per
//! executor) and `FOLDEX_COMPOSITION_SEED` the seed (default [`DEFAULT_SEED`]); a failure
//! prints both.
//!
//! Side effects: on one piece (`SequentialEx`, or any executor on a length that does not split)
//! `inspect` and `for_each` see exactly the calls `std` makes, in order. On a parallel executor
//! they may also see items past a stop (a `take_while`, a `Break`, a panic) that the
//! sequential run never reaches: there every call `std` makes must be made, and where nothing
//! stops, no other.

use crate::{basesizes, quietly, watchdog};
use foldex_core::{Basesize, Executor, Stream};
use foldex_pipeline::boxed::BoxedStages;
use foldex_pipeline::{from_stream, IntoPipeline, PipeSource, Pipeline};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::collections::HashSet;
use std::fmt::Debug;
use std::ops::ControlFlow::{Break, Continue};
use std::sync::{Arc, Mutex, PoisonError};

/// The seed of the composition suite unless `FOLDEX_COMPOSITION_SEED` gives another.
pub const DEFAULT_SEED: u64 = 0x_f01d_e0c5;

/// A pipeline of the suite: any source, its stages erased.
type Chain<S> = Pipeline<S, BoxedStages<i64, i64>>;

/// The items of a std chain.
type StdChain<'a> = Box<dyn Iterator<Item = i64> + 'a>;

/// Panics with the payload the suite expects from `who` at `x`, when `x` is its panic value.
fn hit(who: &str, panic_on: Option<i64>, x: i64) {
    if panic_on == Some(x) {
        panic!("{who} saw {x}");
    }
}

/// What `inspect` stages and `for_each` saw, in the order they saw it: `(stage, item)`.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<(usize, i64)>>>);

impl Log {
    fn push(&self, who: usize, x: i64) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((who, x));
    }

    fn take(&self) -> Vec<(usize, i64)> {
        std::mem::take(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// A stage of a chain, with the value at which its closure panics (if any).
#[derive(Clone, Copy, Debug)]
enum Stage {
    Map {
        mul: i64,
        add: i64,
        panic_on: Option<i64>,
    },
    Filter {
        modulo: i64,
        rest: i64,
        panic_on: Option<i64>,
    },
    FilterMap {
        modulo: i64,
        panic_on: Option<i64>,
    },
    FlatMap {
        most: i64,
        panic_on: Option<i64>,
    },
    Inspect {
        panic_on: Option<i64>,
    },
    TakeWhile {
        stop: i64,
        panic_on: Option<i64>,
    },
    MapWhile {
        stop: i64,
        panic_on: Option<i64>,
    },
    MapInit {
        add: i64,
        panic_on: Option<i64>,
    },
    SkipWhile {
        until: i64,
        panic_on: Option<i64>,
    },
    Dedup,
    Unique,
}

impl Stage {
    /// Whether the stage may end the run before its last item (its closures may then run
    /// ahead on a parallel executor).
    fn stops(&self) -> bool {
        matches!(self, Stage::TakeWhile { .. } | Stage::MapWhile { .. })
    }

    /// Stage `k` after `p`.
    fn apply<S>(self, k: usize, p: Chain<S>, log: &Log) -> Chain<S>
    where
        S: PipeSource<Item = i64>,
    {
        match self {
            Stage::Map { mul, add, panic_on } => {
                p.map(move |x| mapped(k, mul, add, panic_on, x)).boxed()
            }
            Stage::Filter {
                modulo,
                rest,
                panic_on,
            } => p
                .filter(move |x| kept(k, modulo, rest, panic_on, *x))
                .boxed(),
            Stage::FilterMap { modulo, panic_on } => p
                .filter_map(move |x| filter_mapped(k, modulo, panic_on, x))
                .boxed(),
            Stage::FlatMap { most, panic_on } => {
                p.flat_map(move |x| expanded(k, most, panic_on, x)).boxed()
            }
            Stage::Inspect { panic_on } => {
                let log = log.clone();
                p.inspect(move |x| inspected(k, panic_on, &log, *x)).boxed()
            }
            Stage::TakeWhile { stop, panic_on } => p
                .take_while(move |x| not_stop(k, "take_while", stop, panic_on, *x))
                .boxed(),
            Stage::MapWhile { stop, panic_on } => p
                .map_while(move |x| not_stop(k, "map_while", stop, panic_on, x).then_some(x + 1))
                .boxed(),
            Stage::MapInit { add, panic_on } => p
                .map_init(Vec::new, move |scratch: &mut Vec<i64>, x| {
                    with_scratch(k, add, panic_on, scratch, x)
                })
                .boxed(),
            Stage::SkipWhile { until, panic_on } => p
                .skip_while(move |x| not_stop(k, "skip_while", until, panic_on, *x))
                .boxed(),
            Stage::Dedup => p.dedup().boxed(),
            Stage::Unique => p.unique().boxed(),
        }
    }

    /// Stage `k` after `it`, on `std::iter`.
    fn apply_std<'a>(self, k: usize, it: StdChain<'a>, log: &Log) -> StdChain<'a> {
        match self {
            Stage::Map { mul, add, panic_on } => {
                Box::new(it.map(move |x| mapped(k, mul, add, panic_on, x)))
            }
            Stage::Filter {
                modulo,
                rest,
                panic_on,
            } => Box::new(it.filter(move |x| kept(k, modulo, rest, panic_on, *x))),
            Stage::FilterMap { modulo, panic_on } => {
                Box::new(it.filter_map(move |x| filter_mapped(k, modulo, panic_on, x)))
            }
            Stage::FlatMap { most, panic_on } => {
                Box::new(it.flat_map(move |x| expanded(k, most, panic_on, x)))
            }
            Stage::Inspect { panic_on } => {
                let log = log.clone();
                Box::new(it.inspect(move |x| inspected(k, panic_on, &log, *x)))
            }
            Stage::TakeWhile { stop, panic_on } => {
                Box::new(it.take_while(move |x| not_stop(k, "take_while", stop, panic_on, *x)))
            }
            Stage::MapWhile { stop, panic_on } => {
                Box::new(it.map_while(move |x| {
                    not_stop(k, "map_while", stop, panic_on, x).then_some(x + 1)
                }))
            }
            Stage::MapInit { add, panic_on } => {
                let mut scratch = Vec::new();
                Box::new(it.map(move |x| with_scratch(k, add, panic_on, &mut scratch, x)))
            }
            Stage::SkipWhile { until, panic_on } => {
                Box::new(it.skip_while(move |x| not_stop(k, "skip_while", until, panic_on, *x)))
            }
            Stage::Dedup => {
                let mut last = None;
                Box::new(it.filter(move |x| last.replace(*x) != Some(*x)))
            }
            Stage::Unique => {
                let mut seen = HashSet::new();
                Box::new(it.filter(move |x| seen.insert(*x)))
            }
        }
    }
}

fn mapped(k: usize, mul: i64, add: i64, panic_on: Option<i64>, x: i64) -> i64 {
    hit(&format!("stage {k} map"), panic_on, x);
    (x * mul + add) % 1000
}

fn kept(k: usize, modulo: i64, rest: i64, panic_on: Option<i64>, x: i64) -> bool {
    hit(&format!("stage {k} filter"), panic_on, x);
    x % modulo != rest
}

fn filter_mapped(k: usize, modulo: i64, panic_on: Option<i64>, x: i64) -> Option<i64> {
    hit(&format!("stage {k} filter_map"), panic_on, x);
    (x % modulo != 0).then_some(x / 2)
}

fn expanded(k: usize, most: i64, panic_on: Option<i64>, x: i64) -> Vec<i64> {
    hit(&format!("stage {k} flat_map"), panic_on, x);
    (0..x % most).map(|j| x + j / 2).collect()
}

fn inspected(k: usize, panic_on: Option<i64>, log: &Log, x: i64) {
    hit(&format!("stage {k} inspect"), panic_on, x);
    log.push(k, x);
}

fn not_stop(k: usize, kind: &str, stop: i64, panic_on: Option<i64>, x: i64) -> bool {
    hit(&format!("stage {k} {kind}"), panic_on, x);
    x != stop
}

fn with_scratch(k: usize, add: i64, panic_on: Option<i64>, scratch: &mut Vec<i64>, x: i64) -> i64 {
    hit(&format!("stage {k} map_init"), panic_on, x);
    scratch.clear();
    scratch.push(x + add);
    scratch[0]
}

/// Where the items come from, before the stages.
#[derive(Clone, Copy, Debug)]
enum Form {
    /// The slice's items.
    Slice,
    /// The slice through an index-preserving `map` that may panic.
    Mapped { add: i64, panic_on: Option<i64> },
    /// `enumerate`, then the index folded into the item.
    Enumerated,
    /// `rev`, `skip` and `step_by`.
    Reshaped { skip: usize, step: usize },
    /// A stream of the items (batch size `None`: automatic), whose `next` may panic.
    Streamed {
        batch: Option<usize>,
        panic_on: Option<i64>,
    },
}

fn source_mapped(add: i64, panic_on: Option<i64>, x: i64) -> i64 {
    hit("the source's map", panic_on, x);
    x + add
}

fn enumerated((i, x): (usize, i64)) -> i64 {
    (x + i as i64 % 3) % 1000
}

/// A reduction that ends a chain; values at which its closure panics, or the value it looks
/// for.
#[derive(Clone, Copy, Debug)]
enum Reduction {
    Collect,
    Count,
    Sum,
    Max,
    /// Collects items until the one equal to `stop`, included, which returns `Break`.
    TryFold {
        stop: i64,
        panic_on: Option<i64>,
    },
    FindFirst {
        target: i64,
        panic_on: Option<i64>,
    },
    Any {
        target: i64,
    },
    PositionFirst {
        target: i64,
    },
    ForEach {
        panic_on: Option<i64>,
    },
}

impl Reduction {
    /// Whether the reduction may end the run before the last item.
    fn stops(&self) -> bool {
        matches!(
            self,
            Reduction::TryFold { .. }
                | Reduction::FindFirst { .. }
                | Reduction::Any { .. }
                | Reduction::PositionFirst { .. }
        )
    }

    fn run<S>(self, p: &Chain<S>, ex: &dyn Executor, log: &Log) -> String
    where
        S: PipeSource<Item = i64>,
    {
        match self {
            Reduction::Collect => shown(p.collect::<Vec<i64>>(ex)),
            Reduction::Count => shown(p.count(ex)),
            Reduction::Sum => shown(p.sum::<i64>(ex)),
            Reduction::Max => shown(p.max(ex)),
            Reduction::TryFold { stop, panic_on } => shown(p.try_fold(
                ex,
                Vec::new,
                |mut seen, x| {
                    hit("try_fold's step", panic_on, x);
                    seen.push(x);
                    if x == stop {
                        Break(seen)
                    } else {
                        Continue(seen)
                    }
                },
                |mut a, b| {
                    a.extend(b);
                    a
                },
            )),
            Reduction::FindFirst { target, panic_on } => shown(p.find_first(ex, |x| {
                hit("find_first's predicate", panic_on, *x);
                *x == target
            })),
            Reduction::Any { target } => shown(p.any(ex, |x| x == target)),
            Reduction::PositionFirst { target } => shown(p.position_first(ex, |x| x == target)),
            Reduction::ForEach { panic_on } => {
                p.for_each(ex, |x| {
                    hit("for_each", panic_on, x);
                    log.push(usize::MAX, x);
                });
                shown(())
            }
        }
    }

    fn run_std(self, mut it: StdChain<'_>, log: &Log) -> String {
        match self {
            Reduction::Collect => shown(it.collect::<Vec<i64>>()),
            Reduction::Count => shown(it.count()),
            Reduction::Sum => shown(it.sum::<i64>()),
            Reduction::Max => shown(it.max()),
            Reduction::TryFold { stop, panic_on } => {
                shown(it.try_fold(Vec::new(), |mut seen, x| {
                    hit("try_fold's step", panic_on, x);
                    seen.push(x);
                    if x == stop {
                        Break(seen)
                    } else {
                        Continue(seen)
                    }
                }))
            }
            Reduction::FindFirst { target, panic_on } => shown(it.find(|x| {
                hit("find_first's predicate", panic_on, *x);
                *x == target
            })),
            Reduction::Any { target } => shown(it.any(|x| x == target)),
            Reduction::PositionFirst { target } => shown(it.position(|x| x == target)),
            Reduction::ForEach { panic_on } => {
                it.for_each(|x| {
                    hit("for_each", panic_on, x);
                    log.push(usize::MAX, x);
                });
                shown(())
            }
        }
    }
}

fn shown(value: impl Debug) -> String {
    format!("{value:?}")
}

/// One case: the items, their source, the stages, the reduction and the executor's basesize.
#[derive(Clone, Debug)]
struct Case {
    /// Item `i` is a hash of `i / run` below `range`: runs of equal items, and repeats.
    len: usize,
    range: i64,
    run: usize,
    form: Form,
    stages: Vec<Stage>,
    reduction: Reduction,
    basesize: Basesize,
}

impl Case {
    fn items(&self) -> Vec<i64> {
        (0..self.len as u64)
            .map(|i| {
                ((i / self.run as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as i64
                    % self.range
            })
            .collect()
    }

    /// Whether anything may end the run early (the side effects may then differ in parallel).
    fn stops(&self) -> bool {
        self.reduction.stops() || self.stages.iter().any(Stage::stops)
    }

    /// What the chain gives on `ex`: its value or its panic's message, and the log.
    fn on(&self, ex: &dyn Executor) -> (Result<String, String>, Vec<(usize, i64)>) {
        let log = Log::default();
        let items = self.items();
        let outcome = quietly(|| match self.form {
            Form::Slice => self.finish(items.pipe().copied().boxed(), ex, &log),
            Form::Mapped { add, panic_on } => {
                let p = items
                    .pipe()
                    .copied()
                    .map(move |x| source_mapped(add, panic_on, x));
                self.finish(p.boxed(), ex, &log)
            }
            Form::Enumerated => self.finish(
                items.pipe().copied().enumerate().map(enumerated).boxed(),
                ex,
                &log,
            ),
            Form::Reshaped { skip, step } => self.finish(
                items.pipe().rev().skip(skip).step_by(step).copied().boxed(),
                ex,
                &log,
            ),
            Form::Streamed { batch, panic_on } => {
                let it: Box<dyn Iterator<Item = i64> + Send> = Box::new(
                    items
                        .clone()
                        .into_iter()
                        .map(move |x| source_mapped(0, panic_on, x)),
                );
                let stream = match batch {
                    Some(batch) => Stream::new(it).batch_size(batch),
                    None => Stream::new(it),
                };
                self.finish(from_stream(stream).boxed(), ex, &log)
            }
        });
        (outcome.map_err(message), log.take())
    }

    fn finish<S>(&self, source: Chain<S>, ex: &dyn Executor, log: &Log) -> String
    where
        S: PipeSource<Item = i64>,
    {
        let mut p = source;
        for (k, stage) in self.stages.iter().enumerate() {
            p = stage.apply(k, p, log);
        }
        self.reduction.run(&p, ex, log)
    }

    /// What the chain gives on `std::iter`.
    fn on_std(&self) -> (Result<String, String>, Vec<(usize, i64)>) {
        let log = Log::default();
        let items = self.items();
        let outcome = quietly(|| {
            let mut it: StdChain<'_> = match self.form {
                Form::Slice => Box::new(items.iter().copied()),
                Form::Mapped { add, panic_on } => {
                    Box::new(items.iter().map(move |&x| source_mapped(add, panic_on, x)))
                }
                Form::Enumerated => Box::new(items.iter().copied().enumerate().map(enumerated)),
                Form::Reshaped { skip, step } => {
                    Box::new(items.iter().rev().skip(skip).step_by(step).copied())
                }
                Form::Streamed { panic_on, .. } => {
                    Box::new(items.iter().map(move |&x| source_mapped(0, panic_on, x)))
                }
            };
            for (k, stage) in self.stages.iter().enumerate() {
                it = stage.apply_std(k, it, &log);
            }
            self.reduction.run_std(it, &log)
        });
        (outcome.map_err(message), log.take())
    }
}

/// A panic's message (the suite's panics carry a `String`).
fn message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(text) => *text,
        Err(payload) => match payload.downcast::<&str>() {
            Ok(text) => text.to_string(),
            Err(_) => "a panic without a message".to_owned(),
        },
    }
}

/// Whether the sorted `all` holds every element of the sorted `some`, as often.
fn includes<T: Ord>(all: &[T], some: &[T]) -> bool {
    let mut all = all.iter();
    some.iter().all(|wanted| all.any(|x| x == wanted))
}

/// A panic value now and then: below the ranges items take, so that it is met.
fn panic_value() -> impl Strategy<Value = Option<i64>> {
    prop::option::weighted(0.15, 0i64..40)
}

fn stage() -> impl Strategy<Value = Stage> {
    prop_oneof![
        (1i64..4, 0i64..20, panic_value()).prop_map(|(mul, add, panic_on)| Stage::Map {
            mul,
            add,
            panic_on
        }),
        (2i64..5, 0i64..4, panic_value()).prop_map(|(modulo, rest, panic_on)| Stage::Filter {
            modulo,
            rest,
            panic_on
        }),
        (2i64..5, panic_value())
            .prop_map(|(modulo, panic_on)| Stage::FilterMap { modulo, panic_on }),
        (1i64..4, panic_value()).prop_map(|(most, panic_on)| Stage::FlatMap { most, panic_on }),
        panic_value().prop_map(|panic_on| Stage::Inspect { panic_on }),
        (0i64..60, panic_value()).prop_map(|(stop, panic_on)| Stage::TakeWhile { stop, panic_on }),
        (0i64..60, panic_value()).prop_map(|(stop, panic_on)| Stage::MapWhile { stop, panic_on }),
        (0i64..5, panic_value()).prop_map(|(add, panic_on)| Stage::MapInit { add, panic_on }),
        (0i64..60, panic_value())
            .prop_map(|(until, panic_on)| Stage::SkipWhile { until, panic_on }),
        Just(Stage::Dedup),
        Just(Stage::Unique),
    ]
}

fn form() -> impl Strategy<Value = Form> {
    let batch = prop_oneof![
        Just(None),
        (1usize..=8).prop_map(Some),
        (9usize..=700).prop_map(Some)
    ];
    prop_oneof![
        2 => Just(Form::Slice),
        1 => (0i64..3, panic_value()).prop_map(|(add, panic_on)| Form::Mapped { add, panic_on }),
        1 => Just(Form::Enumerated),
        1 => (0usize..40, 1usize..4).prop_map(|(skip, step)| Form::Reshaped { skip, step }),
        2 => (batch, panic_value()).prop_map(|(batch, panic_on)| Form::Streamed { batch, panic_on }),
    ]
}

fn reduction() -> impl Strategy<Value = Reduction> {
    prop_oneof![
        2 => Just(Reduction::Collect),
        1 => Just(Reduction::Count),
        1 => Just(Reduction::Sum),
        1 => Just(Reduction::Max),
        2 => (0i64..60, panic_value()).prop_map(|(stop, panic_on)| Reduction::TryFold { stop, panic_on }),
        2 => (0i64..60, panic_value()).prop_map(|(target, panic_on)| Reduction::FindFirst { target, panic_on }),
        1 => (0i64..60).prop_map(|target| Reduction::Any { target }),
        1 => (0i64..60).prop_map(|target| Reduction::PositionFirst { target }),
        2 => panic_value().prop_map(|panic_on| Reduction::ForEach { panic_on }),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    let len = prop_oneof![
        1 => prop::sample::select(vec![0usize, 1, 2, 3, 7, 31, 97, 1009, 4099]),
        3 => 0usize..=3000,
    ];
    let range = prop::sample::select(vec![3i64, 8, 40, 1000]);
    let run = prop::sample::select(vec![1usize, 2, 5]);
    (
        len,
        range,
        run,
        form(),
        prop::collection::vec(stage(), 0..=5),
        reduction(),
        basesizes(),
    )
        .prop_map(
            |(len, range, run, form, stages, reduction, basesize)| Case {
                len,
                range,
                run,
                form,
                stages,
                reduction,
                basesize,
            },
        )
}

/// Random chains on the executor that `make` builds, against `std::iter` (see the module doc).
pub fn check_compositions<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    run_cases(
        &|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) },
        false,
    );
}

/// Random chains on an executor that runs every fold as one piece, on the calling thread
/// (`SequentialEx`): the side effects too are `std`'s, call for call.
pub fn check_compositions_in_order(ex: &dyn Executor) {
    run_cases(&|_| Box::new(ex), true);
}

/// The suite, compiled once: executors come through `&dyn Executor`.
fn run_cases<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>, in_order: bool) {
    let cases = crate::env::cases("FOLDEX_COMPOSITION_CASES", 64);
    let seed = crate::env::number("FOLDEX_COMPOSITION_SEED", u64::MAX).unwrap_or(DEFAULT_SEED);
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let mut runner = TestRunner::new_with_rng(config, rng);
    watchdog("compositions", || {
        let result = runner.run(&case(), |case| {
            let ex = make(case.basesize);
            let (want, want_log) = case.on_std();
            let (got, got_log) = case.on(&*ex);
            prop_assert_eq!(&got, &want, "the value or the panic");
            if in_order || case.len <= 1 {
                prop_assert_eq!(got_log, want_log, "the side effects, in order");
                return Ok(());
            }
            let (mut got_log, mut want_log) = (got_log, want_log);
            got_log.sort_unstable();
            want_log.sort_unstable();
            if want.is_ok() && !case.stops() {
                prop_assert_eq!(got_log, want_log, "the side effects, each once");
            } else {
                prop_assert!(
                    includes(&got_log, &want_log),
                    "every call std makes is made: std {want_log:?}, here {got_log:?}"
                );
            }
            Ok(())
        });
        if let Err(failure) = result {
            panic!(
                "composition failed (FOLDEX_COMPOSITION_SEED={seed:#x}, \
                 FOLDEX_COMPOSITION_CASES={cases}): {failure}"
            );
        }
    });
}
