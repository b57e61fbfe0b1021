//! torchvision's `ImageFolder`: a directory with a subdirectory per class, its images decoded
//! with the `image` crate when loaded, then transformed with the observation's generator.

use crate::augment::{Identity, ItemTransform};
use crate::error::DataError;
use foldex_dataset::{rng_for, Dataset, ItemContext};
use image::RgbImage;
use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// The file extensions read as images (compared without case).
pub const IMAGE_EXTENSIONS: [&str; 3] = ["png", "jpg", "jpeg"];

/// Images in a directory of class subdirectories (`root/cat/001.png`, `root/dog/7.jpg`, …):
/// observation `i` is `(transform(image), label)`, the label being the class's place among the
/// subdirectories' names in sorted order. Images are found in each class's subdirectory and
/// below it, in sorted path order; other files are left out.
///
/// Links are followed, as torchvision's `ImageFolder` follows them: a link to a directory
/// outside the root adds that directory's images to the class it is under, and a directory
/// reached twice within a class is entered once. A link that leads back to a directory the
/// walk is inside (the root, a directory above it, or one between the root and the link) is
/// a cycle: [`open`](Self::open) refuses it with [`DataError::LinkCycle`] naming the link,
/// rather than label the images it leads to again under another class.
///
/// Each image is decoded (as 8-bit RGB) and transformed when it is loaded, with the
/// observation's generator ([`ItemContext::rng`](foldex_dataset::ItemContext::rng)), so that a
/// random crop or flip is the same on every executor and after resumption. An image that
/// cannot be read or decoded is an `Err` naming its file (route it through an
/// `ErrorPolicy`, which adds its index).
///
/// ```no_run
/// use foldex_data::augment::{RandomFlip, Resize, ToChw};
/// use foldex_data::{ImageFolder, ItemTransform};
/// use foldex_dataset::Dataset;
/// use foldex_loader::{Checked, ErrorPolicy, Loader};
/// use foldex_threaded::ThreadedEx;
///
/// let images = ImageFolder::open("data/train")?.transform(
///     Resize { width: 64, height: 64 }.then(RandomFlip { p: 0.5 }).then(ToChw::IMAGENET),
/// );
/// println!("{} images of {:?}", images.len(), images.classes());
/// let loader = Loader::new(Checked::new(images, ErrorPolicy::skip()), ThreadedEx::new().basesize(1)).batch_size(32).shuffle(0);
/// for batch in &loader {
///     let (chw, labels): (Vec<Vec<f32>>, Vec<usize>) = batch.into_iter().unzip();
/// }
/// # Ok::<(), foldex_data::DataError>(())
/// ```
pub struct ImageFolder<T = Identity> {
    root: PathBuf,
    classes: Vec<String>,
    files: Vec<PathBuf>,
    labels: Vec<usize>,
    transform: T,
}

impl<T> fmt::Debug for ImageFolder<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImageFolder")
            .field("root", &self.root)
            .field("classes", &self.classes)
            .field("images", &self.files.len())
            .finish_non_exhaustive()
    }
}

impl ImageFolder {
    /// Scans `root`: its subdirectories are the classes, the images below each its
    /// observations.
    ///
    /// # Errors
    /// `root` or a directory below it cannot be read; `root` has no subdirectory, or no image;
    /// a link below it leads back to a directory the walk is inside
    /// ([`DataError::LinkCycle`], see the type's doc).
    pub fn open(root: impl AsRef<Path>) -> Result<Self, DataError> {
        let root = root.as_ref().to_path_buf();
        let canonical_root = root.canonicalize().map_err(|e| DataError::io(&root, e))?;
        let mut class_dirs: Vec<PathBuf> = entries(&root)?
            .into_iter()
            .filter(|path| path.is_dir())
            .collect();
        class_dirs.sort();
        if class_dirs.is_empty() {
            return Err(DataError::Empty {
                path: root,
                looked_for: "class subdirectories",
            });
        }
        let mut classes = Vec::with_capacity(class_dirs.len());
        let (mut files, mut labels) = (Vec::new(), Vec::new());
        for (label, dir) in class_dirs.iter().enumerate() {
            classes.push(
                dir.file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            );
            let mut images = Vec::new();
            let mut walking = vec![canonical_root.clone()];
            collect_images(dir, &mut images, &mut HashSet::new(), &mut walking)?;
            images.sort();
            labels.extend(std::iter::repeat_n(label, images.len()));
            files.extend(images);
        }
        if files.is_empty() {
            return Err(DataError::Empty {
                path: root,
                looked_for: "images (.png, .jpg, .jpeg) in its class subdirectories",
            });
        }
        Ok(Self {
            root,
            classes,
            files,
            labels,
            transform: Identity,
        })
    }
}

impl<T> ImageFolder<T> {
    /// The same images, each transformed by `transform` after decoding.
    pub fn transform<U: ItemTransform<RgbImage>>(self, transform: U) -> ImageFolder<U> {
        ImageFolder {
            root: self.root,
            classes: self.classes,
            files: self.files,
            labels: self.labels,
            transform,
        }
    }

    /// The class names (the subdirectories' names, sorted); label `k` is `classes()[k]`.
    pub fn classes(&self) -> &[String] {
        &self.classes
    }

    /// Every observation's label, by index: for [`stratified_split`](crate::DatasetExt::stratified_split),
    /// [`oversample`](crate::DatasetExt::oversample) and
    /// [`Weighted`](foldex_dataset::sampler::Weighted) weights.
    pub fn labels(&self) -> &[usize] {
        &self.labels
    }

    /// The file of observation `index`.
    pub fn path(&self, index: usize) -> &Path {
        &self.files[index]
    }

    /// The directory scanned.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl<T: ItemTransform<RgbImage>> Dataset for ImageFolder<T> {
    type Item = Result<(T::Output, usize), DataError>;

    fn len(&self) -> usize {
        self.files.len()
    }

    fn get(&self, index: usize) -> Self::Item {
        let path = &self.files[index];
        let decoded = image::open(path).map_err(|e| match e {
            image::ImageError::IoError(io) => DataError::io(path, io),
            other => DataError::malformed(path, other.to_string()),
        })?;
        let mut rng = ItemContext::current().map_or_else(|| rng_for(0, 0, index), |cx| cx.rng());
        let image = self.transform.apply(decoded.into_rgb8(), &mut rng);
        Ok((image, self.labels[index]))
    }
}

/// The paths in directory `dir`.
fn entries(dir: &Path) -> Result<Vec<PathBuf>, DataError> {
    let read = std::fs::read_dir(dir).map_err(|e| DataError::io(dir, e))?;
    read.map(|entry| entry.map(|e| e.path()).map_err(|e| DataError::io(dir, e)))
        .collect()
}

/// Adds the images in `dir` and below it to `images`, following links to directories and
/// entering each directory once (`seen` holds their canonical paths). `walking` holds the
/// canonical paths of the directories the walk is inside, from the root down to `dir`'s
/// parent: a `dir` that holds one of them is reached through a link cycle, refused by name.
fn collect_images(
    dir: &Path,
    images: &mut Vec<PathBuf>,
    seen: &mut HashSet<PathBuf>,
    walking: &mut Vec<PathBuf>,
) -> Result<(), DataError> {
    let canonical = dir.canonicalize().map_err(|e| DataError::io(dir, e))?;
    if walking.iter().any(|inside| inside.starts_with(&canonical)) {
        return Err(DataError::LinkCycle {
            link: dir.to_path_buf(),
            target: canonical,
        });
    }
    if !seen.insert(canonical.clone()) {
        return Ok(());
    }
    walking.push(canonical);
    for path in entries(dir)? {
        if path.is_dir() {
            collect_images(&path, images, seen, walking)?;
        } else if is_image(&path) {
            images.push(path);
        }
    }
    walking.pop();
    Ok(())
}

fn is_image(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        IMAGE_EXTENSIONS
            .iter()
            .any(|known| e.eq_ignore_ascii_case(known))
    })
}
