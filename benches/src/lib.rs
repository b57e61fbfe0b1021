//! Shared helpers for the criterion benchmarks in `benches/benches/`.
#![forbid(unsafe_code)]

/// Spins the current thread for about `nanos` nanoseconds of CPU work, without sleeping: the
/// CPU-bound stand-in for an item of known cost.
pub fn spin_for(nanos: u64) {
    let start = std::time::Instant::now();
    while (start.elapsed().as_nanos() as u64) < nanos {
        std::hint::spin_loop();
    }
}
