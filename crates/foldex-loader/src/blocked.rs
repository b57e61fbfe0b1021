//! The time each thread slept waiting for room or a buffer: noted where it sleeps (the
//! channel, the buffer pool, the byte cap), read by the stats' producer runs.

use std::cell::Cell;
use std::time::Instant;

thread_local! {
    /// Nanoseconds this thread has slept for room or a buffer, ever.
    static BLOCKED: Cell<u64> = const { Cell::new(0) };
}

/// Notes that this thread slept since `since` (waiting for room or a buffer).
pub(crate) fn note_blocked(since: Instant) {
    let nanos = since.elapsed().as_nanos() as u64;
    BLOCKED.with(|b| b.set(b.get() + nanos));
}

/// Nanoseconds this thread has slept for room or a buffer, ever.
pub(crate) fn blocked_so_far() -> u64 {
    BLOCKED.with(Cell::get)
}
