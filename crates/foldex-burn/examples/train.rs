//! Trains a small convolutional network with burn (ndarray backend, autodiff, Adam) on
//! images fed by foldex: an `ImageFolder` with augmentations, a stratified split into training
//! and validation, and a `FoldexDataLoader` for each; a hand-written loop (forward,
//! cross-entropy, backward, optimizer step). It prints each epoch's training loss, validation
//! accuracy, time and the loader's verdict, and fails (exit status 1) unless the validation
//! accuracy reaches `--target` within `--epochs` epochs.
//!
//! ```text
//! cargo run --release --manifest-path crates/foldex-burn/Cargo.toml --example train
//! cargo run --release --manifest-path crates/foldex-burn/Cargo.toml --example train -- --loader both
//! cargo run --release --manifest-path crates/foldex-burn/Cargo.toml --example train -- --dir PATH
//! ```
//!
//! Without `--dir`, it first writes a folder of synthetic pictures (noisy stripes, discs and
//! checkerboards of random colours, one class each) from `--seed` in a temporary directory,
//! and removes it after. `--loader burn` trains the same network (the same initial weights:
//! burn's generator is seeded the same way) on the same split with burn's own
//! `DataLoaderBuilder` (the same seed, batch size and workers); `--loader both` runs both and
//! prints them side by side. (Under burn's loader an item has no epoch or seed to draw its
//! random crop and flip from: `ImageFolder` draws the same ones for it every epoch.)

use burn::data::dataloader::{DataLoader, DataLoaderBuilder};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::loss::CrossEntropyLossConfig;
use burn::nn::pool::{MaxPool2d, MaxPool2dConfig};
use burn::nn::{Linear, LinearConfig, PaddingConfig2d, Relu};
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use foldex_burn::{FoldexDataLoader, FoldexDataLoaderBuilder, ImageBatch, ImageBatcher, TryToBurn};
use foldex_data::augment::{CenterCrop, RandomCrop, RandomFlip, Resize};
use foldex_data::{DatasetExt, ImageFolder, ItemTransform};
use foldex_dataset::{rng_for, ItemRng};
use image::{Rgb, RgbImage};
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

const USAGE: &str = "usage: train [--dir PATH] [--images N] [--epochs N] [--target ACCURACY] \
[--seed N] [--workers N] [--batch N] [--lr RATE] [--loader foldex|burn|both]";

/// The side of the pictures the example writes, and of the images (resized) before cropping.
const SIDE: u32 = 32;
/// The side of the crops the network sees.
const CROP: u32 = 28;
/// The classes of the pictures the example writes (sorted, as `ImageFolder` labels them).
const CLASSES: [&str; 4] = ["checker", "disc", "hstripes", "vstripes"];

/// Which loader feeds the training loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// A `FoldexDataLoader`.
    Foldex,
    /// burn's own `DataLoaderBuilder`.
    Burn,
    /// Both, one after the other.
    Both,
}

/// The command line.
#[derive(Debug, Clone)]
pub struct Options {
    /// An `ImageFolder` to train on, or `None`: pictures the example writes.
    pub dir: Option<PathBuf>,
    /// How many pictures to write (without `dir`).
    pub images: usize,
    /// The epochs within which the target accuracy must be reached (training stops there).
    pub epochs: usize,
    /// The validation accuracy to reach, in `0..=1`.
    pub target: f64,
    /// The seed of the pictures, the split, the shuffles, the augmentations and the weights.
    pub seed: u64,
    /// The loader's workers.
    pub workers: usize,
    /// Items per batch.
    pub batch: usize,
    /// Adam's learning rate.
    pub lr: f64,
    /// Which loader.
    pub loader: Which,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            dir: None,
            images: 960,
            epochs: 8,
            target: 0.95,
            seed: 1,
            workers: 2,
            batch: 32,
            lr: 3e-3,
            loader: Which::Foldex,
        }
    }
}

impl Options {
    /// Reads the command line's arguments (without the program's name).
    pub fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut options = Self::default();
        while let Some(flag) = args.next() {
            let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
            fn number<T: std::str::FromStr>(flag: &str, value: String) -> Result<T, String> {
                value
                    .parse()
                    .map_err(|_| format!("{flag} takes a number, got {value:?}"))
            }
            match flag.as_str() {
                "--dir" => options.dir = Some(PathBuf::from(value()?)),
                "--images" => options.images = number(&flag, value()?)?,
                "--epochs" => options.epochs = number(&flag, value()?)?,
                "--target" => options.target = number(&flag, value()?)?,
                "--seed" => options.seed = number(&flag, value()?)?,
                "--workers" => options.workers = number(&flag, value()?)?,
                "--batch" => options.batch = number(&flag, value()?)?,
                "--lr" => options.lr = number(&flag, value()?)?,
                "--loader" => {
                    options.loader = match value()?.as_str() {
                        "foldex" => Which::Foldex,
                        "burn" => Which::Burn,
                        "both" => Which::Both,
                        other => {
                            return Err(format!("--loader is foldex, burn or both, got {other:?}"))
                        }
                    }
                }
                _ => return Err(format!("unknown argument {flag:?}")),
            }
        }
        if options.batch == 0 || options.epochs == 0 {
            return Err(format!(
                "--batch and --epochs must be at least 1, got {} and {}",
                options.batch, options.epochs
            ));
        }
        if options.dir.is_none() && options.images < 5 * CLASSES.len() {
            return Err(format!(
                "--images must be at least {} (5 per class), got {}",
                5 * CLASSES.len(),
                options.images
            ));
        }
        Ok(options)
    }
}

/// One epoch of a run.
#[derive(Debug, Clone, Copy)]
pub struct Epoch {
    /// The mean training loss of its batches.
    pub loss: f64,
    /// The share of validation images classified right after it.
    pub accuracy: f64,
    /// Seconds of its training loop (loading, forward, backward, step).
    pub train_secs: f64,
}

/// A training run.
#[derive(Debug, Clone)]
pub struct Run {
    /// Which loader fed it.
    pub loader: &'static str,
    /// Its epochs, up to the first that reached the target.
    pub epochs: Vec<Epoch>,
    /// The first epoch (1-based) whose validation accuracy reached the target.
    pub reached: Option<usize>,
}

/// A small convolutional network: two 3×3 convolutions with ReLU and 2×2 max pooling, then two
/// linear layers.
#[derive(Module, Debug)]
pub struct Net {
    conv1: Conv2d,
    conv2: Conv2d,
    pool: MaxPool2d,
    relu: Relu,
    hidden: Linear,
    output: Linear,
}

impl Net {
    /// The network for `side × side` images of `classes` classes, its weights drawn on
    /// `device`.
    pub fn new(classes: usize, side: usize, device: &Device) -> Self {
        let conv = |channels| {
            Conv2dConfig::new(channels, [3, 3])
                .with_padding(PaddingConfig2d::Same)
                .init(device)
        };
        Self {
            conv1: conv([3, 8]),
            conv2: conv([8, 16]),
            pool: MaxPool2dConfig::new([2, 2]).init(),
            relu: Relu::new(),
            hidden: LinearConfig::new(16 * (side / 4) * (side / 4), 32).init(device),
            output: LinearConfig::new(32, classes).init(device),
        }
    }

    /// `[N, classes]` logits of `[N, 3, side, side]` images.
    pub fn forward(&self, images: Tensor<4>) -> Tensor<2> {
        let x = self
            .pool
            .forward(self.relu.forward(self.conv1.forward(images)));
        let x = self.pool.forward(self.relu.forward(self.conv2.forward(x)));
        let x = self.relu.forward(self.hidden.forward(x.flatten(1, 3)));
        self.output.forward(x)
    }

    /// The sum of the first convolution's weights: equal for runs that start from the same
    /// weights.
    fn fingerprint(&self) -> f32 {
        self.conv1.weight.val().sum().into_scalar()
    }
}

/// Trains a network with `train`, validating with `valid` after each epoch, until an epoch
/// reaches `options.target` or `options.epochs` have run; `after_epoch` prints what the loader
/// says of the epoch.
fn train(
    name: &'static str,
    train: &dyn DataLoader<ImageBatch>,
    valid: &dyn DataLoader<ImageBatch>,
    classes: usize,
    options: &Options,
    after_epoch: &dyn Fn(),
) -> Result<Run, Box<dyn Error>> {
    let device = Device::default().autodiff();
    device.seed(options.seed);
    let mut model = Net::new(classes, CROP as usize, &device);
    let mut optimizer = AdamConfig::new().init();
    let loss_of = CrossEntropyLossConfig::new().init(&device);
    println!(
        "{name}: {} training and {} validation images, {} workers, initial weights {:.6}",
        train.num_items(),
        valid.num_items(),
        options.workers,
        model.fingerprint()
    );
    let mut run = Run {
        loader: name,
        epochs: Vec::new(),
        reached: None,
    };
    for epoch in 1..=options.epochs {
        let start = Instant::now();
        let (mut loss_sum, mut batches) = (0.0, 0);
        for batch in train.iter() {
            let batch = batch?;
            let loss = loss_of.forward(model.forward(batch.images), batch.targets);
            loss_sum += f64::from(loss.clone().into_scalar::<f32>());
            batches += 1;
            let grads = GradientsParams::from_grads(loss.backward(), &model);
            model = optimizer.step(options.lr, model, grads);
        }
        let train_secs = start.elapsed().as_secs_f64();
        let accuracy = accuracy(&model.valid(), valid)?;
        let loss = loss_sum / f64::from(batches.max(1));
        println!(
            "{name} epoch {epoch}: train loss {loss:.4}, validation accuracy {:.1}%, {train_secs:.2} s",
            100.0 * accuracy
        );
        after_epoch();
        run.epochs.push(Epoch {
            loss,
            accuracy,
            train_secs,
        });
        if accuracy >= options.target {
            run.reached = Some(epoch);
            break;
        }
    }
    Ok(run)
}

/// The share of `valid`'s images that `model` classifies right.
fn accuracy(model: &Net, valid: &dyn DataLoader<ImageBatch>) -> Result<f64, Box<dyn Error>> {
    let (mut right, mut all) = (0i64, 0usize);
    for batch in valid.iter() {
        let batch = batch?;
        let n = batch.targets.dims()[0];
        let predicted = model.forward(batch.images).argmax(1).reshape([n]);
        right += predicted
            .equal(batch.targets)
            .int()
            .sum()
            .into_scalar::<i64>();
        all += n;
    }
    Ok(right as f64 / all.max(1) as f64)
}

/// A picture of class `class` (a place in [`CLASSES`]): foreground shapes on a background of
/// random colours at least 96 levels apart in each channel, with noise of ±32 levels.
fn picture(class: usize, rng: &mut ItemRng) -> RgbImage {
    let background: [u8; 3] = [0, 1, 2].map(|_| rng.gen_range(0..256) as u8);
    let foreground = background.map(|c| c.wrapping_add(96 + rng.gen_range(0..64) as u8));
    let half = 2 + rng.gen_range(0..3) as u32; // half a period of stripes and checks
    let phase = rng.gen_range(0..2 * half as usize) as u32;
    let radius = 5 + rng.gen_range(0..6) as i64;
    let margin = radius as usize + 1;
    let centre = [0, 1].map(|_| (margin + rng.gen_range(0..SIDE as usize - 2 * margin)) as i64);
    RgbImage::from_fn(SIDE, SIDE, |x, y| {
        let on = match CLASSES[class] {
            "checker" => ((x + phase) / half + (y + phase) / half).is_multiple_of(2),
            "disc" => {
                let (dx, dy) = (i64::from(x) - centre[0], i64::from(y) - centre[1]);
                dx * dx + dy * dy <= radius * radius
            }
            "hstripes" => ((y + phase) / half).is_multiple_of(2),
            _ => ((x + phase) / half).is_multiple_of(2),
        };
        let colour = if on { foreground } else { background };
        Rgb(colour.map(|c| (i64::from(c) + rng.gen_range(0..65) as i64 - 32).clamp(0, 255) as u8))
    })
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `images` pictures, as many of each class as can be, as PNGs of an `ImageFolder` in a
/// new temporary directory.
fn write_pictures(images: usize, seed: u64) -> Result<TempDir, Box<dyn Error>> {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let dir = TempDir(std::env::temp_dir().join(format!(
        "foldex-burn-train-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    )));
    for (class, name) in CLASSES.iter().enumerate() {
        std::fs::create_dir_all(dir.0.join(name))?;
        for i in 0..images / CLASSES.len() {
            let index = i * CLASSES.len() + class;
            picture(class, &mut rng_for(seed, 0, index))
                .save(dir.0.join(name).join(format!("{i:04}.png")))?;
        }
    }
    Ok(dir)
}

/// Trains with the loaders `options` names on the images of `root`, and prints the runs.
fn train_on(root: &Path, options: &Options) -> Result<Vec<Run>, Box<dyn Error>> {
    // The same folder read twice: augmented for training (a random crop and flip), centred for
    // validation. Both list the same files with the same labels, so the split of one seed is
    // the same partition of both; each keeps its own part.
    let resize = Resize {
        width: SIDE,
        height: SIDE,
    };
    let augmented = ImageFolder::open(root)?.transform(
        resize
            .then(RandomCrop {
                width: CROP,
                height: CROP,
            })
            .then(RandomFlip { p: 0.5 }),
    );
    let centred = ImageFolder::open(root)?.transform(resize.then(CenterCrop {
        width: CROP,
        height: CROP,
    }));
    let classes = augmented.classes().len();
    let labels = augmented.labels().to_vec();
    let fractions = [0.8, 0.2];
    let training = augmented
        .stratified_split(&fractions, &labels, options.seed)?
        .swap_remove(0);
    let validation = centred
        .stratified_split(&fractions, &labels, options.seed)?
        .swap_remove(1);
    println!(
        "{} images of {classes} classes in {}",
        labels.len(),
        root.display()
    );

    let mut runs = Vec::new();
    if options.loader != Which::Burn {
        let train_loader: Arc<FoldexDataLoader<_, ImageBatch>> = Arc::new(
            FoldexDataLoaderBuilder::new(ImageBatcher::default())
                .batch_size(options.batch)
                .shuffle(options.seed)
                .num_workers(options.workers)
                .set_device(Device::default().autodiff())
                .build(TryToBurn::new(training.clone())),
        );
        let valid_loader = FoldexDataLoaderBuilder::new(ImageBatcher::default())
            .batch_size(options.batch)
            .num_workers(options.workers)
            .build(TryToBurn::new(validation.clone()));
        let verdict = || {
            if let Some(stats) = train_loader.stats() {
                println!("  loader: {stats}");
            }
        };
        let run = train(
            "foldex",
            train_loader.as_ref(),
            &valid_loader,
            classes,
            options,
            &verdict,
        )?;
        if let Some(stats) = train_loader.stats() {
            println!(
                "foldex loader's verdict on the last epoch: {:?}",
                stats.verdict()
            );
        }
        runs.push(run);
    }
    if options.loader != Which::Foldex {
        let burn = |shuffle: bool, device: Device| {
            let builder = DataLoaderBuilder::new(ImageBatcher::default())
                .batch_size(options.batch)
                .num_workers(options.workers)
                .set_device(device);
            if shuffle {
                builder.shuffle(options.seed)
            } else {
                builder
            }
        };
        let train_loader = burn(true, Device::default().autodiff()).build(TryToBurn::new(training));
        let valid_loader = burn(false, Device::default()).build(TryToBurn::new(validation));
        runs.push(train(
            "burn",
            train_loader.as_ref(),
            valid_loader.as_ref(),
            classes,
            options,
            &|| {},
        )?);
    }
    Ok(runs)
}

/// Prints the runs side by side: each epoch's accuracy and time.
fn summary(runs: &[Run], options: &Options) {
    let longest = runs.iter().map(|r| r.epochs.len()).max().unwrap_or(0);
    let header: Vec<String> = runs.iter().map(|r| format!("{:>22}", r.loader)).collect();
    println!("epoch {}", header.join(""));
    for e in 0..longest {
        let cells: Vec<String> = runs
            .iter()
            .map(|r| match r.epochs.get(e) {
                Some(epoch) => format!(
                    "{:>13.1}% {:>6.2} s",
                    100.0 * epoch.accuracy,
                    epoch.train_secs
                ),
                None => format!("{:>22}", "-"),
            })
            .collect();
        println!("{:>5} {}", e + 1, cells.join(""));
    }
    for run in runs {
        match run.reached {
            Some(epoch) => println!(
                "{}: reached {:.0}% validation accuracy in epoch {epoch} (of at most {})",
                run.loader,
                100.0 * options.target,
                options.epochs
            ),
            None => println!(
                "{}: did NOT reach {:.0}% validation accuracy within {} epochs",
                run.loader,
                100.0 * options.target,
                options.epochs
            ),
        }
    }
}

/// Trains as `options` say (writing the pictures first, without `--dir`) and prints a
/// summary; the runs, whether they reached the target or not.
pub fn run(options: &Options) -> Result<Vec<Run>, Box<dyn Error>> {
    let written = match &options.dir {
        Some(_) => None,
        None => Some(write_pictures(options.images, options.seed)?),
    };
    let root = options
        .dir
        .as_deref()
        .unwrap_or_else(|| &written.as_ref().expect("written").0);
    let runs = train_on(root, options)?;
    summary(&runs, options);
    Ok(runs)
}

fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(runs) if runs.iter().all(|r| r.reached.is_some()) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
