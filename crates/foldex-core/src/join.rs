//! Fork–join on any executor: the typed [`ExecutorExt::join`](crate::ExecutorExt::join) and
//! the halves, their types erased, that [`Executor::join_halves`] receives.
//!
//! The typed layer wraps each closure so that running it never unwinds (its panic is caught
//! into its own slot) and runs at most once; after `join_halves` returns it re-raises the
//! first panic by position (`a`'s, else `b`'s), or reports an executor that returned without
//! running a half as an executor bug. An executor only decides where the halves run, and
//! must not return before both have.

use crate::executor::{Executor, JoinHalf};
use std::panic::{self, AssertUnwindSafe};

/// A closure's result, or its panic, once it ran.
type Outcome<R> = Option<std::thread::Result<R>>;

/// Runs `a` and `b` on `ex` ([`ExecutorExt::join`](crate::ExecutorExt::join)).
#[inline]
pub(crate) fn join<E, A, B, RA, RB>(ex: &E, a: A, b: B) -> (RA, RB)
where
    E: Executor + ?Sized,
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let (mut a, mut b) = (Some(a), Some(b));
    let (mut ra, mut rb): (Outcome<RA>, Outcome<RB>) = (None, None);
    let mut run_a = || {
        if let Some(a) = a.take() {
            ra = Some(panic::catch_unwind(AssertUnwindSafe(a)));
        }
    };
    let mut run_b = || {
        if let Some(b) = b.take() {
            rb = Some(panic::catch_unwind(AssertUnwindSafe(b)));
        }
    };
    ex.join_halves(JoinHalf::new(&mut run_a), JoinHalf::new(&mut run_b));
    match (ra, rb) {
        (Some(Ok(ra)), Some(Ok(rb))) => (ra, rb),
        (Some(Err(payload)), _) | (Some(Ok(_)), Some(Err(payload))) => {
            panic::resume_unwind(payload)
        }
        (None, _) => {
            panic!("foldex: executor bug: join_halves returned without running its first half")
        }
        (Some(Ok(_)), None) => {
            panic!("foldex: executor bug: join_halves returned without running its second half")
        }
    }
}
