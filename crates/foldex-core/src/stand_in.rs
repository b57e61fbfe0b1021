//! A thread that calls `execute` only on behalf of another thread, which helps.
//!
//! A fold may be driven by a thread that calls [`Executor::execute`](crate::Executor::execute)
//! and does nothing else, while another thread consumes its results as they come and calls
//! [`Executor::help`](crate::Executor::help) whenever it runs out of them (in this workspace,
//! a data loader's driver and its consumer). An executor that runs chunks on its caller
//! (`TaskPoolEx` in foreground mode) would give the caller's share of the work to the driver,
//! an extra thread, and leave none for the consumer, the thread that was meant to help.
//! [`stand_in_for_helper`] tells the executor so: the calling thread only stands in for a
//! helper, and its share of the work should wait for `help` instead.

use std::cell::Cell;

#[cfg(not(loom))]
std::thread_local! {
    static STANDING_IN: Cell<bool> = const { Cell::new(false) };
}

#[cfg(loom)]
loom::thread_local! {
    static STANDING_IN: Cell<bool> = Cell::new(false);
}

/// Runs `f` (typically a call of [`Executor::execute`](crate::Executor::execute)) with the
/// current thread marked as *standing in* for another thread that helps while it waits.
///
/// An executor that would run some of the work on the calling thread may instead leave that
/// share to [`Executor::help`](crate::Executor::help) calls from the other thread, and have the
/// calling thread merely wait (`TaskPoolEx` in foreground mode does; executors that never run
/// work on their caller, or that ignore the mark, are unaffected). The mark covers every
/// `execute` made on this thread inside `f`, and is restored when `f` returns or unwinds.
///
/// # Contract
///
/// Use it only when some other thread keeps calling `help` on the same executor while it waits
/// for the results of `f`. Executors keep a fold that the calling
/// thread stands in for progressing on their own threads, but the share reserved for helpers
/// runs only when someone helps: without a helper, that share (a `TaskPoolEx` with `ntasks = 1`
/// has no other) would have nobody to run it. `TaskPoolEx` therefore keeps the caller's share
/// on the caller whenever none of the work would go to its own threads.
///
/// ```
/// use foldex_core::exec::{is_standing_in, stand_in_for_helper};
///
/// assert!(!is_standing_in());
/// let inside = stand_in_for_helper(is_standing_in);
/// assert!(inside);
/// assert!(!is_standing_in(), "the mark ends with the call");
/// ```
pub fn stand_in_for_helper<R>(f: impl FnOnce() -> R) -> R {
    /// Restores the previous mark, also when `f` unwinds, so that a nested call keeps it.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            STANDING_IN.with(|mark| mark.set(self.0));
        }
    }
    let _restore = Restore(STANDING_IN.with(|mark| mark.replace(true)));
    f()
}

/// `true` inside [`stand_in_for_helper`] on the current thread: the thread calls `execute` on
/// behalf of another thread that will call [`Executor::help`](crate::Executor::help) while it
/// waits. Read by executors at the start of `execute`.
pub fn is_standing_in() -> bool {
    STANDING_IN.with(Cell::get)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_mark_nests_and_is_thread_local() {
        assert!(!is_standing_in());
        stand_in_for_helper(|| {
            assert!(is_standing_in());
            stand_in_for_helper(|| assert!(is_standing_in()));
            assert!(is_standing_in(), "an inner call keeps the outer mark");
            std::thread::spawn(|| assert!(!is_standing_in(), "other threads are not marked"))
                .join()
                .unwrap();
        });
        assert!(!is_standing_in());
    }

    #[test]
    #[cfg(panic = "unwind")]
    fn the_mark_is_cleared_when_the_call_unwinds() {
        let unwound = std::panic::catch_unwind(|| stand_in_for_helper(|| panic!("inside")));
        assert!(unwound.is_err());
        assert!(!is_standing_in());
    }
}
