//! A pool whose workers cannot all start. Each test runs its body in a child process (this test
//! binary run again, for that test alone) whose address space is capped a little above what it
//! already maps (`RLIMIT_AS`), so that the operating system refuses worker threads once some
//! have started. A cap on processes (`RLIMIT_NPROC`, `ulimit -u`) would do the same for other
//! users, but root is exempt from it.
#![forbid(unsafe_code)]

use foldex_core::ExecutorExt;
use foldex_threaded::{Pool, ThreadedEx};
use nix::sys::resource::{getrlimit, setrlimit, Resource};
use std::io::Read;
use std::panic::{self, AssertUnwindSafe};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in the child process: run the test's body there.
const CHILD: &str = "FOLDEX_SPAWN_FAILURE_CHILD";
/// How long the child may take: a worker that is never joined fails the test, it does not hang
/// it.
const CHILD_DEADLINE: Duration = Duration::from_secs(60);
/// Address space the child may map beyond what it already does: room for some 2 MiB worker
/// stacks (and a few allocator arenas), far from room for 1000.
const HEADROOM: u64 = 256 << 20;
/// How long the kernel may take to reap a thread once it has been joined.
const REAP_DEADLINE: Duration = Duration::from_secs(30);
/// More workers than fit under the cap.
const THREADS: usize = 1000;

/// Runs `body` in a child process (the test binary, running the test `test` alone), and checks
/// that the child passed within [`CHILD_DEADLINE`].
fn in_child(test: &str, body: impl FnOnce()) {
    if std::env::var_os(CHILD).is_some() {
        body();
        return;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut child = Command::new(exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        // A backtrace would be resolved under the cap, for nothing.
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running the test binary again");
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = read(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = read(Box::new(child.stderr.take().expect("piped stderr")));
    let deadline = Instant::now() + CHILD_DEADLINE;
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the child") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    let Some(status) = status else {
        panic!("`{test}` hung for {CHILD_DEADLINE:?}:\n{stdout}\n{stderr}");
    };
    assert!(status.success(), "`{test}` failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("1 passed"),
        "`{test}` did not run in the child:\n{stdout}\n{stderr}"
    );
}

/// Caps this process's address space at what it maps now plus [`HEADROOM`] until dropped.
struct AddressSpaceCap {
    soft: u64,
    hard: u64,
}

impl AddressSpaceCap {
    fn new() -> Self {
        let (soft, hard) = getrlimit(Resource::RLIMIT_AS).expect("getrlimit");
        let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
        let mapped_kib: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmSize:"))
            .and_then(|size| size.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmSize in /proc/self/status");
        let cap = (mapped_kib * 1024 + HEADROOM).min(hard);
        setrlimit(Resource::RLIMIT_AS, cap, hard).expect("setrlimit");
        Self { soft, hard }
    }
}

impl Drop for AddressSpaceCap {
    fn drop(&mut self) {
        setrlimit(Resource::RLIMIT_AS, self.soft, self.hard).expect("lifting the cap");
    }
}

/// This process's threads whose name starts with `foldex-threaded`.
fn pool_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with("foldex-threaded"))
        .count()
}

/// Waits (up to [`REAP_DEADLINE`]) until no thread of a pool is left.
fn assert_no_pool_thread_left() {
    let deadline = Instant::now() + REAP_DEADLINE;
    loop {
        let left = pool_threads();
        if left == 0 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{left} worker threads still alive {REAP_DEADLINE:?} after the pool failed to start"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The message of the panic that `make` raises under the cap, with the panic hook silenced.
fn panic_under_cap<R>(make: impl FnOnce() -> R) -> String {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let cap = AddressSpaceCap::new();
    let result = panic::catch_unwind(AssertUnwindSafe(make));
    drop(cap);
    panic::set_hook(hook);
    let Err(payload) = result else {
        panic!("a pool of {THREADS} threads started under the cap");
    };
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .expect("a panic message")
}

#[test]
fn try_new_joins_the_started_workers_and_names_the_setting() {
    in_child(
        "try_new_joins_the_started_workers_and_names_the_setting",
        || {
            let cap = AddressSpaceCap::new();
            let result = Pool::try_new(THREADS);
            drop(cap);
            let err = result.expect_err("a pool of 1000 threads started under the cap");
            assert_no_pool_thread_left();
            let worker = err.worker().expect("a worker that could not start");
            // Some workers had started: those are the ones that must not be left behind.
            assert!((1..THREADS).contains(&worker), "{err}");
            assert_eq!(err.setting(), "threads");
            let os = err.os_error().expect("the operating system's error");
            assert_eq!(
                err.to_string(),
                format!(
                    "foldex-threaded: could not start worker {worker} of {THREADS} \
                     (threads = {THREADS}): {os}"
                )
            );
            // Nothing is left half-made: a pool that fits starts and works.
            let pool = Pool::try_new(2).expect("a pool of 2");
            let ex = ThreadedEx::new().pool(pool).basesize(10);
            assert_eq!(ex.sum::<usize>(0..1000), 499_500);
        },
    );
}

#[test]
fn pool_new_panics_with_the_setting_once_the_started_workers_are_joined() {
    in_child(
        "pool_new_panics_with_the_setting_once_the_started_workers_are_joined",
        || {
            let message = panic_under_cap(|| Pool::new(THREADS));
            assert_no_pool_thread_left();
            assert!(
                message.starts_with("foldex-threaded: could not start worker ")
                    && message.contains(&format!(" of {THREADS} (threads = {THREADS}): ")),
                "{message}"
            );
        },
    );
}

#[test]
fn threaded_ex_threads_panics_with_the_setting_once_the_started_workers_are_joined() {
    in_child(
        "threaded_ex_threads_panics_with_the_setting_once_the_started_workers_are_joined",
        || {
            let message = panic_under_cap(|| ThreadedEx::new().threads(THREADS));
            assert_no_pool_thread_left();
            assert!(
                message.contains(&format!(" of {THREADS} (threads = {THREADS}): ")),
                "{message}"
            );
        },
    );
}
