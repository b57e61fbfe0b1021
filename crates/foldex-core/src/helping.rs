//! Work that a thread runs while it waits for something below it on its own stack.
//!
//! A pool worker waiting for a forked half runs other tasks of its pool meanwhile; a consumer
//! waiting for results lends itself through [`Executor::help`](crate::Executor::help). Either
//! way the frame that waits cannot resume until the work it took returns, so that work must not
//! block on anything but its own pieces: a producer that would wait for room in a bounded
//! channel leaves its item for later instead (the room may be freed only once the frame below
//! resumes). Executors mark such work with [`as_helper`]; code that may block asks
//! [`is_helping`].

use std::cell::Cell;

#[cfg(not(loom))]
std::thread_local! {
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

#[cfg(loom)]
loom::thread_local! {
    static DEPTH: Cell<usize> = Cell::new(0);
}

/// Runs `f`, a piece of work the calling thread took while it waits for something else, with
/// the thread marked as helping (see [`is_helping`]); the mark is undone when `f` returns or
/// unwinds.
///
/// ```
/// use foldex_core::exec::{as_helper, is_helping};
/// assert!(!is_helping());
/// assert!(as_helper(is_helping));
/// assert!(!is_helping());
/// ```
pub fn as_helper<R>(f: impl FnOnce() -> R) -> R {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            DEPTH.with(|depth| depth.set(depth.get() - 1));
        }
    }
    DEPTH.with(|depth| depth.set(depth.get() + 1));
    let _leave = Leave;
    f()
}

/// `true` while the calling thread runs work it took while waiting (inside [`as_helper`]):
/// such work must not wait for anything outside its own fold.
pub fn is_helping() -> bool {
    DEPTH.with(Cell::get) > 0
}
