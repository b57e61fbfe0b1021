//! The callers' roles of the protocol ([`Caller`], [`Job::run_while_waiting`]), checked on any
//! executor.

use crate::{basesizes, run_property};
use foldex_core::exec::{JoinHalf, StandIn};
use foldex_core::{Basesize, Brand, Caller, Executor, ExecutorExt, Job, Partial};
use proptest::prelude::*;
use std::ops::ControlFlow::{Break, Continue};
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::{self, ThreadId};

/// An executor that calls `execute` as a data loader's driver does: every job's
/// [`Job::caller`] is [`Caller::StandsIn`]; everything else passes through. Use it with a
/// thread that calls [`Executor::help`] meanwhile, or to check that such folds also finish
/// without one. It keeps [`Executor::runs_inline`]'s default, `RunsInline::No`, whatever the
/// inner executor answers: every fold reaches the inner `execute` as a job that stands in.
///
/// ```
/// use foldex_core::{Executor, ExecutorExt, Job, Partial};
/// use foldex_testkit::AsDriver;
///
/// struct Inline;
/// impl Executor for Inline {
///     fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
///         job.run(0..job.len())
///     }
/// }
///
/// assert_eq!(AsDriver(Inline).sum::<usize>(0..10), 45);
/// ```
#[derive(Debug, Clone)]
pub struct AsDriver<E>(pub E);

impl<E: Executor> Executor for AsDriver<E> {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        self.0.execute(&StandIn(job))
    }
    fn workers(&self) -> usize {
        self.0.workers()
    }
    fn is_worker_thread(&self) -> bool {
        self.0.is_worker_thread()
    }
    fn help(&self) -> bool {
        self.0.help()
    }
    fn join_halves(&self, first: JoinHalf<'_>, second: JoinHalf<'_>) {
        self.0.join_halves(first, second)
    }
}

/// A job over `0..len` whose partial is the list of its indices, noting pieces that the
/// helper's thread ran through [`Job::run`] rather than [`Job::run_while_waiting`].
struct Recording {
    len: usize,
    brand: Brand<Vec<usize>>,
    caller: Caller,
    helper: Option<ThreadId>,
    plain_on_helper: AtomicUsize,
}

impl Recording {
    fn new(len: usize, caller: Caller, helper: Option<ThreadId>) -> Self {
        Self {
            len,
            brand: Brand::new(),
            caller,
            helper,
            plain_on_helper: AtomicUsize::new(0),
        }
    }
}

impl<'a> Job<'a> for Recording {
    fn len(&self) -> usize {
        self.len
    }
    fn run(&self, range: Range<usize>) -> Partial<'a> {
        if self.helper == Some(thread::current().id()) {
            self.plain_on_helper.fetch_add(1, Ordering::Relaxed);
        }
        self.brand.wrap(range.collect())
    }
    fn run_while_waiting(&self, range: Range<usize>) -> Partial<'a> {
        self.brand.wrap(range.collect())
    }
    fn combine(&self, left: Partial<'a>, right: Partial<'a>) -> Partial<'a> {
        let mut left = self.brand.unwrap(left);
        left.extend(self.brand.unwrap(right));
        self.brand.wrap(left)
    }
    fn is_stopped(&self, _from: usize) -> bool {
        false
    }
    fn caller(&self) -> Caller {
        self.caller
    }
}

/// Runs `fold` while another thread calls `ex.help()` until `fold` returns; `fold` receives
/// that thread's id.
fn with_helper<R>(ex: &dyn Executor, fold: impl FnOnce(ThreadId) -> R) -> R {
    let done = AtomicBool::new(false);
    thread::scope(|scope| {
        let helper = scope.spawn(|| {
            while !done.load(Ordering::Acquire) {
                if !ex.help() {
                    thread::yield_now();
                }
            }
        });
        let id = helper.thread().id();
        let result = panic::catch_unwind(AssertUnwindSafe(|| fold(id)));
        done.store(true, Ordering::Release);
        match result {
            Ok(value) => value,
            Err(payload) => panic::resume_unwind(payload),
        }
    })
}

/// Roles: a fold whose caller stands in for a helper ([`Caller::StandsIn`], as a loader's driver
/// calls) gives the sequential answer (order, exactly once, early termination, a panic's
/// payload), with a thread that helps meanwhile and with none; every piece the executor runs
/// inside [`Executor::help`], a fold nested in such a piece included, goes through
/// [`Job::run_while_waiting`]. Lengths `0..=600`, many basesizes.
pub fn check_roles<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_roles_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_roles`] through `&dyn Executor`, compiled once.
pub(crate) fn check_roles_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (0usize..=600, 0usize..=650, any::<bool>(), basesizes());
    run_property("roles", cases, |(len, stop, helped, bs)| {
        let ex = make(bs);
        let ex: &dyn Executor = &*ex;
        let want: Vec<usize> = (0..len).collect();

        // The job itself, called for by a stand-in, with a helper or none.
        let (got, plain) = if helped {
            with_helper(ex, |helper| {
                let job = Recording::new(len, Caller::StandsIn, Some(helper));
                let got = job.brand.unwrap(ex.execute(&job));
                (got, job.plain_on_helper.load(Ordering::Relaxed))
            })
        } else {
            let job = Recording::new(len, Caller::StandsIn, None);
            (job.brand.unwrap(ex.execute(&job)), 0)
        };
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(plain, 0, "pieces run inside `help` through `Job::run`");

        // Typed folds through a driver, with a fold nested in each step on the same executor.
        let driver = AsDriver(ex);
        let nested_plain = AtomicUsize::new(0);
        let typed = |helper: Option<ThreadId>| {
            let step = |mut acc: Vec<usize>, i: usize| {
                if i.is_multiple_of(97) {
                    let inner = Recording::new(i % 7, Caller::Waits, helper);
                    let inner_got = inner.brand.unwrap(ex.execute(&inner));
                    assert_eq!(inner_got, (0..i % 7).collect::<Vec<_>>());
                    nested_plain.fetch_add(
                        inner.plain_on_helper.load(Ordering::Relaxed),
                        Ordering::Relaxed,
                    );
                }
                acc.push(i);
                if i == stop {
                    Break(acc)
                } else {
                    Continue(acc)
                }
            };
            let concat = |mut a: Vec<usize>, mut b: Vec<usize>| {
                a.append(&mut b);
                a
            };
            let stopped = driver.try_fold(0..len, Vec::new, step, concat);
            let sum = driver.sum::<usize>(0..len);
            let panicked = panic::catch_unwind(AssertUnwindSafe(|| {
                driver.for_each(0..len, |i| {
                    if i == stop {
                        panic::panic_any(i);
                    }
                })
            }));
            (
                stopped,
                sum,
                panicked.err().and_then(|p| p.downcast::<usize>().ok()),
            )
        };
        let (stopped, sum, panicked) = if helped {
            with_helper(ex, |helper| typed(Some(helper)))
        } else {
            typed(None)
        };
        prop_assert_eq!(
            stopped,
            (0..len).try_fold(Vec::new(), |mut acc, i| {
                acc.push(i);
                if i == stop {
                    Break(acc)
                } else {
                    Continue(acc)
                }
            })
        );
        prop_assert_eq!(sum, (0..len).sum::<usize>());
        prop_assert_eq!(panicked.map(|p| *p), (stop < len).then_some(stop));
        prop_assert_eq!(
            nested_plain.load(Ordering::Relaxed),
            0,
            "pieces of a fold nested inside `help` run through `Job::run`"
        );
        Ok(())
    });
}
