//! `exec::spawn_running` returns only once the new thread runs.

use foldex_core::exec::spawn_running;
use std::sync::{Arc, Barrier};
use std::thread::Builder;

/// A thread gives itself its name once it runs, before its body: a thread `spawn_running` has
/// returned is listed under its name at once. (A plain `Builder::spawn` returns before the new
/// thread has run, often before it has named itself.)
#[cfg(target_os = "linux")]
#[test]
fn a_started_thread_runs_by_the_time_spawn_running_returns() {
    let named = |name: &str| {
        std::fs::read_dir("/proc/self/task")
            .unwrap()
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
            .any(|comm| comm.trim_end() == name)
    };
    for i in 0..200 {
        let name = format!("started-{i}");
        let hold = Arc::new(Barrier::new(2));
        let held = Arc::clone(&hold);
        let thread = spawn_running(Builder::new().name(name.clone()), move || {
            held.wait();
            i
        })
        .unwrap();
        assert!(
            named(&name),
            "thread {i} was not running when spawn_running returned"
        );
        hold.wait();
        assert_eq!(thread.join().unwrap(), i);
    }
}

/// The body's panic is the join's error, as with `Builder::spawn`.
#[test]
fn a_panicking_body_is_the_joins_error() {
    let thread = spawn_running(Builder::new(), || -> u8 { panic!("body failed") }).unwrap();
    let payload = thread.join().unwrap_err();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"body failed"));
}
