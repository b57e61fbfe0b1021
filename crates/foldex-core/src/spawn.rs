//! Non-blocking folds: start a fold, keep the calling thread free, collect the result later.
//!
//! [`SpawnExt`] gives every executor (`Arc<dyn Executor>` included) `spawn_fold`,
//! `spawn_try_fold` and `spawn_for_each`. Each returns a [`FoldHandle`] at once; the fold runs
//! through the executor's ordinary [`execute`](crate::Executor::execute), driven from one new
//! thread (which is all `SequentialEx` uses; a pooled executor's workers run the pieces while
//! that thread waits, or helps where the executor lets callers help).
//!
//! Lifetimes follow `std::thread::spawn`: the source, the closures and the executor handle are
//! owned (`'static`), so the handle may outlive the scope that started the fold. Dropping the
//! handle cancels the fold and waits for the pieces already running, so nothing the fold owns
//! outlives it by accident.

use crate::codec::Init;
use crate::executor::Executor;
use crate::fold::{run_fold, PlainStep, TryStep};
use crate::source::Source;
use std::fmt;
use std::ops::ControlFlow;
use std::panic;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};

/// A fold running in the background, started by a [`SpawnExt`] method.
///
/// - [`join`](FoldHandle::join) waits and returns the result, or re-raises the fold's original
///   panic payload on the joining thread;
/// - [`is_finished`](FoldHandle::is_finished) polls without blocking;
/// - dropping the handle (or [`cancel`](FoldHandle::cancel)) cancels: no new piece starts, a
///   running piece stops at its next stop check (as after an early `Break`), and the drop
///   returns once every piece has finished. The result, or a panic, is then discarded.
///
/// ```
/// use foldex_core::SpawnExt;
/// use foldex_seq::SequentialEx;
/// let handle = SequentialEx.spawn_fold(0..1000, || 0, |n, i| n + i, |a, b| a + b);
/// // ... the calling thread is free here ...
/// assert_eq!(handle.join(), 499_500);
/// ```
#[must_use = "dropping a FoldHandle cancels the fold"]
pub struct FoldHandle<T> {
    cancel: Arc<AtomicBool>,
    /// `None` only after `join` took it, or during drop.
    thread: Option<JoinHandle<Option<T>>>,
}

impl<T> fmt::Debug for FoldHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldHandle")
            .field("finished", &self.is_finished())
            .field("cancelled", &self.cancel.load(Ordering::Relaxed))
            .finish()
    }
}

impl<T> FoldHandle<T> {
    /// Waits for the fold to finish and returns its result.
    ///
    /// # Panics
    /// If `step` or `combine` panicked, the first payload is re-raised here (`resume_unwind`),
    /// as a blocking fold would have re-raised it on its caller.
    pub fn join(mut self) -> T {
        let thread = self.thread.take().expect("a FoldHandle is joined once");
        match thread.join() {
            Ok(Some(result)) => result,
            Ok(None) => unreachable!("a fold is cancelled only by dropping its handle"),
            Err(payload) => panic::resume_unwind(payload),
        }
    }

    /// `true` once the fold has finished (with a result or a panic): [`join`](Self::join) will
    /// then not block.
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Cancels the fold and waits until every piece it started has finished; the same as
    /// dropping the handle, spelled out.
    pub fn cancel(self) {
        drop(self);
    }

    /// Starts `fold` on a new thread; `fold` gets the cancel flag to hand to its job.
    fn start(fold: impl FnOnce(&AtomicBool) -> Option<T> + Send + 'static) -> Self
    where
        T: Send + 'static,
    {
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let thread = thread::Builder::new()
            .name("foldex-spawn".into())
            .spawn(move || fold(&flag))
            .expect("foldex: failed to start the thread of a spawned fold");
        Self {
            cancel,
            thread: Some(thread),
        }
    }
}

impl<T> Drop for FoldHandle<T> {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            self.cancel.store(true, Ordering::Relaxed);
            // Nobody is left to receive the result or the panic: discard both.
            let _ = thread.join();
        }
    }
}

/// Non-blocking folds on every [`Executor`] whose handle can be cloned into a new thread
/// (`Arc<dyn Executor>`, `SequentialEx`, the pooled executors' handles; wrap any other executor
/// in an `Arc`).
///
/// The methods mirror [`ExecutorExt`](crate::ExecutorExt)'s, with owned (`'static`) sources and
/// closures, and return a [`FoldHandle`] at once instead of the result.
///
/// ```
/// use foldex_core::{Executor, SpawnExt};
/// use foldex_seq::SequentialEx;
/// use std::sync::Arc;
/// let ex: Arc<dyn Executor> = Arc::new(SequentialEx);
/// let squares = ex.spawn_fold(0..10, Vec::new, |mut v, i| { v.push(i * i); v }, |mut a, mut b| {
///     a.append(&mut b);
///     a
/// });
/// assert_eq!(squares.join()[3], 9);
/// ```
pub trait SpawnExt: Executor {
    /// [`fold`](crate::ExecutorExt::fold), started in the background.
    fn spawn_fold<S, A, I, F, C>(&self, source: S, init: I, step: F, combine: C) -> FoldHandle<A>
    where
        Self: Clone + 'static,
        S: Source + Send + 'static,
        A: Send + 'static,
        I: Init<A> + Send + 'static,
        F: Fn(A, S::Item) -> A + Send + Sync + 'static,
        C: Fn(A, A) -> A + Send + Sync + 'static,
    {
        let executor = self.clone();
        FoldHandle::start(move |cancel| {
            let flow = run_fold(
                &executor,
                source,
                PlainStep(step),
                init,
                combine,
                Some(cancel),
            )?;
            match flow {
                ControlFlow::Continue(acc) | ControlFlow::Break(acc) => Some(acc),
            }
        })
    }

    /// [`try_fold`](crate::ExecutorExt::try_fold), started in the background.
    fn spawn_try_fold<S, A, I, F, C>(
        &self,
        source: S,
        init: I,
        step: F,
        combine: C,
    ) -> FoldHandle<ControlFlow<A, A>>
    where
        Self: Clone + 'static,
        S: Source + Send + 'static,
        A: Send + 'static,
        I: Init<A> + Send + 'static,
        F: Fn(A, S::Item) -> ControlFlow<A, A> + Send + Sync + 'static,
        C: Fn(A, A) -> A + Send + Sync + 'static,
    {
        let executor = self.clone();
        FoldHandle::start(move |cancel| {
            run_fold(
                &executor,
                source,
                TryStep(step),
                init,
                combine,
                Some(cancel),
            )
        })
    }

    /// [`for_each`](crate::ExecutorExt::for_each), started in the background: calls `f` on
    /// every item until the fold finishes or the handle is dropped.
    ///
    /// ```
    /// use foldex_core::SpawnExt;
    /// use foldex_seq::SequentialEx;
    /// let (tx, rx) = std::sync::mpsc::sync_channel(4);
    /// let producer = SequentialEx.spawn_for_each(0..100, move |i| tx.send(i * 2).unwrap());
    /// let total: usize = rx.iter().sum(); // the channel closes when the fold drops `f`
    /// producer.join();
    /// assert_eq!(total, 9900);
    /// ```
    fn spawn_for_each<S, F>(&self, source: S, f: F) -> FoldHandle<()>
    where
        Self: Clone + 'static,
        S: Source + Send + 'static,
        F: Fn(S::Item) + Send + Sync + 'static,
    {
        self.spawn_fold(source, || (), move |(), item| f(item), |(), ()| ())
    }
}

impl<E: Executor + ?Sized> SpawnExt for E {}
