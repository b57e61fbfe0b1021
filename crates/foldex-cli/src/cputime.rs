//! CPU time from the `cpu-time` crate (`clock_gettime` with `CLOCK_PROCESS_CPUTIME_ID` and
//! `CLOCK_THREAD_CPUTIME_ID`): nanosecond resolution, for every thread of the process
//! (including ones that have exited) or for the calling thread alone; and, where Linux tells it,
//! how long the calling thread waited for a CPU while it could have run.

use cpu_time::{ProcessTime, ThreadTime};
use std::time::Duration;

/// The user plus system CPU time of this process so far, or `None` where the clock is missing.
pub fn process() -> Option<Duration> {
    ProcessTime::try_now().ok().map(|t| t.as_duration())
}

/// The CPU time of the calling thread so far, or `None` where the clock is missing.
pub fn thread() -> Option<Duration> {
    ThreadTime::try_now().ok().map(|t| t.as_duration())
}

/// How long the calling thread has so far waited on a run queue, ready to run while other
/// threads had the cores (the second field of Linux's `/proc/thread-self/schedstat`); `None`
/// where the kernel does not say.
pub fn thread_run_delay() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn spinning_shows_up_as_cpu_time_and_sleeping_does_not() {
        let (Some(process_before), Some(thread_before)) = (process(), thread()) else {
            return; // no CPU clocks here: nothing to check
        };
        // Spin until the thread has used 100ms of CPU (however busy the machine is), with a
        // generous cap in case the thread's time is never counted.
        let start = Instant::now();
        while thread().unwrap() - thread_before < Duration::from_millis(100) {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "spinning never counted"
            );
            std::hint::spin_loop();
        }
        let counted = process().unwrap() - process_before;
        assert!(
            counted >= Duration::from_millis(80),
            "process counted {counted:?}"
        );

        let before = thread().unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let slept = thread().unwrap() - before;
        assert!(slept < Duration::from_millis(50), "sleeping used {slept:?}");
    }

    #[test]
    fn the_run_delay_is_read_on_linux_and_only_grows() {
        let Some(before) = thread_run_delay() else {
            return; // a kernel without schedstat: nothing to check
        };
        std::thread::sleep(Duration::from_millis(5));
        assert!(thread_run_delay().unwrap() >= before);
    }
}
