//! The rows of a CSV file as a dataset, each deserialized into a type of the user's when it is
//! loaded (the `csv` crate, with `serde`).

use crate::error::DataError;
use foldex_dataset::Dataset;
use serde::de::DeserializeOwned;
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

/// The rows of a CSV file with a header line: observation `i` is row `i` deserialized into `T`
/// by column name. The file is read and split into fields once, when opened; a row that does
/// not fit `T` is an `Err` naming its line (route it through an
/// `ErrorPolicy`).
///
/// ```
/// use foldex_data::CsvRows;
/// use foldex_dataset::Dataset;
///
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Flower { sepal: f32, petal: f32, species: String }
///
/// let path = std::env::temp_dir().join("foldex-doc-flowers.csv");
/// std::fs::write(&path, "sepal,petal,species\n5.1,1.4,setosa\n7.0,4.7,versicolor\n")?;
/// let flowers = CsvRows::<Flower>::open(&path)?;
/// assert_eq!(flowers.len(), 2);
/// assert_eq!(flowers.get(1)?.species, "versicolor");
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct CsvRows<T> {
    path: PathBuf,
    headers: csv::StringRecord,
    rows: Vec<csv::StringRecord>,
    row: PhantomData<fn() -> T>,
}

impl<T> fmt::Debug for CsvRows<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CsvRows")
            .field("path", &self.path)
            .field("headers", &self.headers)
            .field("rows", &self.rows.len())
            .finish()
    }
}

impl<T> CsvRows<T> {
    /// Reads the CSV file at `path` (a header line, then rows of as many fields).
    ///
    /// # Errors
    /// The file cannot be read, or a row has another number of fields than the header (named
    /// with its line).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, DataError> {
        let path = path.as_ref().to_path_buf();
        let mut reader = csv::Reader::from_path(&path).map_err(|e| csv_error(&path, e))?;
        let headers = reader.headers().map_err(|e| csv_error(&path, e))?.clone();
        let rows = reader
            .records()
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| csv_error(&path, e))?;
        Ok(Self {
            path,
            headers,
            rows,
            row: PhantomData,
        })
    }

    /// The header line's column names.
    pub fn headers(&self) -> &csv::StringRecord {
        &self.headers
    }
}

fn csv_error(path: &Path, error: csv::Error) -> DataError {
    if error.is_io_error() {
        if let csv::ErrorKind::Io(io) = error.into_kind() {
            return DataError::io(path, io);
        }
        unreachable!("is_io_error said so");
    }
    DataError::malformed(path, error.to_string())
}

impl<T: DeserializeOwned> Dataset for CsvRows<T> {
    type Item = Result<T, DataError>;

    fn len(&self) -> usize {
        self.rows.len()
    }

    fn get(&self, index: usize) -> Self::Item {
        let row = &self.rows[index];
        row.deserialize(Some(&self.headers)).map_err(|e| {
            let line = row.position().map_or(index as u64 + 2, csv::Position::line);
            DataError::malformed(&self.path, format!("line {line}: {e}"))
        })
    }
}
