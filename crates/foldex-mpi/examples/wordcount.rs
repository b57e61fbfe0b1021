//! Word frequencies of a generated corpus, folded across the ranks of an MPI job: each rank
//! counts its block of lines on its local threads, and the counts are merged in rank order.
//!
//! ```text
//! mpirun -n 2 cargo run --release --manifest-path crates/foldex-mpi/Cargo.toml --example wordcount -- [LINES]
//! ```

use std::collections::BTreeMap;

const WORDS: [&str; 12] = [
    "fold", "rank", "batch", "loader", "stream", "pipeline", "executor", "thread", "task", "pool",
    "epoch", "shard",
];

/// Line `i` of the corpus: the same on every rank, so no file has to be shared.
fn line(i: usize) -> String {
    let n = 4 + i % 9;
    (0..n)
        .map(|k| WORDS[(i * 31 + k * 17 + (i >> 3)) % WORDS.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let lines: usize = std::env::args()
        .nth(1)
        .map_or(Ok(2_000_000), |s| s.parse())?;
    let mpi = foldex_mpi::initialize()?;
    let ex = mpi.executor()?;
    let started = std::time::Instant::now();
    let counts: BTreeMap<String, u64> = ex.fold(
        0..lines,
        BTreeMap::new,
        |mut counts, i| {
            for word in line(i).split(' ') {
                *counts.entry(word.to_owned()).or_insert(0) += 1;
            }
            counts
        },
        |mut left, right| {
            for (word, n) in right {
                *left.entry(word).or_insert(0) += n;
            }
            left
        },
    )?;
    if ex.rank() == 0 {
        let total: u64 = counts.values().sum();
        println!(
            "{total} words in {lines} lines on {} ranks in {:.2?}",
            ex.size(),
            started.elapsed()
        );
        for (word, n) in &counts {
            println!("{word:>10} {n}");
        }
    }
    Ok(())
}
