//! foldex's executors, rayon, orx-parallel, chili and the sequential loop side by side in one
//! run, on the rows of `shared/peers.rs` (each contender written as a new user of its library
//! writes it).
//!
//! `cargo bench -p foldex-benches --bench peers`
//!
//! One group per row (`peers/<row>`), one function per contender; compare medians within a
//! group. The table of docs/benchmarks.md ("Peers") comes from `examples/peers_table.rs`, which
//! runs the contenders in alternating rounds instead.
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::time::Duration;

#[path = "../shared/peers.rs"]
#[expect(
    dead_code,
    reason = "the sides and descriptions are the table's (examples/peers_table.rs)"
)]
mod peers;

fn criterion() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10)
}

fn all_rows(c: &mut Criterion) {
    for row in peers::rows() {
        let mut g = c.benchmark_group(format!("peers/{}", row.name));
        let want = (row.contenders[0].run)();
        for contender in &row.contenders {
            assert_eq!(
                (contender.run)(),
                want,
                "{} on {}",
                contender.name,
                row.name
            );
            g.bench_function(contender.name, |b| b.iter(|| black_box((contender.run)())));
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = criterion();
    targets = all_rows
}
criterion_main!(benches);
