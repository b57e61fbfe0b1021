//! Trains a toy classifier from a folder of images, one subdirectory per class: scanned with
//! `ImageFolder`, augmented with a random flip drawn from each image's generator, split 80/20
//! by class, stacked into NCHW batches, loaded in parallel.
//!
//! ```text
//! cargo run --release -p foldex-data --example train_images -- [FOLDER]
//! ```
//!
//! Without a folder it writes 600 PNG images of two classes to a temporary folder first.

use foldex_data::augment::{RandomFlip, Resize, ToChw};
use foldex_data::{DatasetExt, ImageFolder, ItemTransform, Stack};
use foldex_dataset::VecCollate;
use foldex_loader::{Checked, ErrorPolicy, Loader};
use foldex_threaded::ThreadedEx;
use std::path::PathBuf;

const SIDE: u32 = 32;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (root, generated) = match std::env::args().nth(1) {
        Some(folder) => (PathBuf::from(folder), false),
        None => (write_two_classes(600)?, true),
    };
    let images = ImageFolder::open(&root)?.transform(
        Resize {
            width: SIDE,
            height: SIDE,
        }
        .then(RandomFlip { p: 0.5 })
        .then(ToChw::UNIT),
    );
    let labels = images.labels().to_vec();
    let parts = images.stratified_split(&[0.8, 0.2], &labels, 0)?;
    let loader = |part| {
        Loader::new(
            Checked::new(part, ErrorPolicy::skip()),
            ThreadedEx::new().basesize(1),
        )
        .batch_size(32)
        .shuffle(1)
        .collate((Stack, VecCollate))
    };
    let (train, test) = (loader(parts[0].clone()), loader(parts[1].clone()));
    // The model: logistic regression on the three channel means of an image.
    let mut w = [0.0f32; 4];
    let predict = |w: &[f32; 4], x: &[f32; 3]| {
        1.0 / (1.0 + (-(w[3] + (0..3).map(|c| w[c] * x[c]).sum::<f32>())).exp())
    };
    for epoch in 0..5 {
        for (batch, labels) in &train {
            for (k, &label) in labels.iter().enumerate() {
                let x = channel_means(batch.row(k));
                let error = predict(&w, &x) - label as f32;
                (0..3).for_each(|c| w[c] -= 0.5 * error * x[c]);
                w[3] -= 0.5 * error;
            }
        }
        let (mut right, mut seen) = (0, 0);
        for (batch, labels) in &test {
            for (k, &label) in labels.iter().enumerate() {
                right +=
                    usize::from((predict(&w, &channel_means(batch.row(k))) > 0.5) == (label == 1));
                seen += 1;
            }
        }
        println!(
            "epoch {epoch}: test accuracy {:.3} on {seen} images",
            right as f32 / seen as f32
        );
    }
    if generated {
        std::fs::remove_dir_all(root)?;
    }
    Ok(())
}

/// The mean of each channel of a CHW image.
fn channel_means(chw: &[f32]) -> [f32; 3] {
    let plane = chw.len() / 3;
    [0, 1, 2].map(|c| chw[c * plane..(c + 1) * plane].iter().sum::<f32>() / plane as f32)
}

/// Writes `count` noisy images, half reddish (`class_a`) and half bluish (`class_b`), of
/// varying sizes, to a temporary folder.
fn write_two_classes(count: usize) -> image::ImageResult<PathBuf> {
    let root = std::env::temp_dir().join(format!("foldex-train-images-{}", std::process::id()));
    for i in 0..count {
        let class = i % 2;
        let dir = root.join(["class_a", "class_b"][class]);
        std::fs::create_dir_all(&dir)?;
        let noise = |x: u32, y: u32| ((x * 7919 + y * 104_729 + i as u32 * 31) % 97) as u8;
        let (w, h) = (40 + (i % 4) as u32 * 8, 36 + (i % 3) as u32 * 10);
        let image = image::RgbImage::from_fn(w, h, |x, y| {
            let (strong, weak) = (120 + noise(x, y), 40 + noise(y, x) / 2);
            image::Rgb(if class == 0 {
                [strong, 60, weak]
            } else {
                [weak, 60, strong]
            })
        });
        image.save(dir.join(format!("{i:04}.png")))?;
    }
    Ok(root)
}
