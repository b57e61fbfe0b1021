//! Builders point their panics at the caller's line, offer a fallible path, and give a pool
//! the options a rayon user expects.

use foldex::prelude::*;
use foldex::protocol::ConfigError;
use foldex::threaded::PoolError;
use foldex::Loader;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The file and line a panic in `f` reports, and its message.
fn panic_site(f: impl FnOnce()) -> (String, u32, String) {
    static SITE: Mutex<Option<(String, u32, String)>> = Mutex::new(None);
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        let location = info.location().expect("panics have a location");
        let message = info
            .payload()
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        *SITE.lock().unwrap() = Some((location.file().to_string(), location.line(), message));
    }));
    let result = catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    assert!(result.is_err(), "expected a panic");
    SITE.lock().unwrap().take().expect("the hook saw the panic")
}

/// A builder call expected to panic.
type Setter = Box<dyn FnOnce()>;

#[test]
fn setter_panics_name_the_setting_and_point_at_the_caller() {
    let cases: Vec<(&str, Setter)> = vec![
        (
            "batch_size must be at least 1, got 0",
            Box::new(|| {
                let _ = Loader::new(vec![1, 2, 3], ThreadedEx::new().basesize(1)).batch_size(0);
            }),
        ),
        (
            "buffer must be at least 1, got 0",
            Box::new(|| {
                let _ = Loader::new(vec![1, 2, 3], ThreadedEx::new().basesize(1)).buffer(0);
            }),
        ),
        (
            "threads must be at least 1, got 0",
            Box::new(|| {
                let _ = ThreadedEx::new().threads(0);
            }),
        ),
        (
            "basesize must be at least 1, got 0",
            Box::new(|| {
                let _ = ThreadedEx::new().basesize(0);
            }),
        ),
        (
            "ntasks must be at least 1, got 0",
            Box::new(|| {
                let _ = TaskPoolEx::new().ntasks(0);
            }),
        ),
        (
            "chunk size must be at least 1, got 0",
            Box::new(|| {
                let _ = [1, 2].pipe().chunks(0);
            }),
        ),
    ];
    for (message, case) in cases {
        let (file, line, got) = panic_site(case);
        assert_eq!(got, message);
        assert!(
            file.ends_with("builders.rs"),
            "{message}: reported at {file}:{line}"
        );
    }
}

#[test]
fn settings_from_users_are_checked_without_panicking() {
    let err: ConfigError = foldex::Basesize::fixed(0).unwrap_err();
    assert_eq!(err.setting(), "basesize");
    let err: PoolError = Pool::try_new(0).unwrap_err();
    assert_eq!(err.to_string(), "threads must be at least 1, got 0");
    // The builder reads 0 as rayon's `num_threads(0)` does: the default count.
    assert!(Pool::builder().threads(0).build().is_ok());
    let err = Pool::builder()
        .threads(foldex::threaded::MAX_THREADS + 1)
        .build()
        .unwrap_err();
    assert_eq!(err.setting(), "threads");
    let err = Pool::builder()
        .threads(1)
        .stack_size(0)
        .build()
        .unwrap_err();
    assert_eq!(err.setting(), "stack_size");
}

#[test]
fn a_pool_names_its_threads_and_runs_its_handlers() {
    let started = Arc::new(AtomicUsize::new(0));
    let exited = Arc::new(AtomicUsize::new(0));
    let names = Arc::new(Mutex::new(Vec::new()));
    let (s, e) = (Arc::clone(&started), Arc::clone(&exited));
    let pool = Pool::builder()
        .threads(3)
        .thread_name(|i| format!("solver-{i}"))
        .stack_size(1 << 20)
        .start_handler(move |_| {
            s.fetch_add(1, Ordering::SeqCst);
        })
        .exit_handler(move |_| {
            e.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();
    let ex = ThreadedEx::new().pool(pool).basesize(1);
    let seen = Arc::clone(&names);
    ex.for_each(0..64usize, |_| {
        let name = std::thread::current().name().map(str::to_string);
        seen.lock().unwrap().push(name);
        std::thread::sleep(std::time::Duration::from_micros(200));
    });
    assert_eq!(started.load(Ordering::SeqCst), 3);
    let names = names.lock().unwrap();
    assert!(
        names.iter().flatten().any(|n| n.starts_with("solver-")),
        "some item ran on a worker: {names:?}"
    );
    drop(ex);
    assert_eq!(
        exited.load(Ordering::SeqCst),
        3,
        "the last handle joins the workers"
    );
}
