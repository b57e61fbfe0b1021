//! A real input pipeline per executor against the ideal, and the cost of the loader's
//! always-on diagnostics.
//!
//! Run: `cargo bench -p foldex-benches --bench images`.
//!
//! - `images`: 240 PNG and JPEG files of mixed sizes (written to a temporary folder first),
//!   each decoded, resized to 64x64 and normalised to f32 CHW, in batches of 16 stacked into
//!   an NCHW buffer that the loader reuses. `SequentialEx` gives the single-thread rate; the
//!   ideal for an executor is `cores x` that rate. The reference is rayon's `for_each_with`
//!   sending into crossbeam-channel's `bounded(8)` (decode only, no batching).
//! - `diagnostics_overhead`: 100 000 observations that cost nothing, through `ThreadedEx`,
//!   with the diagnostics on (as always) and with their clock readings and counters switched
//!   off (a hidden setting that exists for this measurement only).
#![forbid(unsafe_code)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use foldex::dataset::{collate::in_place, from_fn, rng_for, Dataset};
use foldex::loader::Loader;
use foldex::{Executor, SequentialEx, TaskPoolEx, ThreadedEx};
use foldex_benches::rayon_crossbeam;
use image::imageops::{self, FilterType};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

const IMAGES: usize = 240;
const SIDE: u32 = 64;
const BATCH: usize = 16;

struct ImageFolder(Vec<PathBuf>);

fn decode_into(path: &Path, chw: &mut Vec<f32>) {
    let img = image::open(path).expect("a generated image").into_rgb8();
    let img = imageops::resize(&img, SIDE, SIDE, FilterType::Triangle);
    let plane = (SIDE * SIDE) as usize;
    chw.clear();
    chw.resize(3 * plane, 0.0);
    for (p, px) in img.pixels().enumerate() {
        for c in 0..3 {
            chw[c * plane + p] = f32::from(px[c]) / 255.0 - 0.5;
        }
    }
}

impl Dataset for ImageFolder {
    type Item = Vec<f32>;
    fn len(&self) -> usize {
        self.0.len()
    }
    fn get(&self, index: usize) -> Vec<f32> {
        let mut chw = Vec::new();
        decode_into(&self.0[index], &mut chw);
        chw
    }
    fn get_into(&self, index: usize, chw: &mut Vec<f32>) {
        decode_into(&self.0[index], chw);
    }
}

fn write_images(folder: &Path) -> Vec<PathBuf> {
    foldex_benches::write_images(IMAGES, |_| folder.to_path_buf(), |i| i % 2 == 0)
}

fn images(c: &mut Criterion) {
    let folder = std::env::temp_dir().join(format!("foldex-bench-images-{}", std::process::id()));
    let files = write_images(&folder);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut group = c.benchmark_group("images");
    group
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .sample_size(10)
        .throughput(Throughput::Elements(IMAGES as u64));
    let executors: Vec<(&str, Arc<dyn Executor>)> = vec![
        ("SequentialEx (single thread)", Arc::new(SequentialEx)),
        (
            "ThreadedEx",
            Arc::new(ThreadedEx::new().threads(cores).basesize(1)),
        ),
        ("TaskPoolEx", Arc::new(TaskPoolEx::new().ntasks(cores))),
        (
            "TaskPoolEx background",
            Arc::new(TaskPoolEx::new().ntasks(cores).background(true)),
        ),
    ];
    for (name, executor) in &executors {
        let loader = Loader::new(ImageFolder(files.clone()), Arc::clone(executor))
            .batch_size(BATCH)
            .buffer(8)
            .collate(in_place(|items: &[Vec<f32>], nchw: &mut Vec<f32>| {
                nchw.clear();
                items.iter().for_each(|chw| nchw.extend_from_slice(chw));
            }))
            .reuse_buffers(true);
        group.bench_function(*name, |b| {
            b.iter(|| {
                loader
                    .iter()
                    .fold(0.0f32, |acc, batch| acc + black_box(batch[0]))
            })
        });
        let mut iter = loader.iter();
        iter.by_ref().for_each(drop);
        eprintln!("{name}: {}", iter.stats());
    }
    group.bench_function("rayon+crossbeam (reference)", |b| {
        b.iter(|| {
            let decode = |i: usize| {
                let mut chw = Vec::new();
                decode_into(&files[i], &mut chw);
                chw
            };
            rayon_crossbeam(files.len(), 8, decode, 0.0f32, |acc, chw| {
                acc + black_box(chw[0])
            })
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(folder);
}

/// Median seconds of `rounds` runs of each of `a` and `b`, run alternately (a, b, a, b, ...)
/// so that drift in the machine's load hits both alike.
/// `a` and `b` alternated `rounds` times: each one's median time, the median of the per-round
/// ratios `a / b` (neighbouring runs see the same machine, so the ratio cancels most drift),
/// and a 95% bootstrap interval of that median ratio.
fn interleaved(rounds: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> Interleaved {
    let time = |f: &mut dyn FnMut()| {
        let started = std::time::Instant::now();
        f();
        started.elapsed().as_secs_f64()
    };
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        // Alternate which goes first, so that neither always follows the other.
        if round % 2 == 0 {
            ta.push(time(&mut a));
            tb.push(time(&mut b));
        } else {
            tb.push(time(&mut b));
            ta.push(time(&mut a));
        }
    }
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let ratios: Vec<f64> = ta.iter().zip(&tb).map(|(a, b)| a / b).collect();
    // Bootstrap with the loader's fixed-seed generator, so that a run's interval is
    // reproducible from its times.
    let mut rng = rng_for(0, 0, 0);
    let mut medians: Vec<f64> = (0..1000)
        .map(|_| {
            let sample: Vec<f64> = (0..ratios.len())
                .map(|_| ratios[rng.gen_range(0..ratios.len())])
                .collect();
            median(&sample)
        })
        .collect();
    medians.sort_by(f64::total_cmp);
    Interleaved {
        a: median(&ta),
        b: median(&tb),
        ratio: median(&ratios),
        interval: (medians[25], medians[974]),
    }
}

/// What [`interleaved`] measured.
struct Interleaved {
    a: f64,
    b: f64,
    ratio: f64,
    interval: (f64, f64),
}

fn diagnostics_overhead(c: &mut Criterion) {
    const N: usize = 100_000;
    // The figure to report: on and off alternated, so that both see the same machine.
    for batch_size in [1, 64] {
        let make = |on: bool| {
            Loader::new(from_fn(N, |i| i), ThreadedEx::new().basesize(1))
                .batch_size(batch_size)
                .buffer(16)
                .diagnostics(on)
        };
        let (on, off) = (make(true), make(false));
        let drain = |l: &Loader<_>| {
            black_box(l.iter().map(|b| b.len()).sum::<usize>());
        };
        let m = interleaved(301, || drain(&on), || drain(&off));
        eprintln!(
            "diagnostics_overhead interleaved, batch {batch_size}: on {:.2} ms, off {:.2} ms, \
             on/off per round: median {:.3}, 95% interval {:.3}..{:.3}",
            m.a * 1e3,
            m.b * 1e3,
            m.ratio,
            m.interval.0,
            m.interval.1
        );
    }
    let mut group = c.benchmark_group("diagnostics_overhead");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
        .throughput(Throughput::Elements(N as u64));
    for batch_size in [1, 64] {
        for on in [true, false] {
            let loader = Loader::new(from_fn(N, |i| i), ThreadedEx::new().basesize(1))
                .batch_size(batch_size)
                .buffer(16)
                .diagnostics(on);
            let name = format!(
                "batch {batch_size}, diagnostics {}",
                if on { "on" } else { "off" }
            );
            group.bench_function(name, |b| {
                b.iter(|| {
                    loader
                        .iter()
                        .map(|batch| black_box(batch.len()))
                        .sum::<usize>()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, diagnostics_overhead, images);
criterion_main!(benches);
