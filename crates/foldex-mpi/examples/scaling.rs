//! Figures of docs/distributed.md: the fixed cost of a fold across ranks, and a `Break` early in
//! a huge range. (The sleep and spin rows are `foldex bench --executors mpi`'s.)
//!
//! ```text
//! CARGO_TARGET_DIR=target/mpi cargo build --release --manifest-path crates/foldex-mpi/Cargo.toml --example scaling
//! mpirun -n 2 target/mpi/release/examples/scaling overhead      # empty folds, median of 1000
//! mpirun -n 3 target/mpi/release/examples/scaling break [BITS]  # Break at 1% of 0..2^BITS (40)
//! ```

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

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
