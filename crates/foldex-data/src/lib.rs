//! Datasets around the foldex loader: the toolkit of MLUtils.jl and `torch.utils.data`.
//!
//! - **Views** ([`DatasetExt`]): `subset`, `take`, `skip`, `chain`, `zip`, `filter` (its index
//!   list made once, in parallel on an executor), `random_split` and `stratified_split` by
//!   fractions, `k_folds`, `oversample` and `undersample` by label. Views share the dataset and
//!   copy no observation.
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
mod records;
mod view;

pub use csv_rows::CsvRows;
pub use error::DataError;
pub use ext::{DatasetExt, Fold};
pub use records::Records;
pub use view::{Chain, Subset, Zip};
