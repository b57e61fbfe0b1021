//! Why a dataset could not be made, or an observation not read: each error names the argument,
//! the index or the file.

use std::fmt;
use std::path::PathBuf;

/// Why a view, a split or a dataset could not be made, or an observation not read.
#[derive(Debug)]
#[non_exhaustive]
pub enum DataError {
    /// An index given to [`subset`](crate::DatasetExt::subset) is not below the dataset's length.
    IndexOutOfRange {
        /// Where in the given indices.
        position: usize,
        /// The index.
        index: usize,
        /// The dataset's length.
        len: usize,
    },
    /// Fractions that are not each in `[0, 1]`, or do not sum to 1.
    Fractions(Vec<f64>),
    /// `k` folds of a dataset that cannot have them (`k < 2`, or more folds than observations).
    Folds {
        /// The folds asked for.
        k: usize,
        /// The dataset's length.
        len: usize,
    },
    /// Two lengths that must agree do not (datasets zipped, labels for a dataset).
    Lengths {
        /// What was compared, such as "zip" or "labels".
        what: &'static str,
        /// The dataset's length.
        expected: usize,
        /// The other length.
        got: usize,
    },
    /// A directory with nothing to load.
    Empty {
        /// The directory.
        path: PathBuf,
        /// What was looked for.
        looked_for: &'static str,
    },
    /// A file or directory could not be read.
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A link to a directory that the walk reaching it is already inside (the root, a
    /// directory above it, or one between the root and the link): following it would walk
    /// the same files again, under another name or forever.
    LinkCycle {
        /// The link, as the walk reached it.
        link: PathBuf,
        /// The directory it leads to (its canonical path).
        target: PathBuf,
    },
    /// A file was read but its contents are not what the dataset expects (a corrupt image, a
    /// CSV row of the wrong shape, a record file whose size is not a whole number of records).
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the row or offset where it applies.
        why: String,
    },
}

impl DataError {
    /// An I/O error at `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, error: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            error,
        }
    }

    /// A malformed file at `path`.
    pub(crate) fn malformed(path: impl Into<PathBuf>, why: impl Into<String>) -> Self {
        Self::Malformed {
            path: path.into(),
            why: why.into(),
        }
    }
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::IndexOutOfRange {
                position,
                index,
                len,
            } => write!(
                f,
                "indices[{position}] is {index}, beyond a dataset of length {len}"
            ),
            Self::Fractions(fractions) => write!(
                f,
                "fractions {fractions:?} must each be in [0, 1] and sum to 1"
            ),
            Self::Folds { k, len } => write!(
                f,
                "k = {k} folds of a dataset of length {len}: k must be at least 2 and at most \
                 the dataset's length"
            ),
            Self::Lengths {
                what,
                expected,
                got,
            } => write!(
                f,
                "{what}: {got} given for a dataset of length {expected}; the lengths must be \
                 equal"
            ),
            Self::Empty { path, looked_for } => {
                write!(f, "{}: no {looked_for} found", path.display())
            }
            Self::Io { path, error } => write!(f, "{}: {error}", path.display()),
            Self::LinkCycle { link, target } => write!(
                f,
                "{}: a link back to {}, which the walk that reached it is inside (a cycle); \
                 remove the link or point it elsewhere",
                link.display(),
                target.display()
            ),
            Self::Malformed { path, why } => write!(f, "{}: {why}", path.display()),
        }
    }
}

impl std::error::Error for DataError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}
