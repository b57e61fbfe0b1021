//! Jobs that pass another job on in a role of the protocol: called for by a stand-in
//! ([`StandIn`]), or run while the thread waits ([`WhileWaiting`]).

use crate::audited::Partial;
use crate::codec::PartialCodec;
use crate::executor::{Caller, Job};
use std::cell::Cell;
use std::ops::Range;

/// `job`, as passed to [`Executor::execute`](crate::Executor::execute) by a thread that only
/// stands in for a helper: its [`Job::caller`] is [`Caller::StandsIn`], and everything else is
/// `job`'s. A driver that feeds a consumer (which calls
/// [`Executor::help`](crate::Executor::help) while it waits) wraps its jobs in it; see
/// [`Caller`] for the example.
#[derive(Clone, Copy)]
pub struct StandIn<'j, 'a>(pub &'j dyn Job<'a>);

/// `job`, with every piece run through [`Job::run_while_waiting`]: for an executor that hands a
/// job to other executors from a thread that waits for something below it on its stack (inside
/// its own [`Executor::help`](crate::Executor::help)), so that the executors it hands the job to
/// run its pieces as such whatever they know of the thread. Everything else is `job`'s.
///
/// ```
/// use foldex_core::exec::WhileWaiting;
/// use foldex_core::{Brand, Job, Partial};
/// use std::ops::Range;
///
/// /// Notes whether a piece was run while its thread waits.
/// struct Note(Brand<bool>);
/// impl<'a> Job<'a> for Note {
///     fn len(&self) -> usize { 1 }
///     fn run(&self, _: Range<usize>) -> Partial<'a> { self.0.wrap(false) }
///     fn run_while_waiting(&self, _: Range<usize>) -> Partial<'a> { self.0.wrap(true) }
///     fn combine(&self, l: Partial<'a>, _: Partial<'a>) -> Partial<'a> { l }
///     fn is_stopped(&self, _: usize) -> bool { false }
/// }
///
/// let job = Note(Brand::new());
/// assert!(!job.0.unwrap(job.run(0..1)));
/// assert!(job.0.unwrap(WhileWaiting(&job).run(0..1)));
/// ```
#[derive(Clone, Copy)]
pub struct WhileWaiting<'j, 'a>(pub &'j dyn Job<'a>);

/// The `Debug` and `Job` impls of a job that passes `self.0` on: everything forwards but the
/// methods given.
macro_rules! passes_on {
    ($name:ident, caller: |$c:ident| $caller:expr, run: |$r:ident, $range:ident| $run:expr $(,)?) => {
        impl std::fmt::Debug for $name<'_, '_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("len", &self.0.len())
                    .finish_non_exhaustive()
            }
        }

        impl<'a> Job<'a> for $name<'_, 'a> {
            fn len(&self) -> usize {
                self.0.len()
            }

            fn run(&self, $range: Range<usize>) -> Partial<'a> {
                let $r = self.0;
                $run
            }

            fn combine(&self, left: Partial<'a>, right: Partial<'a>) -> Partial<'a> {
                self.0.combine(left, right)
            }

            fn is_stopped(&self, from: usize) -> bool {
                self.0.is_stopped(from)
            }

            fn codec(&self) -> Option<&dyn PartialCodec<'a>> {
                self.0.codec()
            }

            fn caller(&self) -> Caller {
                let $c = self.0;
                $caller
            }

            fn run_while_waiting(&self, range: Range<usize>) -> Partial<'a> {
                self.0.run_while_waiting(range)
            }

            fn piece_len(&self) -> crate::exec::PieceLen {
                self.0.piece_len()
            }
        }
    };
}

passes_on!(StandIn, caller: |_job| Caller::StandsIn, run: |job, range| job.run(range));
passes_on!(
    WhileWaiting,
    caller: |job| job.caller(),
    run: |job, range| job.run_while_waiting(range),
);

#[cfg(loom)]
use loom::thread::LocalKey;
#[cfg(not(loom))]
use std::thread::LocalKey;

/// How many waits that run pieces the current thread is in, for one executor: what it needs to
/// choose between [`Job::run`] and [`Job::run_while_waiting`]. Each executor keeps its own count
/// in a thread-local of its own, which this wraps, since it knows only its own waits.
///
/// [`wait_depth!`](crate::wait_depth) declares one over a thread-local of its own:
///
/// ```
/// foldex_core::wait_depth! {
///     /// This thread's waits in which it runs this executor's pieces.
///     static WAITING;
/// }
///
/// assert!(!WAITING.is_waiting());
/// // In `Executor::help`, or where a pool worker runs other work while it waits:
/// assert!(WAITING.while_waiting(|| WAITING.is_waiting()));
/// assert!(!WAITING.is_waiting());
/// ```
#[derive(Debug)]
pub struct WaitDepth(&'static LocalKey<Cell<usize>>);

impl WaitDepth {
    /// The count kept in `key`, which starts at 0 on every thread.
    pub const fn new(key: &'static LocalKey<Cell<usize>>) -> Self {
        Self(key)
    }

    /// Runs `f`, work this thread took while it waits, counted as a wait; the count is undone
    /// when `f` returns or unwinds.
    pub fn while_waiting<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Leave(&'static LocalKey<Cell<usize>>);
        impl Drop for Leave {
            fn drop(&mut self) {
                self.0.with(|depth| depth.set(depth.get() - 1));
            }
        }
        self.0.with(|depth| depth.set(depth.get() + 1));
        let _leave = Leave(self.0);
        f()
    }

    /// `true` inside [`WaitDepth::while_waiting`] on this thread.
    #[inline]
    pub fn is_waiting(&self) -> bool {
        self.0.with(Cell::get) > 0
    }

    /// Runs `range` of `job` on this thread: through [`Job::run_while_waiting`] inside
    /// [`WaitDepth::while_waiting`], else through [`Job::run`].
    pub fn run<'a>(&self, job: &dyn Job<'a>, range: Range<usize>) -> Partial<'a> {
        if self.is_waiting() {
            job.run_while_waiting(range)
        } else {
            job.run(range)
        }
    }
}

/// Declares a `static` [`WaitDepth`](crate::exec::WaitDepth) over a thread-local of its own (a
/// loom thread-local under `cfg(loom)`), for an executor's count of its own waits.
///
/// ```
/// foldex_core::wait_depth! {
///     /// This thread's waits inside `MyEx::help`.
///     pub(crate) static WAITING;
/// }
/// assert!(!WAITING.is_waiting());
/// ```
#[macro_export]
macro_rules! wait_depth {
    ($(#[$meta:meta])* $vis:vis static $name:ident;) => {
        $(#[$meta])*
        $vis static $name: $crate::exec::WaitDepth = {
            #[cfg(not(loom))]
            ::std::thread_local! {
                static DEPTH: ::std::cell::Cell<usize> = const { ::std::cell::Cell::new(0) };
            }
            #[cfg(loom)]
            $crate::exec::loom_thread_local! {
                static DEPTH: ::std::cell::Cell<usize> = ::std::cell::Cell::new(0);
            }
            $crate::exec::WaitDepth::new(&DEPTH)
        };
    };
}
