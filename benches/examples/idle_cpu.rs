//! What an idle pool costs: the process's CPU time over a quiet interval after a burst of
//! work, for each of foldex's pools and rayon's.
//!
//! ```sh
//! cargo run --release -p foldex-benches --example idle_cpu          # 10 s per pool
//! cargo run --release -p foldex-benches --example idle_cpu -- 2     # 2 s per pool
//! ```
//!
//! Linux only: it reads the process's user and system time from `/proc/self/stat`.

use foldex::prelude::*;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The process's user + system CPU time so far, in clock ticks (1/100 s on Linux).
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("Linux /proc/self/stat");
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    let after = &stat[stat.rfind(')').expect("a command name") + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
}

/// Runs `burst` a few times, then sleeps `quiet` and returns the share of one core the process
/// used meanwhile.
fn idle_share(quiet: Duration, burst: &dyn Fn() -> u64) -> f64 {
    for _ in 0..20 {
        black_box(burst());
    }
    let (ticks, start) = (cpu_ticks(), Instant::now());
    std::thread::sleep(quiet);
    let used = (cpu_ticks() - ticks) as f64 / 100.0;
    used / start.elapsed().as_secs_f64()
}

fn main() {
    let secs = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10u64);
    let quiet = Duration::from_secs(secs);
    let data: Vec<u64> = (0..1_000_000).collect();
    let threaded = ThreadedEx::new();
    let taskpool = TaskPoolEx::new();
    let auto = AutoEx::new();
    let rows: [(&str, &dyn Fn() -> u64); 4] = [
        ("ThreadedEx", &|| threaded.sum::<u64>(&data)),
        ("TaskPoolEx", &|| taskpool.sum::<u64>(&data)),
        ("AutoEx", &|| auto.sum::<u64>(&data)),
        ("rayon", &|| {
            use rayon::prelude::*;
            data.par_iter().sum::<u64>()
        }),
    ];
    println!("| pool | CPU while idle ({secs} s after a burst of folds) |");
    println!("| --- | --- |");
    for (name, burst) in rows {
        println!(
            "| {name} | {:.1}% of a core |",
            100.0 * idle_share(quiet, burst)
        );
    }
}
