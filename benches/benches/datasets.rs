//! The image-folder dataset against the same pipeline written by hand, and against a
//! decode-only rayon + crossbeam-channel reference, in the same run.
//!
//! `cargo bench -p foldex-benches --bench datasets`
//!
//! 480 PNG and JPEG files of mixed sizes in two class subdirectories (written to a temporary
//! folder first). Each image is decoded, resized to 64x64, flipped at random with its own
//! generator and converted to f32 CHW; batches of 16 are stacked into NCHW beside their labels.
//! Both loaders run on `ThreadedEx` with basesize 1 and a buffer of 8.
//!
//! - `image_folder/hand-written`: what a user writes without `foldex-data` (a scan of the class
//!   directories, a `Dataset` that decodes, resizes, flips from `rng_for(seed, epoch, index)`
//!   with the epoch shared through an `AtomicU64`, and converts; an in-place collate into a
//!   reused NCHW buffer);
//! - `image_folder/ImageFolder`: `ImageFolder::open(..).transform(Resize.then(RandomFlip).then(ToChw))`
//!   collated by `(Stack, VecCollate)` into reused batches;
//! - `image_folder/rayon+crossbeam (decode only)`: the files decoded, resized and converted
//!   by rayon's `for_each_with` into crossbeam-channel's `bounded(8)`, no batching, no flip.
//!
//! Ratio to report: images/s of `ImageFolder` over `hand-written` (time hand-written / time
//! ImageFolder).
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use foldex::data::augment::{RandomFlip, Resize, ToChw};
use foldex::data::{ImageFolder, ItemTransform, Stack};
use foldex::dataset::{collate::in_place, rng_for, Dataset, VecCollate};
use foldex::loader::{Checked, ErrorPolicy, Loader};
use foldex::ThreadedEx;
use foldex_benches::rayon_crossbeam;
use image::imageops::{self, FilterType};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

const IMAGES: usize = 480;
const SIDE: u32 = 64;
const BATCH: usize = 16;

fn write_images(root: &Path) -> Vec<PathBuf> {
    foldex_benches::write_images(
        IMAGES,
        |i| root.join(["cats", "dogs"][i % 2]),
        |i| i % 3 == 0,
    )
}

/// Decodes, resizes and converts one image to `[0, 1]` CHW in `chw`, flipping it first when
/// `flip`.
fn decode_into(path: &Path, flip: bool, chw: &mut Vec<f32>) {
    let img = image::open(path).expect("a generated image").into_rgb8();
    let mut img = imageops::resize(&img, SIDE, SIDE, FilterType::Triangle);
    if flip {
        imageops::flip_horizontal_in_place(&mut img);
    }
    let plane = (SIDE * SIDE) as usize;
    chw.clear();
    chw.resize(3 * plane, 0.0);
    for (p, px) in img.pixels().enumerate() {
        for c in 0..3 {
            chw[c * plane + p] = f32::from(px[c]) / 255.0;
        }
    }
}

/// The hand-written dataset: files and labels from a scan, the epoch shared by the training
/// loop through an atomic so that `get` can draw the flip.
struct HandWritten {
    files: Vec<PathBuf>,
    labels: Vec<usize>,
    epoch: Arc<AtomicU64>,
}

impl HandWritten {
    fn scan(root: &Path, epoch: Arc<AtomicU64>) -> Self {
        let mut classes: Vec<PathBuf> = std::fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        classes.sort();
        let (mut files, mut labels) = (Vec::new(), Vec::new());
        for (label, dir) in classes.iter().enumerate() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("png" | "jpg")))
                .collect();
            found.sort();
            labels.extend(std::iter::repeat_n(label, found.len()));
            files.extend(found);
        }
        Self {
            files,
            labels,
            epoch,
        }
    }
}

impl Dataset for HandWritten {
    type Item = (Vec<f32>, usize);
    fn len(&self) -> usize {
        self.files.len()
    }
    fn get(&self, index: usize) -> Self::Item {
        let mut item = (Vec::new(), 0);
        self.get_into(index, &mut item);
        item
    }
    fn get_into(&self, index: usize, item: &mut Self::Item) {
        let epoch = self.epoch.load(Ordering::Relaxed);
        let flip = rng_for(3, epoch, index).gen_bool(0.5);
        decode_into(&self.files[index], flip, &mut item.0);
        item.1 = self.labels[index];
    }
}

/// An NCHW buffer and the batch's labels, written in place.
type NchwBatch = (Vec<f32>, Vec<usize>);

fn image_folder(c: &mut Criterion) {
    let root = std::env::temp_dir().join(format!("foldex-bench-folder-{}", std::process::id()));
    let files = write_images(&root);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let executor = || ThreadedEx::new().threads(cores).basesize(1);
    let mut group = c.benchmark_group("image_folder");
    group
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4))
        .sample_size(10)
        .throughput(Throughput::Elements(IMAGES as u64));

    let epoch = Arc::new(AtomicU64::new(0));
    let hand_written = Loader::new(HandWritten::scan(&root, Arc::clone(&epoch)), executor())
        .batch_size(BATCH)
        .buffer(8)
        .shuffle(1)
        .collate(in_place(
            |items: &[(Vec<f32>, usize)], out: &mut NchwBatch| {
                out.0.clear();
                out.1.clear();
                for (chw, label) in items {
                    out.0.extend_from_slice(chw);
                    out.1.push(*label);
                }
            },
        ))
        .reuse_buffers(true);
    group.bench_function("hand-written", |b| {
        b.iter(|| {
            epoch.fetch_add(1, Ordering::Relaxed);
            hand_written
                .iter()
                .fold(0.0f32, |acc, batch| acc + black_box(batch.0[0]))
        })
    });

    let folder = ImageFolder::open(&root).unwrap().transform(
        Resize {
            width: SIDE,
            height: SIDE,
        }
        .then(RandomFlip { p: 0.5 })
        .then(ToChw::UNIT),
    );
    let with_folder = Loader::new(Checked::new(folder, ErrorPolicy::skip()), executor())
        .batch_size(BATCH)
        .buffer(8)
        .shuffle(1)
        .seed(3)
        .collate((Stack, VecCollate))
        .reuse_buffers(true);
    group.bench_function("ImageFolder", |b| {
        b.iter(|| {
            with_folder
                .iter()
                .fold(0.0f32, |acc, batch| acc + black_box(batch.0.data[0]))
        })
    });

    group.bench_function("rayon+crossbeam (decode only)", |b| {
        b.iter(|| {
            let decode = |i: usize| {
                let mut chw = Vec::new();
                decode_into(&files[i], false, &mut chw);
                chw
            };
            rayon_crossbeam(files.len(), 8, decode, 0.0f32, |acc, chw| {
                acc + black_box(chw[0])
            })
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(root);
}

criterion_group!(benches, image_folder);
criterion_main!(benches);
