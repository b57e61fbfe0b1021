//! Trains a toy model from a directory of images streamed as a directory walk: each epoch walks
//! the folder again (`walkdir`), shuffles the paths through a buffer, and decodes and resizes
//! the images on the executor's threads (`image`); the model is a logistic regression on each
//! image's mean colour, telling the two classes (subdirectories) apart.
//!
//! ```text
//! cargo run --release -p foldex-loader --example stream_images -- [FOLDER]
//! ```
//!
//! Without a folder it writes 2 × 120 images (reddish `warm/`, bluish `cool/`) to a temporary
//! folder first. With one, its subdirectories are the classes (the first two, sorted).

use foldex_loader::StreamLoader;
use foldex_threaded::ThreadedEx;
use image::imageops::{self, FilterType};
use image::{Rgb, RgbImage};
use std::path::{Path, PathBuf};
use std::time::Instant;

const SIDE: u32 = 32;

/// An image's features (its mean red, green and blue, in `0..1`) and its class.
type Example = ([f32; 3], f32);

fn decode(path: &Path, classes: &[PathBuf]) -> Example {
    let image = image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .into_rgb8();
    let small = imageops::resize(&image, SIDE, SIDE, FilterType::Triangle);
    let mut mean = [0f32; 3];
    for pixel in small.pixels() {
        for (m, &c) in mean.iter_mut().zip(&pixel.0) {
            *m += f32::from(c) / 255.0;
        }
    }
    let pixels = (SIDE * SIDE) as f32;
    let class = classes
        .iter()
        .position(|c| path.starts_with(c))
        .unwrap_or(0);
    (mean.map(|m| m / pixels), class as f32)
}

fn write_images(folder: &Path) -> image::ImageResult<()> {
    for (class, tint) in [("warm", [200u8, 60, 40]), ("cool", [40, 80, 200])] {
        let dir = folder.join(class);
        std::fs::create_dir_all(&dir)?;
        for i in 0..120u32 {
            let (w, h) = (48 + i % 4 * 16, 40 + i % 3 * 24);
            let img = RgbImage::from_fn(w, h, |x, y| {
                let noise = ((x * 7 + y * 13 + i * 31) % 64) as u8;
                Rgb(tint.map(|t| t.saturating_add(noise)))
            });
            img.save(dir.join(format!("{i}.png")))?;
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let folder = match std::env::args().nth(1) {
        Some(folder) => PathBuf::from(folder),
        None => {
            let folder = std::env::temp_dir().join("foldex-stream-images");
            if !folder.join("cool").is_dir() {
                write_images(&folder)?;
            }
            folder
        }
    };
    let mut classes: Vec<PathBuf> = std::fs::read_dir(&folder)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    classes.sort();
    classes.truncate(2);
    let walk_root = folder.clone();
    let loader = StreamLoader::new(
        move || {
            walkdir::WalkDir::new(&walk_root)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
                .map(walkdir::DirEntry::into_path)
        },
        move |path: &PathBuf| decode(path, &classes),
        ThreadedEx::new().basesize(1),
    )
    .batch_size(16)
    .shuffle_buffer(256, 7);

    // Logistic regression by stochastic gradient descent, one step per batch.
    let (mut w, mut b) = ([0f32; 3], 0f32);
    let predict = |w: &[f32; 3], b: f32, x: &[f32; 3]| {
        let z: f32 = w.iter().zip(x).map(|(w, x)| w * x).sum::<f32>() + b;
        1.0 / (1.0 + (-z).exp())
    };
    for epoch in 0..5 {
        let started = Instant::now();
        let (mut seen, mut right) = (0usize, 0usize);
        let mut batches = loader.iter();
        for batch in batches.by_ref() {
            let (mut gw, mut gb) = ([0f32; 3], 0f32);
            for (x, y) in &batch {
                let p = predict(&w, b, x);
                right += usize::from((p > 0.5) == (*y > 0.5));
                for (g, xi) in gw.iter_mut().zip(x) {
                    *g += (p - y) * xi;
                }
                gb += p - y;
            }
            let rate = 2.0 / batch.len() as f32;
            for (wi, g) in w.iter_mut().zip(gw) {
                *wi -= rate * g;
            }
            b -= rate * gb;
            seen += batch.len();
        }
        println!(
            "epoch {epoch}: {seen} images in {:.0?}, accuracy {:.3}, {:?}",
            started.elapsed(),
            right as f64 / seen.max(1) as f64,
            batches.stats().verdict()
        );
    }
    Ok(())
}
