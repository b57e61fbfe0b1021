//! Idle cost and shutdown, each measured process-wide, so the tests run one at a time.
#![forbid(unsafe_code)]
use foldex_core::ExecutorExt;
use foldex_testkit::watchdog;
use foldex_threaded::{Pool, ThreadedEx};
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// CPU time (user + system) this process has used so far, from getrusage.
fn cpu_time() -> Duration {
    use nix::sys::resource::{getrusage, UsageWho};
    use nix::sys::time::TimeValLike;
    let usage = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage failed");
    let micros = usage.user_time().num_microseconds() + usage.system_time().num_microseconds();
    Duration::from_micros(micros as u64)
}

/// Names of this process's threads that belong to a foldex pool.
fn pool_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|tasks| {
            tasks
                .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
                .filter(|name| name.starts_with("foldex-threaded"))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn an_idle_pool_of_8_uses_under_1_percent_of_a_core() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let ex = ThreadedEx::new().threads(8).basesize(1);
    assert_eq!(ex.sum::<usize>(0..100_000), 4_999_950_000);
    // Let the workers finish spinning and park.
    std::thread::sleep(Duration::from_millis(200));
    let before = cpu_time();
    std::thread::sleep(Duration::from_secs(2));
    let used = cpu_time() - before;
    let share = used.as_secs_f64() / 2.0;
    eprintln!(
        "idle pool of 8 threads: {used:?} CPU over 2 s = {:.3}% of one core",
        share * 100.0
    );
    assert!(share < 0.01, "an idle pool used {used:?} of CPU in 2 s");
    // Still works after sleeping.
    assert_eq!(ex.sum::<usize>(0..1000), 499_500);
}

/// Worker threads that have run a piece of the test's fold, and how many of them have since
/// run their thread-local destructors. A thread runs those before it exits, and `join` returns
/// only after the exit, so once the pool is joined the two counts are equal.
static TOUCHED: AtomicUsize = AtomicUsize::new(0);
static TORN_DOWN: AtomicUsize = AtomicUsize::new(0);

struct Witness;

impl Drop for Witness {
    fn drop(&mut self) {
        TORN_DOWN.fetch_add(1, Ordering::SeqCst);
    }
}

thread_local! {
    static WITNESS: RefCell<Option<Witness>> = const { RefCell::new(None) };
}

fn witness_this_thread() {
    WITNESS.with(|w| {
        let mut w = w.borrow_mut();
        if w.is_none() {
            TOUCHED.fetch_add(1, Ordering::SeqCst);
            *w = Some(Witness);
        }
    });
}

#[test]
#[cfg(target_os = "linux")]
fn dropping_the_last_handle_joins_the_threads() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    watchdog("pool shutdown", || {
        let before = pool_threads();
        let pool = Pool::new(5);
        let ex = ThreadedEx::new().pool(pool.clone()).basesize(1);
        // A thread takes its name once it runs; wait for all five.
        while pool_threads() < before + 5 {
            std::thread::yield_now();
        }
        let caller = std::thread::current().id();
        ex.for_each(0..10_000, |_| {
            if std::thread::current().id() != caller {
                witness_this_thread();
            }
        });
        let touched = TOUCHED.load(Ordering::SeqCst);
        assert!(touched > 0, "no worker took part in the fold");
        drop(pool);
        assert_eq!(pool_threads(), before + 5, "a handle is still alive");
        let clone = ex.clone();
        drop(ex);
        assert_eq!(clone.sum::<usize>(0..100), 4950);
        assert_eq!(TORN_DOWN.load(Ordering::SeqCst), 0, "a worker exited early");
        drop(clone);
        // `drop` returned only after joining, so every worker has run its destructors.
        assert_eq!(TORN_DOWN.load(Ordering::SeqCst), touched);
        // The kernel forgets a joined thread a moment after `join` returns (the join is woken
        // when the thread clears its tid, before the task is reaped), so this one is waited for.
        while pool_threads() > before {
            std::thread::yield_now();
        }
    });
}
