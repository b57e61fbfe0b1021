//! The time of a stream loader's epoch of free items, where the puller (interleave, shuffle
//! buffer, the cursor each window records for checkpoints) is the bottleneck.
//!
//! `cargo run --release -p foldex-loader --example stream_pull_cost -- ITEMS SHUFFLE KIND`:
//! `ITEMS` items in 8 shards read 4 at a time, batches of 64, a shuffle buffer of `SHUFFLE`
//! items (0: none), items `u32` or `string` (24-byte paths). Prints the median of three epochs
//! after a first, in milliseconds.

use foldex_loader::StreamLoader;
use foldex_threaded::ThreadedEx;
use std::time::Instant;

fn epoch_ms<R: Clone + Send + Sync + 'static>(shards: Vec<Vec<R>>, shuffle: usize) -> f64 {
    let items: usize = shards.iter().map(Vec::len).sum();
    let mut loader = StreamLoader::from_shards(
        shards,
        |s: &Vec<R>| s.clone(),
        |_: &R| (),
        ThreadedEx::new().basesize(1),
    )
    .interleave(4)
    .batch_size(64);
    if shuffle > 0 {
        loader = loader.shuffle_buffer(shuffle, 1);
    }
    let mut times: Vec<f64> = (0..4)
        .map(|_| {
            let start = Instant::now();
            let count: usize = loader.iter().map(|batch| batch.len()).sum();
            assert_eq!(count, items);
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.remove(0);
    times.sort_by(f64::total_cmp);
    times[1]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: stream_pull_cost ITEMS SHUFFLE u32|string";
    let [items, shuffle, kind] = &args[..] else {
        panic!("{usage}")
    };
    let (items, shuffle): (usize, usize) =
        (items.parse().expect(usage), shuffle.parse().expect(usage));
    let per_shard = items / 8;
    let ms = match kind.as_str() {
        "u32" => epoch_ms(
            (0..8)
                .map(|s| (0..per_shard).map(|i| (s * per_shard + i) as u32).collect())
                .collect(),
            shuffle,
        ),
        "string" => epoch_ms(
            (0..8)
                .map(|s| {
                    (0..per_shard)
                        .map(|i| format!("shard-{s:02}/item-{i:09}.jpg"))
                        .collect()
                })
                .collect(),
            shuffle,
        ),
        _ => panic!("{usage}"),
    };
    println!("{ms:.1}");
}
