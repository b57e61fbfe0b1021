//! A producer's panic as the consumer receives it: the original payload, and which
//! observation was loading when it panicked.

use foldex_core::exec::PanicPayload;
use std::cell::Cell;

/// A producer's panic as the consumer receives it.
#[derive(Debug)]
pub struct Failure {
    /// The panic's payload, re-raised on the consumer unchanged.
    pub payload: PanicPayload,
    /// The observation whose load panicked (`None`: the panic came from elsewhere, such as
    /// `collate` or the executor).
    pub index: Option<usize>,
}

impl Failure {
    /// A failure that names no observation.
    pub fn anywhere(payload: PanicPayload) -> Self {
        Failure {
            payload,
            index: None,
        }
    }
}

thread_local! {
    static LOADING: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Runs `load` for observation `index`. If it panics, the index stays behind for
/// [`take_loading`] on this thread; if it returns, nothing does.
pub(crate) fn loading<R>(index: usize, load: impl FnOnce() -> R) -> R {
    LOADING.with(|cell| cell.set(Some(index)));
    let loaded = load();
    LOADING.with(|cell| cell.set(None));
    loaded
}

/// The index of the observation whose load panicked on this thread, if a load panicked (a
/// panic in `collate` leaves none).
pub(crate) fn take_loading() -> Option<usize> {
    LOADING.with(Cell::take)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_load_leaves_its_index_and_a_finished_one_does_not() {
        assert_eq!(loading(3, || 7), 7);
        assert_eq!(take_loading(), None);
        let unwound = std::panic::catch_unwind(|| loading(11, || panic!("boom")));
        assert!(unwound.is_err());
        assert_eq!(take_loading(), Some(11));
        assert_eq!(take_loading(), None, "taken once");
    }
}
