//! CPU time, read from `/proc`: safe code, with no foreign call to `getrusage`.
//!
//! `/proc/self/stat` carries the same user and system times as `getrusage(RUSAGE_SELF)`, for all
//! of the process's threads (including ones that have exited), in clock ticks (1/100 s on
//! Linux). `/proc/thread-self/schedstat` gives the calling thread's time on a CPU in
//! nanoseconds, precise enough to calibrate a single item.

use std::sync::OnceLock;
use std::time::Duration;

/// The user plus system CPU time of this process so far, or `None` where `/proc` is missing.
pub fn process() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let ticks = stat_cpu_ticks(&stat)?;
    Some(Duration::from_secs_f64(
        ticks as f64 / clock_ticks_per_second(),
    ))
}

/// The CPU time of the calling thread so far, in nanoseconds' precision, or `None` where
/// `/proc` (or the scheduler statistics in it) is missing.
pub fn thread() -> Option<Duration> {
    let schedstat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = schedstat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// `utime + stime` (fields 14 and 15) from the text of `/proc/<pid>/stat`. The command name
/// (field 2) is in parentheses and may itself hold spaces or parentheses, so the fields are
/// counted from the last `)`.
fn stat_cpu_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11); // fields 3..=13 come first
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// `sysconf(_SC_CLK_TCK)`, asked of `getconf` once; Linux fixes it at 100 for `/proc`, which is
/// the fallback.
fn clock_ticks_per_second() -> f64 {
    static TICKS: OnceLock<f64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|out| String::from_utf8(out.stdout).ok())
            .and_then(|text| text.trim().parse::<f64>().ok())
            .filter(|&t| t > 0.0)
            .unwrap_or(100.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn reads_the_times_after_an_odd_command_name() {
        let stat = "4242 (my (odd) name) R 1 2 3 4 5 6 7 8 9 10 250 30 0 0 20 0 1 0";
        assert_eq!(stat_cpu_ticks(stat), Some(280));
        assert_eq!(stat_cpu_ticks("garbage"), None);
    }

    #[test]
    fn spinning_shows_up_as_cpu_time_and_sleeping_does_not() {
        let (Some(process_before), Some(thread_before)) = (process(), thread()) else {
            return; // no /proc here: nothing to check
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
