//! What makes a piece's starting value for `map_init`, `map_with` and the fold adapters.

use std::sync::{Mutex, PoisonError};

/// What makes a piece's starting value: a closure `Fn() -> T`, or a [`CloneOf`] a value.
pub trait MakeValue {
    /// The value made.
    type Value;
    /// A new value.
    fn make(&self) -> Self::Value;
}

impl<T, F: Fn() -> T> MakeValue for F {
    type Value = T;
    #[inline]
    fn make(&self) -> T {
        self()
    }
}

/// A value given once and cloned for each piece (the `init` of rayon's `map_with`): `T` need
/// only be `Clone + Send`, as the clone is made under a lock, once per piece.
pub struct CloneOf<T>(Mutex<T>);

impl<T> CloneOf<T> {
    /// Keeps `value`, to be cloned.
    pub fn new(value: T) -> Self {
        Self(Mutex::new(value))
    }
}

impl<T: Clone> MakeValue for CloneOf<T> {
    type Value = T;
    fn make(&self) -> T {
        // A poisoned lock means a clone panicked; the value itself was never changed.
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl<T> std::fmt::Debug for CloneOf<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CloneOf").finish_non_exhaustive()
    }
}
