//! A real input pipeline: decode PNG and JPEG files from a folder, resize them, normalise them
//! to `f32` CHW, and collate batches, in parallel, into reused buffers.
//!
//! ```text
//! cargo run --release -p foldex-loader --example images -- [FOLDER] [SIDE]
//! ```
//!
//! Without a folder it writes 256 images of mixed sizes to a temporary folder first.

use foldex_dataset::{collate::in_place, Dataset};
use foldex_loader::Loader;
use foldex_taskpool::TaskPoolEx;
use image::imageops::{self, FilterType};
use image::{ImageFormat, Rgb, RgbImage};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Per-channel mean and standard deviation (ImageNet's), for normalisation.
const MEAN: [f32; 3] = [0.485, 0.456, 0.406];
const STD: [f32; 3] = [0.229, 0.224, 0.225];

/// The images of a folder, each decoded, resized to `side x side` and normalised to CHW.
struct ImageFolder {
    files: Vec<PathBuf>,
    side: u32,
}

impl ImageFolder {
    fn open(folder: &Path, side: u32) -> std::io::Result<Self> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(folder)?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| {
                let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
                matches!(ext.to_ascii_lowercase().as_str(), "png" | "jpg" | "jpeg")
            })
            .collect();
        files.sort();
        Ok(Self { files, side })
    }
}

impl Dataset for ImageFolder {
    type Item = Vec<f32>;

    fn len(&self) -> usize {
        self.files.len()
    }

    fn get(&self, index: usize) -> Vec<f32> {
        let mut chw = Vec::new();
        self.get_into(index, &mut chw);
        chw
    }

    /// Decodes into the caller's buffer: with buffer reuse, the normalised image lands in
    /// memory the loader already owns.
    fn get_into(&self, index: usize, chw: &mut Vec<f32>) {
        let path = &self.files[index];
        let decoded = image::open(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .into_rgb8();
        let resized = imageops::resize(&decoded, self.side, self.side, FilterType::Triangle);
        let plane = (self.side * self.side) as usize;
        chw.clear();
        chw.resize(3 * plane, 0.0);
        for (p, pixel) in resized.pixels().enumerate() {
            for c in 0..3 {
                chw[c * plane + p] = (f32::from(pixel[c]) / 255.0 - MEAN[c]) / STD[c];
            }
        }
    }
}

/// Writes `count` images of varying sizes (every third one a JPEG) to `folder`.
fn write_images(folder: &Path, count: usize) -> image::ImageResult<()> {
    std::fs::create_dir_all(folder)?;
    for i in 0..count {
        let (w, h) = (96 + (i % 5) as u32 * 32, 80 + (i % 3) as u32 * 48);
        let img = RgbImage::from_fn(w, h, |x, y| {
            Rgb([
                (x * 3 + i as u32) as u8,
                (y * 5) as u8,
                ((x ^ y) + i as u32 * 7) as u8,
            ])
        });
        let (name, format) = if i % 3 == 0 {
            (format!("img{i:04}.jpg"), ImageFormat::Jpeg)
        } else {
            (format!("img{i:04}.png"), ImageFormat::Png)
        };
        img.save_with_format(folder.join(name), format)?;
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (folder, generated) = match args.next() {
        Some(folder) => (PathBuf::from(folder), false),
        None => {
            let folder = std::env::temp_dir().join(format!("foldex-images-{}", std::process::id()));
            write_images(&folder, 256)?;
            (folder, true)
        }
    };
    let side: u32 = args.next().map_or(Ok(64), |s| s.parse())?;
    let dataset = ImageFolder::open(&folder, side)?;
    let images = dataset.len();
    let plane = (side * side) as usize;

    // Stack a batch's CHW images into one NCHW tensor, in a buffer the loader reuses.
    let stack = in_place(|items: &[Vec<f32>], nchw: &mut Vec<f32>| {
        nchw.clear();
        for chw in items {
            nchw.extend_from_slice(chw);
        }
    });
    let loader = Loader::new(dataset, TaskPoolEx::new().background(true))
        .batch_size(32)
        .shuffle(0)
        .collate(stack)
        .reuse_buffers(true);

    for epoch in 0..2 {
        let started = Instant::now();
        let mut iter = loader.iter();
        let mut checksum = 0.0f64;
        let mut seen = 0;
        for batch in iter.by_ref() {
            // The training step would read the NCHW tensor here.
            seen += batch.len() / (3 * plane);
            checksum += batch.iter().map(|&x| f64::from(x)).sum::<f64>();
        }
        assert_eq!(seen, images);
        println!(
            "epoch {epoch}: {images} images ({side}x{side}) in {:.1?}, checksum {checksum:.3}",
            started.elapsed()
        );
        println!("  {}", iter.stats());
    }
    if generated {
        std::fs::remove_dir_all(&folder)?;
    }
    Ok(())
}
