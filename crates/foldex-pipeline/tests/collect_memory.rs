//! `collect::<Vec<_>>` of an indexable pipeline allocates its output once: the peak of the
//! bytes allocated during the collect stays within 1.1 times the output's size (counting
//! allocator, `peak_alloc`), on every executor.

use foldex_core::Executor;
use foldex_pipeline::IntoPipeline;
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_threaded::ThreadedEx;
use peak_alloc::PeakAlloc;

#[global_allocator]
static ALLOCATOR: PeakAlloc = PeakAlloc;

/// The peak of extra bytes allocated while `f` runs, over what was live when it began.
fn peak_extra<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = ALLOCATOR.current_usage();
    ALLOCATOR.reset_peak_usage();
    let result = f();
    (result, ALLOCATOR.peak_usage() - before)
}

#[test]
fn an_indexable_collect_allocates_its_output_once() {
    const N: usize = 10_000_000;
    let output_bytes = N * std::mem::size_of::<u64>();
    let executors: Vec<(&str, Box<dyn Executor>)> = vec![
        ("SequentialEx", Box::new(SequentialEx)),
        ("ThreadedEx", Box::new(ThreadedEx::new())),
        ("TaskPoolEx", Box::new(TaskPoolEx::new())),
    ];
    for (name, ex) in &executors {
        // Start the pool's threads before counting.
        let _: Vec<u64> = (0..1000usize).pipe().map(|i| i as u64).collect(&**ex);
        let (out, peak) = peak_extra(|| {
            (0..N)
                .pipe()
                .map(|i| i as u64 * 3)
                .collect::<Vec<u64>>(&**ex)
        });
        assert_eq!(out.len(), N);
        assert_eq!(out[N - 1], 3 * (N as u64 - 1));
        let ratio = peak as f64 / output_bytes as f64;
        println!("{name}: peak extra {peak} bytes, {ratio:.4}x the output");
        assert!(ratio <= 1.1, "{name}: peak {ratio:.3}x the output");
    }
}
