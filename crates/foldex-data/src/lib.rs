//! Datasets around the foldex loader: the toolkit of MLUtils.jl and `torch.utils.data`.
//!
//! - **Views** ([`DatasetExt`]): `subset`, `take`, `skip`, `chain`, `zip`, `filter` (its index
//!   list made once, in parallel on an executor), `random_split` and `stratified_split` by
//!   fractions, `k_folds`, `oversample` and `undersample` by label. Views share the dataset and
//!   copy no observation.
//! - **Images**: [`ImageFolder`] (a subdirectory per class, decoded with the `image` crate),
//!   with [`Transform`]s ([`Resize`], [`RandomCrop`], [`CenterCrop`], [`RandomFlip`],
//!   [`ToChw`]) that draw from each observation's generator.
//! - **Files**: [`Records`] (fixed-size records read by position), [`CsvRows`] (rows
//!   deserialized with `serde`).
//!
//! The loader itself (batches, samplers, the item's epoch, generator and worker) is
//! [`foldex_loader`].
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod csv_rows;
mod error;
mod ext;
mod image_folder;
mod records;
mod transform;
mod view;

pub use csv_rows::CsvRows;
pub use error::DataError;
pub use ext::{DatasetExt, Fold};
pub use image_folder::{ImageFolder, IMAGE_EXTENSIONS};
pub use records::Records;
pub use transform::{CenterCrop, Identity, RandomCrop, RandomFlip, Resize, Then, ToChw, Transform};
pub use view::{Chain, Subset, Zip};
