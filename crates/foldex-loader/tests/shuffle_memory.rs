//! Shuffling takes O(1) memory: an epoch over 2^40 observations starts and delivers its first
//! batches without writing its order out. The process's peak resident memory (`VmHWM`) is
//! read before and after; this file holds one test, so that no other test shares the process.
#![cfg(target_os = "linux")]

use foldex_dataset::from_fn;
use foldex_loader::Loader;
use foldex_threaded::ThreadedEx;

/// The process's peak resident set so far, in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status");
    kib * 1024
}

#[test]
fn a_shuffled_epoch_of_two_to_the_40_observations_takes_no_memory_for_its_order() {
    let before = peak_rss();
    let loader = Loader::new(
        from_fn(1 << 40, |i| i),
        ThreadedEx::new().threads(2).basesize(1),
    )
    .batch_size(32)
    .shuffle(7);
    let mut iter = loader.iter();
    let first: Vec<Vec<usize>> = iter.by_ref().take(4).collect();
    let after = peak_rss();
    drop(iter);
    let order = loader.epoch_order(0);
    assert_eq!(
        first.concat(),
        (0..128).map(|p| order.get(p)).collect::<Vec<_>>()
    );
    let grown = after.saturating_sub(before);
    println!(
        "peak RSS: {before} bytes before the loader, {after} bytes after 4 batches of a \
         shuffled epoch of 2^40 (+{grown} bytes)"
    );
    // Threads' stacks and the channel, not the 8 TiB an order written out would take.
    assert!(grown < 16 << 20, "the peak grew by {grown} bytes");
}
