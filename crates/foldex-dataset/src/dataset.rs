//! What a loader loads from: anything with a length that gives an observation per index.

use std::fmt;
use std::sync::Arc;

/// A collection of observations, read by index from many threads at once.
///
/// Implemented for slices and `Vec` (cloning items), for `&D`, `Arc<D>` and `Box<D>`, and for
/// closures through [`from_fn`]. [`Dataset::map`] transforms the observations lazily.
///
/// ```
/// use foldex_dataset::{from_fn, Dataset};
/// let squares = from_fn(4, |i| i * i);
/// assert_eq!(squares.get(3), 9);
/// let words = vec!["a", "bb"].map(str::len);
/// assert_eq!((words.len(), words.get(1)), (2, 2));
/// ```
pub trait Dataset: Send + Sync {
    /// One observation.
    type Item;

    /// The number of observations; indices are `0..len()`.
    fn len(&self) -> usize;

    /// The observation at `index` (`index < len()`). Called from the executor's threads, each
    /// index once per epoch.
    fn get(&self, index: usize) -> Self::Item;

    /// Loads the observation at `index` into `buf`, reusing its memory (the capacity of a
    /// `Vec`, an image buffer). `buf` holds an earlier observation, or is fresh from `get`.
    ///
    /// A loader with `Loader::reuse_buffers(true)` calls this instead
    /// of `get`, so that its buffers are recycled and loading allocates nothing once warm. The
    /// default replaces `buf` with `get(index)`.
    ///
    /// ```
    /// use foldex_dataset::Dataset;
    /// struct Noise;
    /// impl Dataset for Noise {
    ///     type Item = Vec<f32>;
    ///     fn len(&self) -> usize { 10 }
    ///     fn get(&self, i: usize) -> Vec<f32> { vec![i as f32; 1024] }
    ///     fn get_into(&self, i: usize, buf: &mut Vec<f32>) {
    ///         buf.clear();
    ///         buf.resize(1024, i as f32); // no allocation once `buf` has the capacity
    ///     }
    /// }
    /// let mut buf = Noise.get(0);
    /// Noise.get_into(7, &mut buf);
    /// assert_eq!(buf[1023], 7.0);
    /// ```
    fn get_into(&self, index: usize, buf: &mut Self::Item) {
        *buf = self.get(index);
    }

    /// `true` when there are no observations.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A dataset whose observations are `f(self.get(i))`, computed when they are loaded.
    fn map<F, U>(self, f: F) -> Mapped<Self, F>
    where
        Self: Sized,
        F: Fn(Self::Item) -> U + Send + Sync,
    {
        Mapped { dataset: self, f }
    }
}

impl<T: Clone + Send + Sync> Dataset for [T] {
    type Item = T;
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
    fn get(&self, index: usize) -> T {
        self[index].clone()
    }
}

impl<T: Clone + Send + Sync> Dataset for Vec<T> {
    type Item = T;
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn get(&self, index: usize) -> T {
        self[index].clone()
    }
}

macro_rules! forward_dataset {
    ($($ptr:ty),*) => {$(
        impl<D: Dataset + ?Sized> Dataset for $ptr {
            type Item = D::Item;
            fn len(&self) -> usize {
                (**self).len()
            }
            fn get(&self, index: usize) -> D::Item {
                (**self).get(index)
            }
            fn get_into(&self, index: usize, buf: &mut D::Item) {
                (**self).get_into(index, buf)
            }
        }
    )*};
}

forward_dataset!(&D, Arc<D>, Box<D>);

/// A dataset of `len` observations computed by a closure; see [`from_fn`].
#[derive(Clone)]
pub struct FromFn<F> {
    len: usize,
    f: F,
}

impl<F> fmt::Debug for FromFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FromFn")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// A dataset of `len` observations, observation `i` being `f(i)`.
///
/// ```
/// use foldex_dataset::{from_fn, Dataset};
/// let names = from_fn(3, |i| format!("img{i}.png"));
/// assert_eq!(names.get(2), "img2.png");
/// ```
pub fn from_fn<T, F: Fn(usize) -> T + Send + Sync>(len: usize, f: F) -> FromFn<F> {
    FromFn { len, f }
}

impl<T, F: Fn(usize) -> T + Send + Sync> Dataset for FromFn<F> {
    type Item = T;
    fn len(&self) -> usize {
        self.len
    }
    fn get(&self, index: usize) -> T {
        (self.f)(index)
    }
}

/// The dataset of [`Dataset::map`].
#[derive(Clone)]
pub struct Mapped<D, F> {
    dataset: D,
    f: F,
}

impl<D: fmt::Debug, F> fmt::Debug for Mapped<D, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mapped")
            .field("dataset", &self.dataset)
            .finish_non_exhaustive()
    }
}

impl<D: Dataset, U, F: Fn(D::Item) -> U + Send + Sync> Dataset for Mapped<D, F> {
    type Item = U;
    fn len(&self) -> usize {
        self.dataset.len()
    }
    fn get(&self, index: usize) -> U {
        (self.f)(self.dataset.get(index))
    }
}

// ----------------------------------------------------------------------------------------------
// Fallible datasets
// ----------------------------------------------------------------------------------------------

/// A dataset whose observations may fail to load (a missing file, a corrupt image).
///
/// Implement `try_get` for your own type, or use any [`Dataset`] whose items are `Result`s: it
/// is a `TryDataset` already. Wrap it in [`Fallible`] to load it: each failure arrives as an
/// `Err` that carries its index, and the epoch goes on.
pub trait TryDataset: Send + Sync {
    /// A loaded observation.
    type Output;
    /// Why an observation failed to load.
    type Error;

    /// The number of observations; indices are `0..len()`.
    fn len(&self) -> usize;

    /// The observation at `index`, or why it could not be loaded.
    fn try_get(&self, index: usize) -> Result<Self::Output, Self::Error>;

    /// `true` when there are no observations.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<D, T, E> TryDataset for D
where
    D: Dataset<Item = Result<T, E>>,
{
    type Output = T;
    type Error = E;
    fn len(&self) -> usize {
        Dataset::len(self)
    }
    fn try_get(&self, index: usize) -> Result<T, E> {
        self.get(index)
    }
}

/// The error of one observation of a [`Fallible`] dataset: which index, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemError<E> {
    /// The index that failed to load.
    pub index: usize,
    /// Why.
    pub error: E,
}

impl<E: fmt::Display> fmt::Display for ItemError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "observation {} failed to load: {}",
            self.index, self.error
        )
    }
}

impl<E: std::error::Error + 'static> std::error::Error for ItemError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// A [`TryDataset`] as a [`Dataset`] of `Result`s whose errors carry their index.
///
/// ```
/// use foldex_dataset::{Dataset, Fallible, ItemError, from_fn};
/// let files = Fallible::new(from_fn(3, |i| if i == 1 { Err("corrupt") } else { Ok(i) }));
/// assert_eq!(files.get(0), Ok(0));
/// assert_eq!(files.get(1), Err(ItemError { index: 1, error: "corrupt" }));
/// ```
#[derive(Debug, Clone)]
pub struct Fallible<D>(D);

impl<D: TryDataset> Fallible<D> {
    /// Wraps `dataset`.
    pub fn new(dataset: D) -> Self {
        Self(dataset)
    }

    /// The wrapped dataset.
    pub fn into_inner(self) -> D {
        self.0
    }
}

impl<D: TryDataset> Dataset for Fallible<D> {
    type Item = Result<D::Output, ItemError<D::Error>>;
    fn len(&self) -> usize {
        self.0.len()
    }
    fn get(&self, index: usize) -> Self::Item {
        self.0
            .try_get(index)
            .map_err(|error| ItemError { index, error })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_vecs_and_pointers_clone_their_items() {
        let v = vec![String::from("a"), String::from("b")];
        assert_eq!(Dataset::len(&v), 2);
        assert_eq!(v.get(1), "b");
        let s: &[String] = &v;
        assert_eq!(Dataset::get(s, 0), "a");
        let shared: Arc<[String]> = v.clone().into();
        assert_eq!(Dataset::get(&shared, 1), "b");
        let boxed: Box<dyn Dataset<Item = String>> = Box::new(v);
        assert_eq!((boxed.len(), boxed.get(0)), (2, "a".to_owned()));
    }

    #[test]
    fn map_composes() {
        let d = from_fn(5, |i| i).map(|i| i * 10).map(|i| i + 1);
        assert_eq!(
            (0..5).map(|i| d.get(i)).collect::<Vec<_>>(),
            vec![1, 11, 21, 31, 41]
        );
        assert!(!d.is_empty());
        assert!(from_fn(0, |i| i).is_empty());
    }

    struct Files;
    impl TryDataset for Files {
        type Output = usize;
        type Error = String;
        fn len(&self) -> usize {
            3
        }
        fn try_get(&self, index: usize) -> Result<usize, String> {
            if index == 2 {
                Err("missing".into())
            } else {
                Ok(index)
            }
        }
    }

    #[test]
    fn fallible_errors_carry_their_index() {
        let d = Fallible::new(Files);
        assert_eq!(d.get(1), Ok(1));
        let err = d.get(2).unwrap_err();
        assert_eq!(err.index, 2);
        assert_eq!(err.to_string(), "observation 2 failed to load: missing");
    }
}
