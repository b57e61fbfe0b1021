//! Shared helpers for the criterion benchmarks in `benches/benches/` and the examples in
//! `benches/examples/`.
#![forbid(unsafe_code)]

/// The criterion settings of the fold benchmarks (`threaded`, `pipelines`, `auto`): 1 s of
/// warm-up, 3 s of measurement, 20 samples.
pub fn fold_criterion() -> criterion::Criterion {
    criterion::Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3))
        .sample_size(20)
}

/// Spins the current thread for about `nanos` nanoseconds of CPU work, without sleeping: the
/// CPU-bound stand-in for an item of known cost.
pub fn spin_for(nanos: u64) {
    let start = std::time::Instant::now();
    while (start.elapsed().as_nanos() as u64) < nanos {
        std::hint::spin_loop();
    }
}

/// The reference pipeline: rayon's `for_each_with` computing `item(i)` for `i` in `0..n` and
/// sending it into crossbeam-channel's `bounded(buffer)`, drained by the calling thread with
/// `take`, starting from `init`.
pub fn rayon_crossbeam<T: Send, A>(
    n: usize,
    buffer: usize,
    item: impl Fn(usize) -> T + Sync + Send,
    init: A,
    take: impl FnMut(A, T) -> A,
) -> A {
    use rayon::prelude::*;
    let (tx, rx) = crossbeam_channel::bounded(buffer);
    std::thread::scope(|s| {
        s.spawn(|| {
            (0..n)
                .into_par_iter()
                .for_each_with(tx, |tx, i| tx.send(item(i)).unwrap())
        });
        rx.iter().fold(init, take)
    })
}

/// One epoch of the loader's reference pipeline ([`rayon_crossbeam`]); returns the wrapping
/// sum of what arrived.
pub fn rayon_crossbeam_epoch(
    n: usize,
    buffer: usize,
    item: impl Fn(usize) -> usize + Sync + Send,
) -> usize {
    rayon_crossbeam(n, buffer, item, 0usize, |acc, x| {
        acc.wrapping_add(std::hint::black_box(x))
    })
}

/// Writes `count` images of mixed sizes (128 to 224 wide, 96 to 224 high) to the folders
/// `folder_of(i)` picks, each a PNG or, where `jpeg(i)`, a JPEG; returns their paths in order.
/// The pixels depend on `i`, so that decoding does real work.
pub fn write_images(
    count: usize,
    folder_of: impl Fn(usize) -> std::path::PathBuf,
    jpeg: impl Fn(usize) -> bool,
) -> Vec<std::path::PathBuf> {
    use image::{ImageFormat, Rgb, RgbImage};
    (0..count)
        .map(|i| {
            let folder = folder_of(i);
            std::fs::create_dir_all(&folder).expect("a folder for the images");
            let (w, h) = (128 + (i % 4) as u32 * 32, 96 + (i % 3) as u32 * 64);
            let img = RgbImage::from_fn(w, h, |x, y| {
                Rgb([(x + i as u32) as u8, (y * 3) as u8, (x * y) as u8])
            });
            let (name, format) = if jpeg(i) {
                (format!("{i:04}.jpg"), ImageFormat::Jpeg)
            } else {
                (format!("{i:04}.png"), ImageFormat::Png)
            };
            let path = folder.join(name);
            img.save_with_format(&path, format)
                .expect("an image written");
            path
        })
        .collect()
}

/// `lines` lines of text (each ending in `\n`) of 4 to 16 words drawn from a vocabulary of 10^4,
/// the common words far more often than the rare ones, and most of the vocabulary in any few
/// thousand lines: a word count's `HashMap` grows to thousands of entries.
pub fn word_lines(lines: usize) -> String {
    // Word `i`: its number in three base-26 letters (so no two words are the same), then 0 to 8
    // more letters.
    let letter = |n: u64| char::from(b'a' + (n % 26) as u8);
    let vocabulary: Vec<String> = (0..10_000u64)
        .map(|i| {
            let tail = (i * 7919 % 9) as usize;
            [i / 676, i / 26, i]
                .into_iter()
                .map(letter)
                .chain((0..tail).map(|k| letter(i * 31 + k as u64 * 17)))
                .collect()
        })
        .collect();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut text = String::new();
    for _ in 0..lines {
        let words = 4 + next() % 13;
        for w in 0..words {
            if w > 0 {
                text.push(' ');
            }
            let r = next() % 10_000;
            text.push_str(&vocabulary[(r * r / 10_000) as usize]);
        }
        text.push('\n');
    }
    text
}
