//! Datasets around the foldex loader: the toolkit of MLUtils.jl and `torch.utils.data`.
//!
//! - **Views** ([`DatasetExt`]): `subset`, `take`, `skip`, `chain`, `zip`, `filter` (its index
//!   list made once, in parallel on an executor), `random_split` and `stratified_split` by
//!   fractions, `k_folds`, `oversample` and `undersample` by label. Views share the dataset and
//!   copy no observation.
//! - **Images**: [`ImageFolder`] (a subdirectory per class, decoded with the `image` crate),
//!   with [`ItemTransform`]s ([`augment`]: `Resize`, `RandomCrop`, `CenterCrop`, `RandomFlip`,
//!   `ToChw`) that draw from each observation's generator.
//! - **Files**: [`Records`] (fixed-size records read by position), [`CsvRows`] (rows
//!   deserialized with `serde`).
//! - **Collates**: [`Stack`] (observations of one length, a leading batch axis) and [`Padded`]
//!   (sequences padded to the longest, with lengths and a mask); with the `ndarray` feature,
//!   `StackArrays` (arrays of one shape into one with a leading batch axis).
//!
//! The `Dataset` trait, samplers and the item's epoch, generator and worker are
//! [`foldex_dataset`]'s; the loader that runs them on an executor is `foldex-loader`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "ndarray")]
mod arrays;
pub mod augment;
mod collate;
mod csv_rows;
mod error;
mod ext;
mod image_folder;
mod records;
pub mod view;

#[cfg(feature = "ndarray")]
pub use arrays::StackArrays;
pub use augment::ItemTransform;
pub use collate::{Padded, PaddedBatch, Stack, Stacked};
pub use csv_rows::CsvRows;
pub use error::DataError;
pub use ext::{DatasetExt, KFold};
pub use image_folder::{ImageFolder, IMAGE_EXTENSIONS};
pub use records::Records;
