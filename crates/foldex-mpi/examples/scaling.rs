//! The figures of docs/distributed.md: the fixed cost of a fold across ranks, the sleep and spin
//! rows of `foldex bench` on one thread per rank against `ThreadedEx` in one process, and a
//! `Break` early in a huge range.
//!
//! ```text
//! cargo build --release --manifest-path crates/foldex-mpi/Cargo.toml --example scaling
//! mpirun -n 2 target/release/examples/scaling overhead      # empty folds, median of 1000
//! mpirun -n 2 target/release/examples/scaling rows          # MpiEx, one thread per rank
//! mpirun -n 1 target/release/examples/scaling rows-threaded # ThreadedEx, 2 threads, one process
//! mpirun -n 3 target/release/examples/scaling break [BITS]  # Break at 1% of 0..2^BITS (40)
//! ```

use foldex_core::ExecutorExt;
use foldex_mpi::MpiEx;
use foldex_seq::SequentialEx;
use foldex_threaded::ThreadedEx;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

/// The rows of `foldex bench`: (kind, items, time per item).
const ROWS: [(&str, usize, Duration); 8] = [
    ("sleep", 100, Duration::from_millis(10)),
    ("sleep", 2000, Duration::from_millis(1)),
    ("sleep", 2000, Duration::from_micros(100)),
    ("sleep", 5000, Duration::from_micros(10)),
    ("spin", 100, Duration::from_millis(10)),
    ("spin", 2000, Duration::from_millis(1)),
    ("spin", 2000, Duration::from_micros(100)),
    ("spin", 5000, Duration::from_micros(10)),
];

fn item(kind: &str, t: Duration) -> u64 {
    if kind == "sleep" {
        std::thread::sleep(t);
    } else {
        let started = Instant::now();
        while started.elapsed() < t {
            std::hint::spin_loop();
        }
    }
    1
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "overhead".into());
    let mpi = foldex_mpi::initialize()?;
    let ex = mpi.executor()?;
    let root = ex.rank() == 0;
    match mode.as_str() {
        "overhead" => {
            let mut times = Vec::with_capacity(1000);
            for _ in 0..1000 {
                let started = Instant::now();
                let n = ex.fold(0..0usize, || 0u64, |s, _| s + 1, |a, b| a + b)?;
                times.push(started.elapsed());
                assert_eq!(n, 0);
            }
            if root {
                println!(
                    "empty fold across {} ranks: median {:.1?} over 1000",
                    ex.size(),
                    median(times)
                );
            }
        }
        "rows" | "rows-threaded" => {
            let threaded = ThreadedEx::new().threads(2).basesize(1);
            let one_thread = MpiEx::world()?.local(SequentialEx);
            for (kind, n, t) in ROWS {
                let mut times = Vec::new();
                for _ in 0..5 {
                    let started = Instant::now();
                    let done = if mode == "rows" {
                        one_thread.map_reduce(0..n, |_| item(kind, t), || 0, |a, b| a + b)?
                    } else {
                        threaded.map_reduce(0..n, |_| item(kind, t), || 0, |a, b| a + b)
                    };
                    times.push(started.elapsed());
                    assert_eq!(done, n as u64);
                }
                if root {
                    println!("{kind} {n}x{t:?}: median {:.2?} of 5", median(times));
                }
            }
        }
        "break" => {
            let bits: u32 = std::env::args().nth(2).map_or(Ok(40), |b| b.parse())?;
            let len = 1usize << bits;
            let at = len / 100;
            let started = Instant::now();
            let flow = ex.try_fold(
                0..len,
                || 0u64,
                |n, i| {
                    if i == at {
                        ControlFlow::Break(n)
                    } else {
                        ControlFlow::Continue(n + 1)
                    }
                },
                |a, b| a + b,
            )?;
            let elapsed = started.elapsed();
            assert_eq!(flow, ControlFlow::Break(at as u64), "the sequential answer");
            if root {
                println!(
                    "Break at {at} of 0..2^{bits} over {} ranks: {elapsed:.2?} ({:?})",
                    ex.size(),
                    flow
                );
            }
        }
        other => return Err(format!("unknown mode {other}").into()),
    }
    Ok(())
}
