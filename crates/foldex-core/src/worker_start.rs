//! Starting a pool's worker threads one at a time.
//!
//! The standard library's thread start maps the new thread's signal stack before running its
//! closure, and aborts the whole process when that mapping fails. A pool that spawned its
//! workers back to back could map the next worker's stack while an earlier one had not yet
//! mapped its signal stack: once the address space runs out (`ulimit -v`, a container's memory
//! limit), that earlier thread aborts the process instead of the next spawn returning an error.
//! [`spawn_running`] returns only once the new thread runs its closure, so a refusal of memory
//! reaches the pool as the next spawn's `Err`, which the pool reports with its setting.
//!
//! The price is a hand-off per worker, once per pool (docs/benchmarks.md, "Starting a pool").
//! One window no pool can close is left: if the last stack that fits leaves less than a signal
//! stack, that thread's start aborts. Over caps every 4 KiB from 1 GiB to 1 GiB + 2 MiB, 4 of
//! 513 runs aborted so (a 16 KiB window, at +1812 … +1824 KiB), for `TaskPoolEx` and
//! `ThreadedEx` alike, and 509 failed their row cleanly (the heap padding as the tests set it):
//!
//! ```text
//! for k in $(seq 0 4 2048); do MALLOC_TOP_PAD_=16777216 sh -c "ulimit -v $((1048576 + k)) &&
//!   exec target/release/foldex bench -e taskpool --ntasks 1000 --variant spin --n 10 --t 10us
//!   --no-progress" 2>&1 >/dev/null | grep -c "alternative stack"; done | sort | uniq -c
//! ```
//!
//! The capped tests therefore run a child that ended so once more with 1 MiB more room
//! (`foldex_testkit::spawn_failure::RETRY_ROOM`), half a stack away from the window.

use std::io;
use std::sync::mpsc;
use std::thread::{Builder, JoinHandle};

/// Spawns a thread with `builder` and returns once it has started running `body` (its stack
/// and signal stack mapped); the error is `Builder::spawn`'s.
///
/// Pools start their workers with it one after another. It costs each worker one hand-off to
/// the new thread, a few microseconds, once per pool.
///
/// ```
/// use foldex_core::exec::spawn_running;
/// let worker = spawn_running(std::thread::Builder::new().name("worker-0".into()), || 7).unwrap();
/// assert_eq!(worker.join().unwrap(), 7);
/// ```
pub fn spawn_running<F, T>(builder: Builder, body: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let (running, started) = mpsc::sync_channel::<()>(1);
    let thread = builder.spawn(move || {
        // The receiver waits for this message; a thread that died before sending it closes the
        // channel, which ends the wait as well.
        let _ = running.send(());
        drop(running);
        body()
    })?;
    let _ = started.recv();
    Ok(thread)
}
