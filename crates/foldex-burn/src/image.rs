//! A burn batcher for images: the items of foldex-data's `ImageFolder` into one
//! `[N, 3, H, W]` float tensor and a tensor of classes.

use burn::data::dataloader::batcher::Batcher;
use burn::tensor::{Device, Int, Tensor, TensorData};
use foldex_data::augment::ToChw;
use image::RgbImage;

/// Makes an [`ImageBatch`] of items `(image, class)`, as foldex-data's `ImageFolder` yields
/// them (after its transforms, such as a random crop to one size): the images stacked into one
/// `[N, 3, H, W]` `f32` tensor, scaled to `0..1` or normalised by channel (as foldex-data's
/// [`ToChw`] does one image), the classes into an `[N]` int tensor, both on the loader's
/// device.
///
/// No extra copy: each pixel is read from its image once and written once, scaled, into the
/// batch's one buffer, which the tensor then takes over (burn's `TensorData` owns its bytes,
/// and a tensor made from it on the CPU keeps them). Converting each image first and stacking
/// after would write every value twice.
///
/// ```
/// use burn::data::dataloader::batcher::Batcher;
/// use burn::tensor::Device;
/// use foldex_burn::ImageBatcher;
/// use image::{Rgb, RgbImage};
///
/// let items = vec![
///     (RgbImage::from_pixel(4, 2, Rgb([255, 0, 0])), 1),
///     (RgbImage::from_pixel(4, 2, Rgb([0, 0, 255])), 0),
/// ];
/// let batch = ImageBatcher::default().batch(items, &Device::default());
/// assert_eq!(batch.images.dims(), [2, 3, 2, 4]); // [N, channels, height, width]
/// let values = batch.images.into_data().try_to_vec::<f32>().unwrap();
/// assert_eq!(&values[..8], &[1.0; 8]); // item 0's red plane
/// assert_eq!(&values[16..24], &[0.0; 8]); // item 1's red plane
/// assert_eq!(batch.targets.into_data().try_to_vec::<i64>().unwrap(), vec![1, 0]);
/// ```
///
/// # Panics
/// If an item's image is not the size of the batch's first, naming the item's index in the
/// batch and both sizes (the panic reaches the training loop's `next()`, as any panic of a
/// batcher does): crop or resize the images to one size first.
#[derive(Debug, Clone, Copy)]
pub struct ImageBatcher {
    /// How each pixel becomes three values: scaled by `1 / 255`, less a channel's mean,
    /// divided by its standard deviation.
    pub chw: ToChw,
}

impl ImageBatcher {
    /// Normalises each channel `c` as `(x / 255 - mean[c]) / std[c]`.
    pub fn normalized(mean: [f32; 3], std: [f32; 3]) -> Self {
        Self {
            chw: ToChw { mean, std },
        }
    }
}

impl Default for ImageBatcher {
    /// Values scaled to `0..1` ([`ToChw::UNIT`]).
    fn default() -> Self {
        Self { chw: ToChw::UNIT }
    }
}

/// A batch of [`ImageBatcher`].
#[derive(Debug, Clone)]
pub struct ImageBatch {
    /// `[N, 3, H, W]`: item `k`'s image, its red, green and blue planes.
    pub images: Tensor<4>,
    /// `[N]`: the classes.
    pub targets: Tensor<1, Int>,
}

impl Batcher<(RgbImage, usize), ImageBatch> for ImageBatcher {
    fn batch(&self, items: Vec<(RgbImage, usize)>, device: &Device) -> ImageBatch {
        let n = items.len();
        let (width, height) = items
            .first()
            .map_or((0, 0), |(image, _)| image.dimensions());
        let size = 3 * width as usize * height as usize;
        let mut images = vec![0.0f32; n * size];
        let mut targets = Vec::with_capacity(n);
        for (k, (image, class)) in items.iter().enumerate() {
            assert_eq!(
                image.dimensions(),
                (width, height),
                "item {k} of the batch is {}x{} pixels, its first item {width}x{height}",
                image.width(),
                image.height()
            );
            self.chw.write(image, &mut images[k * size..(k + 1) * size]);
            targets.push(*class as i64);
        }
        let shape = [n, 3, height as usize, width as usize];
        ImageBatch {
            images: Tensor::from_data(TensorData::new(images, shape), device),
            targets: Tensor::from_data(TensorData::new(targets, [n]), device),
        }
    }
}
