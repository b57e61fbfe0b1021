//! CPU time from the `cpu-time` crate (`clock_gettime` with `CLOCK_PROCESS_CPUTIME_ID` and
//! `CLOCK_THREAD_CPUTIME_ID`): nanosecond resolution, for every thread of the process
//! (including ones that have exited) or for the calling thread alone.

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
}
