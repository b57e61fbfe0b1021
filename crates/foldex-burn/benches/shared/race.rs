//! The workload of foldex's loader against burn's own (`benches/loader_vs_burn.rs`,
//! `examples/loader_race.rs`): PNG images kept encoded in memory, each decoded and augmented
//! when it is loaded, in batches that a small MLP trains on (forward, loss, backward, SGD
//! step on burn's ndarray backend with autodiff), one epoch at a time, with either loader.
//!
//! Both loaders read the same dataset, [`Pngs`]: foldex's as a foldex dataset
//! (`build_foldex`), burn's through [`ToBurn`]. The augmentation draws from the item's
//! generator: the loader's `ItemContext` under foldex, `rng_for(SEED, 0, index)` under burn
//! (which has no per-item context); the work per item is the same.

use burn::data::dataloader::{DataLoader, DataLoaderBuilder};
use burn::nn::loss::{CrossEntropyLoss, CrossEntropyLossConfig};
use burn::nn::{Linear, LinearConfig, Relu};
use burn::optim::{GradientsParams, ModuleOptimizer, SgdConfig};
use burn::prelude::*;
use foldex_burn::{
    FeatureBatch, FeatureBatcher, FoldexDataLoader, FoldexDataLoaderBuilder, ToBurn,
};
use foldex_data::augment::{ItemTransform, RandomCrop, RandomFlip, ToChw};
use foldex_dataset::{rng_for, Dataset, ItemContext};
use image::{ImageFormat, Rgb, RgbImage};
use std::hint::black_box;
use std::io::Cursor;
use std::sync::Arc;

/// The side of the generated images, in pixels.
pub const SIDE: u32 = 64;
/// The side of the random crop the model sees.
pub const CROP: u32 = 56;
/// Items per batch.
pub const BATCH: usize = 32;
/// The classes of the images (image `i` is of class `i % CLASSES`).
pub const CLASSES: usize = 10;
/// The seed of the images, the shuffles and the augmentations.
pub const SEED: u64 = 0x5eed;
/// The model's hidden width.
const HIDDEN: usize = 64;
/// SGD's learning rate.
const LR: f64 = 1e-3;

/// A fixed pseudo-random sequence (xorshift64) for the images' noise.
fn random(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// `len` RGB images, `SIDE x SIDE`, each encoded as PNG bytes: a gradient whose direction
/// and hue depend on the class, under seeded noise (so that the PNG does not compress away).
pub fn pngs(len: usize) -> Pngs {
    let files = (0..len)
        .map(|i| {
            let class = (i % CLASSES) as u32;
            let mut noise = random(SEED ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let image = RgbImage::from_fn(SIDE, SIDE, |x, y| {
                let ramp = if class.is_multiple_of(2) { x } else { y } * 255 / SIDE;
                let mut channel = |c: u32| {
                    let tint = (ramp + c * 25 * class) % 256;
                    (tint as u8).wrapping_add((noise() % 24) as u8)
                };
                Rgb([channel(0), channel(1), channel(2)])
            });
            let mut bytes = Vec::new();
            image
                .write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png)
                .expect("an image in memory encodes");
            bytes
        })
        .collect();
    Pngs {
        files: Arc::new(files),
    }
}

/// Encoded PNG images in memory; item `i` is image `i` decoded, randomly cropped to
/// `CROP x CROP`, randomly flipped and scaled to `f32` CHW, with its class.
#[derive(Clone)]
pub struct Pngs {
    files: Arc<Vec<Vec<u8>>>,
}

impl Pngs {
    /// The mean size of an encoded image, in bytes.
    pub fn mean_bytes(&self) -> usize {
        self.files.iter().map(Vec::len).sum::<usize>() / self.files.len().max(1)
    }
}

impl Dataset for Pngs {
    type Item = (Vec<f32>, i64);

    fn len(&self) -> usize {
        self.files.len()
    }

    fn get(&self, index: usize) -> (Vec<f32>, i64) {
        let mut rng = ItemContext::current().map_or_else(|| rng_for(SEED, 0, index), |cx| cx.rng());
        let image = image::load_from_memory_with_format(&self.files[index], ImageFormat::Png)
            .expect("a generated PNG decodes")
            .into_rgb8();
        let augment = RandomCrop {
            width: CROP,
            height: CROP,
        }
        .then(RandomFlip { p: 0.5 })
        .then(ToChw::UNIT);
        (augment.apply(image, &mut rng), (index % CLASSES) as i64)
    }
}

/// Which loader, with which worker setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// foldex's `FoldexDataLoader` with `num_workers(n)`, or (`None`) its builder's default.
    Foldex(Option<usize>),
    /// burn's `DataLoaderBuilder` with `num_workers(n)` (0: on the iterating thread).
    Burn(usize),
}

impl Setting {
    /// Every setting raced: foldex with 1, 2, 4 workers and its default; burn with 0, 1, 2, 4.
    pub const ALL: [Setting; 8] = [
        Setting::Foldex(Some(1)),
        Setting::Foldex(Some(2)),
        Setting::Foldex(Some(4)),
        Setting::Foldex(None),
        Setting::Burn(0),
        Setting::Burn(1),
        Setting::Burn(2),
        Setting::Burn(4),
    ];

    /// A short name: `foldex w=2`, `foldex default`, `burn w=0`.
    pub fn name(self) -> String {
        match self {
            Setting::Foldex(Some(n)) => format!("foldex w={n}"),
            Setting::Foldex(None) => "foldex default".to_owned(),
            Setting::Burn(n) => format!("burn w={n}"),
        }
    }
}

/// foldex's loader of [`Pngs`].
pub type FoldexLoader = FoldexDataLoader<(Vec<f32>, i64), FeatureBatch>;

/// A loader of [`Pngs`] in batches of [`BATCH`], shuffled from [`SEED`], making its batches
/// on `device`; `foldex` is the same loader with its own type, for its stats.
pub struct Contender {
    /// What it is.
    pub setting: Setting,
    /// The loader, as burn's training loop takes it.
    pub loader: Arc<dyn DataLoader<FeatureBatch>>,
    /// foldex's loader (for its stats), when it is one.
    pub foldex: Option<Arc<FoldexLoader>>,
}

impl Contender {
    /// The loader of `setting` over `data`.
    pub fn new(setting: Setting, data: &Pngs, device: &Device) -> Self {
        match setting {
            Setting::Foldex(workers) => {
                let builder = FoldexDataLoaderBuilder::new(FeatureBatcher)
                    .batch_size(BATCH)
                    .shuffle(SEED)
                    .set_device(device.clone());
                let builder = match workers {
                    Some(n) => builder.num_workers(n),
                    None => builder,
                };
                let loader = Arc::new(builder.build_foldex(data.clone().map(Ok)));
                Contender {
                    setting,
                    loader: loader.clone(),
                    foldex: Some(loader),
                }
            }
            Setting::Burn(workers) => Contender {
                setting,
                loader: DataLoaderBuilder::new(FeatureBatcher)
                    .batch_size(BATCH)
                    .shuffle(SEED)
                    .num_workers(workers)
                    .set_device(device.clone())
                    .build(ToBurn::new(data.clone())),
                foldex: None,
            },
        }
    }
}

/// A two-layer perceptron over the flattened crops.
#[derive(Module, Debug)]
pub struct Mlp {
    hidden: Linear,
    activation: Relu,
    output: Linear,
}

impl Mlp {
    fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        self.output
            .forward(self.activation.forward(self.hidden.forward(x)))
    }
}

/// The model, its optimizer and its loss: what a training loop does with each batch.
pub struct Trainer {
    model: Option<Mlp>,
    optim: ModuleOptimizer,
    loss: CrossEntropyLoss,
}

impl Trainer {
    /// A fresh model on `device` (an autodiff device).
    pub fn new(device: &Device) -> Self {
        let width = 3 * (CROP * CROP) as usize;
        Trainer {
            model: Some(Mlp {
                hidden: LinearConfig::new(width, HIDDEN).init(device),
                activation: Relu::new(),
                output: LinearConfig::new(HIDDEN, CLASSES).init(device),
            }),
            optim: SgdConfig::new().init(),
            loss: CrossEntropyLossConfig::new().init(device),
        }
    }

    /// One training step on `batch`: forward, loss, backward, SGD step.
    pub fn step(&mut self, batch: FeatureBatch) {
        let model = self
            .model
            .take()
            .expect("the model is back after each step");
        let logits = model.forward(batch.features);
        let loss = self.loss.forward(logits, batch.targets);
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        self.model = Some(self.optim.step(LR, model, grads));
    }
}

/// One epoch of `loader`: each batch trained on by `trainer`, or (`None`) only received.
/// Returns the number of batches.
///
/// # Panics
/// If a batch fails, or the epoch does not deliver `items` items.
pub fn epoch(
    loader: &dyn DataLoader<FeatureBatch>,
    mut trainer: Option<&mut Trainer>,
    items: usize,
) -> usize {
    let (mut batches, mut seen) = (0, 0);
    for batch in loader.iter() {
        let batch = batch.expect("the generated images load");
        batches += 1;
        seen += batch.features.dims()[0];
        match trainer.as_deref_mut() {
            Some(trainer) => trainer.step(batch),
            None => drop(black_box(batch)),
        }
    }
    assert_eq!(seen, items, "an epoch delivers every item once");
    batches
}
