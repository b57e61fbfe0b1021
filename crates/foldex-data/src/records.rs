//! A file of fixed-size records, read by position from many threads at once.
//!
//! Reads are positional (`pread` on Unix, `seek_read` on Windows), so threads never share a
//! file offset and need no lock; the operating system's page cache keeps a file that is read
//! again in memory, as a mapping would. The file is not mapped (`memmap2`): `Mmap::map` is
//! `unsafe`, since another process may change or truncate the file under the mapping, which no
//! safe wrapper can rule out, and this crate forbids `unsafe` (docs/architecture.md).

use crate::error::DataError;
use foldex_core::ConfigError;
use foldex_dataset::Dataset;
use std::fs::File;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

/// A file of records of `record_size` bytes each: observation `i` is bytes
/// `i * record_size ..` of the file. A failed read is an `Err` naming the file and the record
/// (route it through an `ErrorPolicy`).
///
/// ```
/// use foldex_data::Records;
/// use foldex_dataset::Dataset;
///
/// let path = std::env::temp_dir().join("foldex-doc-records.bin");
/// let floats: Vec<u8> = (0..12u32).flat_map(|x| (x as f32).to_le_bytes()).collect();
/// std::fs::write(&path, &floats)?;
/// let rows = Records::open(&path, 4 * 4)?; // rows of four f32
/// let row = |i| -> Vec<f32> {
///     let bytes = rows.get(i).expect("readable");
///     bytes.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect()
/// };
/// assert_eq!((rows.len(), row(2)), (3, vec![8.0, 9.0, 10.0, 11.0]));
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Records {
    path: PathBuf,
    file: File,
    record_size: NonZeroUsize,
    len: usize,
}

impl Records {
    /// Opens `path` as records of `record_size` bytes.
    ///
    /// # Errors
    /// The file cannot be opened, or its size is not a whole number of records (named with
    /// the bytes left over).
    ///
    /// # Panics
    /// If `record_size` is 0, naming it.
    #[track_caller]
    pub fn open(path: impl AsRef<Path>, record_size: usize) -> Result<Self, DataError> {
        let record_size = ConfigError::require_nonzero("record_size", record_size);
        let path = path.as_ref().to_path_buf();
        let file = File::open(&path).map_err(|e| DataError::io(&path, e))?;
        let bytes = file.metadata().map_err(|e| DataError::io(&path, e))?.len();
        let size = record_size.get() as u64;
        if bytes % size != 0 {
            return Err(DataError::malformed(
                &path,
                format!(
                    "its size ({bytes}) is not a whole number of records of {size} bytes ({} \
                     left over)",
                    bytes % size
                ),
            ));
        }
        let len = usize::try_from(bytes / size).map_err(|_| {
            DataError::malformed(&path, "more records than this platform can index")
        })?;
        Ok(Self {
            path,
            file,
            record_size,
            len,
        })
    }

    /// The bytes of each record.
    pub fn record_size(&self) -> usize {
        self.record_size.get()
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read_into(&self, index: usize, buf: &mut Vec<u8>) -> Result<(), DataError> {
        buf.resize(self.record_size.get(), 0);
        let offset = index as u64 * self.record_size.get() as u64;
        read_exact_at(&self.file, buf, offset).map_err(|e| {
            DataError::malformed(&self.path, format!("record {index} (offset {offset}): {e}"))
        })
    }
}

impl Dataset for Records {
    type Item = Result<Vec<u8>, DataError>;

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, index: usize) -> Self::Item {
        let mut buf = Vec::new();
        self.read_into(index, &mut buf).map(|()| buf)
    }

    fn get_into(&self, index: usize, buf: &mut Self::Item) {
        match buf {
            Ok(bytes) => {
                if let Err(e) = self.read_into(index, bytes) {
                    *buf = Err(e);
                }
            }
            Err(_) => *buf = self.get(index),
        }
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}
