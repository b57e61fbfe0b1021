//! A `TaskPoolEx` whose workers cannot all start (its pool starts with the first fold). Each test runs its body in a child process (this test
//! binary run again, for that test alone) whose address space is capped a little above what it
//! already maps (`RLIMIT_AS`), so that the operating system refuses worker threads once some
//! have started. A cap on processes (`RLIMIT_NPROC`, `ulimit -u`) would do the same for other
//! users, but root is exempt from it.
#![forbid(unsafe_code)]

use foldex_core::ExecutorExt;
use foldex_taskpool::TaskPoolEx;
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
const NTASKS: usize = 400;

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

/// This process's threads whose name starts with `foldex-taskpool`.
fn pool_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with("foldex-taskpool"))
        .count()
}

/// Waits (up to [`REAP_DEADLINE`]) until no thread of a pool is left.
fn assert_no_pool_thread_left() {
    wait_for_pool_threads(0);
}

/// Waits (up to [`REAP_DEADLINE`]) until exactly `count` threads of a pool are alive: a thread
/// names itself once it runs, and leaves `/proc` a moment after it is joined.
fn wait_for_pool_threads(count: usize) {
    let deadline = Instant::now() + REAP_DEADLINE;
    loop {
        let alive = pool_threads();
        if alive == count {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{alive} worker threads alive after {REAP_DEADLINE:?}, not {count}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The message of the panic that `fold` raises under the cap, with the panic hook silenced.
fn panic_under_cap<R>(fold: impl FnOnce() -> R) -> String {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let cap = AddressSpaceCap::new();
    let result = panic::catch_unwind(AssertUnwindSafe(fold));
    drop(cap);
    panic::set_hook(hook);
    let Err(payload) = result else {
        panic!("a pool of {NTASKS} threads started under the cap");
    };
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .expect("a panic message")
}

#[test]
fn a_pool_that_cannot_start_joins_its_workers_panics_on_the_fold_and_can_start_later() {
    in_child(
        "a_pool_that_cannot_start_joins_its_workers_panics_on_the_fold_and_can_start_later",
        || {
            let ex = TaskPoolEx::new().ntasks(NTASKS).basesize(1);
            // Every fold tries to start the pool again, and fails the same way: nothing is
            // left half-started in between.
            for _ in 0..2 {
                let message = panic_under_cap(|| ex.sum::<usize>(0..10_000));
                assert_no_pool_thread_left();
                let worker: usize = message
                    .strip_prefix("foldex-taskpool: could not start worker ")
                    .and_then(|rest| rest.split(' ').next())
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("no worker index in {message:?}"));
                // Some workers had started: those are the ones that must not be left behind.
                assert!((1..NTASKS).contains(&worker), "{message}");
                assert!(
                    message.contains(&format!(" of {NTASKS} (ntasks = {NTASKS}): ")),
                    "{message}"
                );
            }
            // Once threads can start, the same executor starts its pool and folds.
            assert_eq!(ex.sum::<usize>(0..10_000), 49_995_000);
            wait_for_pool_threads(NTASKS);
            drop(ex);
            assert_no_pool_thread_left();
        },
    );
}
