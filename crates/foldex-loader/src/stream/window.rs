//! What the loader of one window loads: the window's pulled items computed, as they come
//! ([`Computed`]) or under an error policy ([`Policed`]).

use crate::loadable::Loadable;
use crate::policy::{Checked, ErrorPolicy};
use foldex_core::exec::PanicPayload;
use foldex_dataset::{Dataset, ItemError};
use std::fmt;
use std::sync::Arc;

/// Computes a batch's item from an item pulled from the stream.
pub(crate) type Compute<R, T> = dyn Fn(&R) -> T + Send + Sync;

/// How a stream loader's windows are loaded: [`Computed`] or [`Policed`]. Implemented by the
/// crate only.
pub trait Windowing<R>: sealed::Sealed + Send + Sync + 'static {
    /// What a batch is made of.
    type Item: Send + 'static;
    /// The dataset of one window.
    #[doc(hidden)]
    type Data: Loadable<Item = Self::Item> + 'static;

    /// The dataset of a window of `items`.
    #[doc(hidden)]
    fn window(&self, items: Vec<R>) -> Self::Data;

    /// Turns the window's index in a panic's payload into a stream position (`offset` is the
    /// window's first).
    #[doc(hidden)]
    fn place(&self, _payload: &mut PanicPayload, _offset: usize) {}
}

mod sealed {
    pub trait Sealed {}
}

/// The items of one window, computed on demand.
pub struct WindowItems<R, T> {
    items: Vec<R>,
    compute: Arc<Compute<R, T>>,
}

impl<R: Send + Sync, T> Dataset for WindowItems<R, T> {
    type Item = T;
    fn len(&self) -> usize {
        self.items.len()
    }
    fn get(&self, index: usize) -> T {
        (self.compute)(&self.items[index])
    }
}

/// Windows whose items are computed as they come: a panic in `compute` fails the epoch.
pub struct Computed<R, T>(pub(crate) Arc<Compute<R, T>>);

impl<R, T> fmt::Debug for Computed<R, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Computed")
    }
}

impl<R, T> sealed::Sealed for Computed<R, T> {}

impl<R, T> Windowing<R> for Computed<R, T>
where
    R: Send + Sync + 'static,
    T: Send + 'static,
{
    type Item = T;
    type Data = WindowItems<R, T>;

    fn window(&self, items: Vec<R>) -> WindowItems<R, T> {
        WindowItems {
            items,
            compute: Arc::clone(&self.0),
        }
    }
}

/// Windows whose `compute` returns `Result`s, loaded under an [`ErrorPolicy`]: failures are
/// retried, skipped (recorded in the stats with their stream position) or fail the epoch with
/// an [`ItemError`] whose `index` is the stream position.
pub struct Policed<R, U, E> {
    pub(crate) compute: Arc<Compute<R, Result<U, E>>>,
    pub(crate) policy: ErrorPolicy,
}

impl<R, U, E> fmt::Debug for Policed<R, U, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Policed")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl<R, U, E> sealed::Sealed for Policed<R, U, E> {}

impl<R, U, E> Windowing<R> for Policed<R, U, E>
where
    R: Send + Sync + 'static,
    U: Send + 'static,
    E: fmt::Display + Send + 'static,
{
    type Item = U;
    type Data = Checked<WindowItems<R, Result<U, E>>>;

    fn window(&self, items: Vec<R>) -> Self::Data {
        let window = WindowItems {
            items,
            compute: Arc::clone(&self.compute),
        };
        Checked::new(window, self.policy)
    }

    fn place(&self, payload: &mut PanicPayload, offset: usize) {
        if let Some(failed) = payload.downcast_mut::<ItemError<E>>() {
            failed.index += offset;
        }
    }
}
