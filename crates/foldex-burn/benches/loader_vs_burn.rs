//! foldex's loader against burn's own, side by side in one run: the epoch time of a training
//! loop (a small MLP, forward, loss, backward and SGD step per batch, on burn's ndarray
//! backend with autodiff) fed by each loader with each worker setting, on 512 PNG images
//! decoded, randomly cropped and flipped at load time (`benches/shared/race.rs`).
//!
//! Run: `cargo bench --manifest-path crates/foldex-burn/Cargo.toml --bench loader_vs_burn`.
//! The throughput is in batches per second. `examples/loader_race.rs` runs the same loop in
//! alternating rounds, with CPU time, and a loop that only loads.
#![forbid(unsafe_code)]

// Shared with examples/loader_race.rs, which uses all of it (the stats, the image sizes).
#[allow(dead_code)]
#[path = "shared/race.rs"]
mod race;

use burn::tensor::Device;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use race::{Contender, Setting, Trainer};
use std::time::Duration;

/// The images of an epoch: 16 batches.
const IMAGES: usize = 512;

fn loader_vs_burn(c: &mut Criterion) {
    let device = Device::default().autodiff();
    let data = race::pngs(IMAGES);
    let mut group = c.benchmark_group("loader_vs_burn");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .sample_size(10)
        .throughput(Throughput::Elements(IMAGES.div_ceil(race::BATCH) as u64));
    for setting in Setting::ALL {
        let contender = Contender::new(setting, &data, &device);
        let mut trainer = Trainer::new(&device);
        group.bench_function(format!("train/{}", setting.name()), |b| {
            b.iter(|| race::epoch(&*contender.loader, Some(&mut trainer), IMAGES));
        });
    }
    group.finish();
}

criterion_group!(benches, loader_vs_burn);
criterion_main!(benches);
