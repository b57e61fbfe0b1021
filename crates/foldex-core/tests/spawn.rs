//! Non-blocking folds: results, panics, and cancellation by dropping the handle.
#![cfg(not(loom))]

use foldex_core::{Executor, ExecutorExt, SpawnExt};
use foldex_seq::SequentialEx;
use std::ops::ControlFlow::{Break, Continue};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;

#[test]
fn spawned_folds_give_what_blocking_folds_give() {
    let ex: Arc<dyn Executor> = Arc::new(SequentialEx);
    let words: Vec<String> = (0..500).map(|i| format!("{i},")).collect();
    let want = ex.fold(&words, String::new, |s, w| s + w, |a, b| a + &b);
    let shared = Arc::new(words);
    let handle = ex.spawn_fold(
        0..shared.len(),
        String::new,
        move |s, i| s + &shared[i],
        |a, b| a + &b,
    );
    assert_eq!(handle.join(), want);

    let stop = ex.spawn_try_fold(
        0..100,
        || 0,
        |n, i| if i == 10 { Break(n) } else { Continue(n + i) },
        |a, b| a + b,
    );
    assert_eq!(stop.join(), Break(45));
}

#[test]
fn the_fold_runs_off_the_calling_thread() {
    let caller = thread::current().id();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    SequentialEx
        .spawn_for_each(0..10, move |_| {
            record.lock().unwrap().push(thread::current().id())
        })
        .join();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 10);
    assert!(seen.iter().all(|id| *id != caller));
}

#[test]
fn the_handle_returns_at_once_and_reports_when_finished() {
    let (go, wait) = mpsc::channel::<()>();
    let wait = std::sync::Mutex::new(wait);
    let handle = SequentialEx.spawn_for_each(0..1, move |_| wait.lock().unwrap().recv().unwrap());
    assert!(
        !handle.is_finished(),
        "the fold waits for `go`, so it cannot be finished"
    );
    go.send(()).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !handle.is_finished() {
        assert!(
            std::time::Instant::now() < deadline,
            "the fold never finished"
        );
        thread::sleep(Duration::from_millis(1));
    }
    handle.join();
}

#[test]
#[cfg(panic = "unwind")]
fn join_reraises_the_original_panic() {
    #[derive(Debug, PartialEq)]
    struct Boom(usize);
    let handle = SequentialEx.spawn_for_each(0..100, |i| {
        if i == 42 {
            std::panic::panic_any(Boom(i));
        }
    });
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle.join()))
        .expect_err("the panic must reach join");
    assert_eq!(payload.downcast_ref::<Boom>(), Some(&Boom(42)));
}

#[test]
fn dropping_the_handle_cancels_and_waits() {
    foldex_testkit::watchdog("cancel by drop", || {
        let started = Arc::new(AtomicBool::new(false));
        let visited = Arc::new(AtomicUsize::new(0));
        let running = Arc::new(AtomicUsize::new(0));
        let (s, v, r) = (
            Arc::clone(&started),
            Arc::clone(&visited),
            Arc::clone(&running),
        );
        // Far too long to finish: only cancellation ends it.
        let handle = SequentialEx.spawn_for_each(0..1usize << 40, move |_| {
            r.fetch_add(1, Ordering::SeqCst);
            s.store(true, Ordering::SeqCst);
            v.fetch_add(1, Ordering::Relaxed);
            r.fetch_sub(1, Ordering::SeqCst);
        });
        while !started.load(Ordering::SeqCst) {
            thread::yield_now();
        }
        drop(handle);
        // The drop waited: nothing runs any more, and nothing starts later.
        assert_eq!(running.load(Ordering::SeqCst), 0);
        let after_drop = visited.load(Ordering::Relaxed);
        thread::sleep(Duration::from_millis(20));
        assert_eq!(visited.load(Ordering::Relaxed), after_drop);
        assert!(after_drop < 1 << 40);
        // The closure (and what it owned) was dropped with the fold.
        assert_eq!(Arc::strong_count(&visited), 1);
    });
}

#[test]
fn dropping_a_finished_handle_discards_the_result() {
    let dropped = Arc::new(AtomicUsize::new(0));
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let d = Arc::clone(&dropped);
    let handle = SequentialEx.spawn_fold(
        0..1,
        move || Some(Counted(Arc::clone(&d))),
        |a, _| a,
        |a, _| a,
    );
    while !handle.is_finished() {
        thread::yield_now();
    }
    drop(handle);
    assert!(dropped.load(Ordering::SeqCst) >= 1);
}
