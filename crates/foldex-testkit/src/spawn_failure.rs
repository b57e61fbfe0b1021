//! A harness for testing a pool whose workers cannot all start (Linux only).
//!
//! A test runs its body in a child process ([`in_child`]: the test binary run again, for that
//! test alone), and there caps the address space a little above what the process already maps
//! ([`AddressSpaceCap`], `RLIMIT_AS`), so that the operating system refuses worker threads once
//! some have started. A cap on processes (`RLIMIT_NPROC`, `ulimit -u`) would do the same for
//! other users, but root is exempt from it. The cap is process-wide, hence the child process.
//! The pool's threads are counted by name in `/proc/self/task` ([`pool_threads`]), to check
//! that the workers that did start were joined.
//!
//! ```ignore
//! use foldex_testkit::spawn_failure::{assert_no_pool_thread_left, in_child, panic_under_cap};
//!
//! #[test]
//! fn a_pool_that_cannot_start_joins_its_workers() {
//!     in_child("a_pool_that_cannot_start_joins_its_workers", || {
//!         let message = panic_under_cap(|| MyPool::new(1000));
//!         assert_no_pool_thread_left("my-pool");
//!         assert!(message.starts_with("my-pool: could not start worker "), "{message}");
//!     });
//! }
//! ```

use nix::sys::resource::{getrlimit, setrlimit, Resource};
use std::io::Read;
use std::panic::{self, AssertUnwindSafe};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in the child process: run the test's body there.
const CHILD: &str = "FOLDEX_SPAWN_FAILURE_CHILD";

/// How long the child may take: a worker that is never joined fails the test, it does not hang
/// it.
pub const CHILD_DEADLINE: Duration = Duration::from_secs(60);

/// Address space the child may map beyond what it already does: room for some 2 MiB worker
/// stacks (and a few allocator arenas), far from room for a few hundred.
pub const HEADROOM: u64 = 256 << 20;

/// How long the kernel may take to reap a thread once it has been joined.
pub const REAP_DEADLINE: Duration = Duration::from_secs(30);

/// Runs `body` in a child process (the test binary, running the test `test` alone), and checks
/// that the child passed within [`CHILD_DEADLINE`]. `test` is the name of the calling `#[test]`
/// function, which calls `in_child` with the same `body` in the child; there, `in_child` runs
/// `body` itself.
///
/// The standard library's thread start aborts the process when the thread's signal stack
/// cannot be mapped: under the cap, that happens when the last stack that fits leaves less than
/// a signal stack (a few KiB), whatever the pool does. A child that ends so runs once more with
/// [`RETRY_ROOM`] more headroom, which moves the end of the address space out of that window.
///
/// # Panics
/// If the child fails, hangs past [`CHILD_DEADLINE`] (it is killed), or does not run the test.
pub fn in_child(test: &str, body: impl FnOnce()) {
    if std::env::var_os(CHILD).is_some() {
        body();
        return;
    }
    let (mut status, mut stdout, mut stderr) = run_child(test, 0);
    if stderr.contains(NO_SIGNAL_STACK) {
        (status, stdout, stderr) = run_child(test, RETRY_ROOM);
    }
    let Some(status) = status else {
        panic!("`{test}` hung for {CHILD_DEADLINE:?}:\n{stdout}\n{stderr}");
    };
    assert!(status.success(), "`{test}` failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("1 passed"),
        "`{test}` did not run in the child:\n{stdout}\n{stderr}"
    );
}

/// What the standard library prints when a new thread's signal stack cannot be mapped.
pub const NO_SIGNAL_STACK: &str = "failed to allocate an alternative stack";

/// The headroom a child gets beyond [`HEADROOM`] when its first run ended in
/// [`NO_SIGNAL_STACK`]: half a worker stack.
pub const RETRY_ROOM: u64 = 1 << 20;

/// Set in the child process: bytes of headroom beyond [`HEADROOM`].
const EXTRA_ROOM: &str = "FOLDEX_SPAWN_FAILURE_EXTRA_ROOM";

/// Runs the test `test` in a child process with `extra_room` bytes more headroom, killing it
/// after [`CHILD_DEADLINE`]: its status (`None`: killed), stdout and stderr.
fn run_child(test: &str, extra_room: u64) -> (Option<std::process::ExitStatus>, String, String) {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut child = Command::new(exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env(EXTRA_ROOM, extra_room.to_string())
        // A backtrace would be resolved under the cap, for nothing.
        .env("RUST_BACKTRACE", "0")
        // glibc's heap keeps 16 MiB spare each time it grows, so that the small allocations of
        // each spawn (the thread's handle, its closure) find room in the heap even once the
        // cap leaves no address space: then the stack's mapping is what fails, as the test
        // wants, not a `malloc` (which aborts the child).
        .env("MALLOC_TOP_PAD_", (16u32 << 20).to_string())
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
    (status, stdout.join().unwrap(), stderr.join().unwrap())
}

/// Caps this process's address space at what it maps now plus [`HEADROOM`] (plus
/// [`RETRY_ROOM`] in a child's second run), until dropped.
///
/// The cap holds for every thread of the process: make it only in a child process
/// ([`in_child`]).
#[derive(Debug)]
pub struct AddressSpaceCap {
    soft: u64,
    hard: u64,
}

impl AddressSpaceCap {
    /// Sets the cap; dropping the result lifts it again.
    ///
    /// # Panics
    /// If the limit cannot be read or set, or `/proc/self/status` has no `VmSize`.
    pub fn set() -> Self {
        let (soft, hard) = getrlimit(Resource::RLIMIT_AS).expect("getrlimit");
        let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
        let mapped_kib: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmSize:"))
            .and_then(|size| size.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmSize in /proc/self/status");
        let extra_room = crate::env::number(EXTRA_ROOM, u64::MAX).unwrap_or(0);
        let cap = (mapped_kib * 1024 + HEADROOM + extra_room).min(hard);
        setrlimit(Resource::RLIMIT_AS, cap, hard).expect("setrlimit");
        Self { soft, hard }
    }
}

impl Drop for AddressSpaceCap {
    fn drop(&mut self) {
        setrlimit(Resource::RLIMIT_AS, self.soft, self.hard).expect("lifting the cap");
    }
}

/// The number of this process's threads whose name starts with `prefix` (a pool's workers).
pub fn pool_threads(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with(prefix))
        .count()
}

/// Waits (up to [`REAP_DEADLINE`]) until exactly `count` threads whose name starts with
/// `prefix` are alive: a thread names itself once it runs, and leaves `/proc` a moment after it
/// is joined.
///
/// # Panics
/// If the count is still another one after [`REAP_DEADLINE`].
pub fn wait_for_pool_threads(prefix: &str, count: usize) {
    let deadline = Instant::now() + REAP_DEADLINE;
    loop {
        let alive = pool_threads(prefix);
        if alive == count {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{alive} `{prefix}` threads alive after {REAP_DEADLINE:?}, not {count}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits (up to [`REAP_DEADLINE`]) until no thread whose name starts with `prefix` is left.
///
/// # Panics
/// If some are still alive after [`REAP_DEADLINE`].
pub fn assert_no_pool_thread_left(prefix: &str) {
    wait_for_pool_threads(prefix, 0);
}

/// The message of the panic that `make` raises under an [`AddressSpaceCap`], with the panic
/// hook silenced meanwhile. `make` is meant to start a pool that does not fit under the cap.
///
/// # Panics
/// If `make` returns instead, or panics with a payload that is not a message.
pub fn panic_under_cap<R>(make: impl FnOnce() -> R) -> String {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let cap = AddressSpaceCap::set();
    let result = panic::catch_unwind(AssertUnwindSafe(make));
    drop(cap);
    panic::set_hook(hook);
    let Err(payload) = result else {
        panic!("no panic under the address-space cap: the pool started");
    };
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .expect("a panic message")
}
