//! `FOLDEX_NUM_THREADS` as the process sees it. The variable is process-wide, so each value is
//! tried in a child process: this test binary run again, for the test `child` alone, with the
//! variable set. The parsing itself is unit-tested in `src/pool/builder.rs`.
#![forbid(unsafe_code)]

use foldex_threaded::{Pool, PoolBuilder, MAX_THREADS, NUM_THREADS_VAR};
use std::process::Command;

/// Set in the child process: run the body of `child`.
const CHILD: &str = "FOLDEX_NUM_THREADS_VAR_CHILD";

/// What the child prints: the default builder's result, then the global pool's (or its panic).
fn child_report() -> String {
    let built = PoolBuilder::new()
        .build()
        .map(|pool| pool.threads())
        .map_err(|e| e.to_string());
    let global = std::panic::catch_unwind(|| Pool::global().threads()).map_err(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default()
    });
    format!("built: {built:?}\nglobal: {global:?}\n")
}

#[test]
fn child() {
    if std::env::var_os(CHILD).is_some() {
        // On a line of its own, after libtest's "test child ... ".
        print!("\n{}", child_report());
    }
}

/// The child's report with `FOLDEX_NUM_THREADS=value`.
fn with_value(value: &str) -> String {
    let out = Command::new(std::env::current_exe().expect("the test binary's path"))
        .args(["child", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env(NUM_THREADS_VAR, value)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("running the test binary again");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{NUM_THREADS_VAR}={value:?}: the child failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn the_variable_sets_the_default_thread_count() {
    let cores = foldex_core::available_parallelism().min(MAX_THREADS);
    for (value, threads) in [("3", 3), (" 2 ", 2), ("0", cores), ("", cores)] {
        let report = with_value(value);
        assert!(
            report.contains(&format!("built: Ok({threads})\nglobal: Ok({threads})\n")),
            "{NUM_THREADS_VAR}={value:?}:\n{report}"
        );
    }
}

#[test]
fn a_count_over_the_cap_or_not_a_number_is_refused_by_name() {
    let over = (MAX_THREADS + 1).to_string();
    for (value, expected) in [
        ("100000", format!("at most {MAX_THREADS}")),
        (&over, format!("at most {MAX_THREADS}")),
        ("many", "a whole number".to_owned()),
        ("-1", "a whole number".to_owned()),
    ] {
        let report = with_value(value);
        let lines: Vec<&str> = report
            .lines()
            .filter(|l| l.starts_with("built: ") || l.starts_with("global: "))
            .collect();
        assert_eq!(lines.len(), 2, "{report}");
        // The same message from the builder and from the global pool's panic.
        for line in lines {
            assert!(
                line.contains("Err(")
                    && line.contains(NUM_THREADS_VAR)
                    && line.contains(&expected)
                    && line.contains(value.trim()),
                "{NUM_THREADS_VAR}={value:?}: {line}\n{report}"
            );
        }
    }
}
