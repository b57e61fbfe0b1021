//! Image transforms that draw from the observation's own generator (so an augmentation is the
//! same on every executor and after resumption), and the conversion to normalised `f32` CHW.

use foldex_dataset::ItemRng;
use image::imageops::{self, FilterType};
use image::RgbImage;

/// A step that turns one observation into another, drawing any randomness from `rng`, the
/// observation's generator ([`ItemContext::rng`](foldex_dataset::ItemContext::rng)). Closures
/// `Fn(In, &mut ItemRng) -> Out` are transforms; [`ItemTransform::then`] chains them.
pub trait ItemTransform<In>: Send + Sync {
    /// What the step makes.
    type Output;

    /// Applies the step.
    fn apply(&self, input: In, rng: &mut ItemRng) -> Self::Output;

    /// This step, then `next` on its output.
    fn then<T: ItemTransform<Self::Output>>(self, next: T) -> Composed<Self, T>
    where
        Self: Sized,
    {
        Composed(self, next)
    }
}

impl<In, Out, F> ItemTransform<In> for F
where
    F: Fn(In, &mut ItemRng) -> Out + Send + Sync,
{
    type Output = Out;
    fn apply(&self, input: In, rng: &mut ItemRng) -> Out {
        self(input, rng)
    }
}

/// Two transforms in turn: [`ItemTransform::then`].
#[derive(Debug, Clone, Copy)]
pub struct Composed<A, B>(A, B);

impl<In, A: ItemTransform<In>, B: ItemTransform<A::Output>> ItemTransform<In> for Composed<A, B> {
    type Output = B::Output;
    fn apply(&self, input: In, rng: &mut ItemRng) -> B::Output {
        let middle = self.0.apply(input, rng);
        self.1.apply(middle, rng)
    }
}

/// Leaves the image as decoded.
#[derive(Debug, Clone, Copy, Default)]
pub struct Identity;

impl<In> ItemTransform<In> for Identity {
    type Output = In;
    fn apply(&self, input: In, _: &mut ItemRng) -> In {
        input
    }
}

/// Resizes to `width × height` (bilinear), ignoring the aspect ratio.
#[derive(Debug, Clone, Copy)]
pub struct Resize {
    /// The width after.
    pub width: u32,
    /// The height after.
    pub height: u32,
}

impl ItemTransform<RgbImage> for Resize {
    type Output = RgbImage;
    fn apply(&self, image: RgbImage, _: &mut ItemRng) -> RgbImage {
        if image.dimensions() == (self.width, self.height) {
            return image;
        }
        imageops::resize(&image, self.width, self.height, FilterType::Triangle)
    }
}

/// Cuts a `width × height` window at a random place (the whole image, resized up first, when
/// it is smaller than the window).
#[derive(Debug, Clone, Copy)]
pub struct RandomCrop {
    /// The window's width.
    pub width: u32,
    /// The window's height.
    pub height: u32,
}

impl ItemTransform<RgbImage> for RandomCrop {
    type Output = RgbImage;
    fn apply(&self, image: RgbImage, rng: &mut ItemRng) -> RgbImage {
        crop(image, (self.width, self.height), |w, h| {
            let x = rng.gen_range(0..(w - self.width + 1) as usize) as u32;
            let y = rng.gen_range(0..(h - self.height + 1) as usize) as u32;
            (x, y)
        })
    }
}

/// Cuts the `width × height` window at the centre (the whole image, resized up first, when it
/// is smaller than the window).
#[derive(Debug, Clone, Copy)]
pub struct CenterCrop {
    /// The window's width.
    pub width: u32,
    /// The window's height.
    pub height: u32,
}

impl ItemTransform<RgbImage> for CenterCrop {
    type Output = RgbImage;
    fn apply(&self, image: RgbImage, _: &mut ItemRng) -> RgbImage {
        crop(image, (self.width, self.height), |w, h| {
            ((w - self.width) / 2, (h - self.height) / 2)
        })
    }
}

/// The `width × height` window of `image` whose corner `corner(w, h)` picks from the image's
/// size, the image first resized up to cover the window when it is smaller.
fn crop(
    image: RgbImage,
    (width, height): (u32, u32),
    corner: impl FnOnce(u32, u32) -> (u32, u32),
) -> RgbImage {
    let (w, h) = image.dimensions();
    let image = if w < width || h < height {
        imageops::resize(&image, w.max(width), h.max(height), FilterType::Triangle)
    } else {
        image
    };
    let (x, y) = corner(image.width(), image.height());
    imageops::crop_imm(&image, x, y, width, height).to_image()
}

/// Mirrors left to right with probability `p`.
#[derive(Debug, Clone, Copy)]
pub struct RandomFlip {
    /// The probability of a flip.
    pub p: f64,
}

impl ItemTransform<RgbImage> for RandomFlip {
    type Output = RgbImage;
    fn apply(&self, mut image: RgbImage, rng: &mut ItemRng) -> RgbImage {
        if rng.gen_bool(self.p) {
            imageops::flip_horizontal_in_place(&mut image);
        }
        image
    }
}

/// `u8` HWC pixels to `f32` CHW, each channel `c` as `(x / 255 - mean[c]) / std[c]` (to
/// within rounding: computed as one multiply and one subtract).
#[derive(Debug, Clone, Copy)]
pub struct ToChw {
    /// Per-channel means, subtracted after scaling to `[0, 1]`.
    pub mean: [f32; 3],
    /// Per-channel standard deviations, divided by last.
    pub std: [f32; 3],
}

impl ToChw {
    /// Scaled to `[0, 1]`, nothing more.
    pub const UNIT: Self = Self {
        mean: [0.0; 3],
        std: [1.0; 3],
    };

    /// Normalised with ImageNet's channel statistics.
    pub const IMAGENET: Self = Self {
        mean: [0.485, 0.456, 0.406],
        std: [0.229, 0.224, 0.225],
    };
}

impl ToChw {
    /// Writes `image` as CHW values into `chw`, which holds exactly its `3 × width × height`
    /// values: what [`apply`](ItemTransform::apply) does into a vector of its own, for a
    /// caller that writes many images into one buffer (a batch's).
    ///
    /// ```
    /// use foldex_data::augment::ToChw;
    /// use image::{Rgb, RgbImage};
    ///
    /// let mut batch = vec![0.0; 2 * 3];
    /// for (k, chw) in batch.chunks_exact_mut(3).enumerate() {
    ///     ToChw::UNIT.write(&RgbImage::from_pixel(1, 1, Rgb([255 * k as u8, 0, 0])), chw);
    /// }
    /// assert_eq!(batch, [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    /// ```
    ///
    /// # Panics
    /// If `chw` does not hold exactly the image's values, naming both lengths.
    pub fn write(&self, image: &RgbImage, chw: &mut [f32]) {
        let raw = image.as_raw();
        assert_eq!(
            chw.len(),
            raw.len(),
            "a buffer of {} values for an image of {} values",
            chw.len(),
            raw.len()
        );
        let plane = raw.len() / 3;
        // `(x / 255 - mean) / std` as one multiply and one subtract per value, in one pass
        // over the pixels that writes the three planes side by side.
        let scale = [0, 1, 2].map(|c| 1.0 / (255.0 * self.std[c]));
        let shift = [0, 1, 2].map(|c| self.mean[c] / self.std[c]);
        let (red, rest) = chw.split_at_mut(plane);
        let (green, blue) = rest.split_at_mut(plane);
        let planes = red.iter_mut().zip(green.iter_mut()).zip(blue.iter_mut());
        for (pixel, ((r, g), b)) in raw.chunks_exact(3).zip(planes) {
            *r = f32::from(pixel[0]) * scale[0] - shift[0];
            *g = f32::from(pixel[1]) * scale[1] - shift[1];
            *b = f32::from(pixel[2]) * scale[2] - shift[2];
        }
    }
}

impl ItemTransform<RgbImage> for ToChw {
    type Output = Vec<f32>;
    fn apply(&self, image: RgbImage, _: &mut ItemRng) -> Vec<f32> {
        let mut chw = vec![0.0f32; image.as_raw().len()];
        self.write(&image, &mut chw);
        chw
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foldex_dataset::rng_for;
    use image::Rgb;

    fn gradient(w: u32, h: u32) -> RgbImage {
        RgbImage::from_fn(w, h, |x, y| Rgb([x as u8, y as u8, 7]))
    }

    #[test]
    fn crops_fit_and_draw_from_the_generator() {
        let crop = RandomCrop {
            width: 4,
            height: 3,
        };
        let a = crop.apply(gradient(10, 8), &mut rng_for(1, 0, 5));
        let b = crop.apply(gradient(10, 8), &mut rng_for(1, 0, 5));
        assert_eq!(a.dimensions(), (4, 3));
        assert_eq!(a, b, "the same generator, the same crop");
        let corners: std::collections::HashSet<(u8, u8)> = (0..50)
            .map(|i| {
                let c = crop.apply(gradient(10, 8), &mut rng_for(1, 0, i));
                (c.get_pixel(0, 0)[0], c.get_pixel(0, 0)[1])
            })
            .collect();
        assert!(corners.len() > 10, "crops move: {corners:?}");
        let small = crop.apply(gradient(2, 2), &mut rng_for(0, 0, 0));
        assert_eq!(
            small.dimensions(),
            (4, 3),
            "a small image is resized up first"
        );
        let centre = CenterCrop {
            width: 2,
            height: 2,
        }
        .apply(gradient(6, 4), &mut rng_for(0, 0, 0));
        assert_eq!(centre.get_pixel(0, 0).0, [2, 1, 7]);
    }

    #[test]
    fn a_flip_mirrors_and_chw_normalises_by_channel() {
        let always = RandomFlip { p: 1.0 }.apply(gradient(3, 1), &mut rng_for(0, 0, 0));
        assert_eq!(always.get_pixel(0, 0)[0], 2);
        let never = RandomFlip { p: 0.0 }.apply(gradient(3, 1), &mut rng_for(0, 0, 0));
        assert_eq!(never.get_pixel(0, 0)[0], 0);
        let chain = Resize {
            width: 2,
            height: 1,
        }
        .then(ToChw::UNIT);
        let chw = chain.apply(gradient(2, 1), &mut rng_for(0, 0, 0));
        let expected = [0.0, 1.0 / 255.0, 0.0, 0.0, 7.0 / 255.0, 7.0 / 255.0];
        assert!(
            chw.iter().zip(expected).all(|(x, e)| (x - e).abs() < 1e-6),
            "{chw:?}"
        );
        let normalised = ToChw::IMAGENET.apply(gradient(1, 1), &mut rng_for(0, 0, 0));
        assert!((normalised[0] - (0.0 - 0.485) / 0.229).abs() < 1e-6);
        assert!((normalised[2] - (7.0 / 255.0 - 0.406) / 0.225).abs() < 1e-6);
    }
}
