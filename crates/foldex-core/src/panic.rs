//! Panic capture: the first payload of a failed computation, kept until it can be re-raised.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// A panic payload, as `catch_unwind` returns it.
pub type PanicPayload = Box<dyn Any + Send + 'static>;

/// Holds the first panic raised by any piece of a computation, to re-raise on the caller.
///
/// Later panics are dropped: like `std::thread::scope`, the caller sees one, the first.
#[derive(Debug, Default)]
pub struct PanicSlot {
    raised: AtomicBool,
    payload: Mutex<Option<PanicPayload>>,
}

impl PanicSlot {
    /// An empty slot.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `f`, catching a panic into the slot; `None` means `f` panicked.
    pub fn catch<R>(&self, f: impl FnOnce() -> R) -> Option<R> {
        match panic::catch_unwind(AssertUnwindSafe(f)) {
            Ok(value) => Some(value),
            Err(payload) => {
                self.store(payload);
                None
            }
        }
    }

    /// Keeps `payload` unless a panic is already held.
    pub fn store(&self, payload: PanicPayload) {
        let mut slot = self.payload.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(payload);
        }
        self.raised.store(true, Ordering::Release);
    }

    /// `true` once any piece has panicked. Cheap enough to poll between blocks of work.
    pub fn has_panicked(&self) -> bool {
        self.raised.load(Ordering::Acquire)
    }

    /// Takes the held payload, if any.
    pub fn take(&self) -> Option<PanicPayload> {
        self.payload
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// Re-raises the held panic with its original payload, if there is one.
    pub fn resume(&self) {
        // Skips the lock in the common case; `store` sets the flag after the payload.
        if !self.has_panicked() {
            return;
        }
        if let Some(payload) = self.take() {
            panic::resume_unwind(payload);
        }
    }
}

/// The payload of the panic placed at the smallest index so far, with that index; of panics
/// placed at the same index, the first. A fold keeps its user code's panics here, to re-raise
/// the one the sequential fold would have met first.
///
/// A fold that did not panic never takes the lock: `held` says whether anything was kept.
#[derive(Debug, Default)]
pub(crate) struct LeftmostPanic {
    first: Mutex<Option<(usize, PanicPayload)>>,
    /// Set, after the payload, once a panic is kept.
    held: AtomicBool,
}

impl LeftmostPanic {
    /// Keeps `payload`, placed at `at`, unless a panic at `at` or before is held.
    pub(crate) fn keep(&self, at: usize, payload: PanicPayload) {
        let mut held = self.first.lock().unwrap_or_else(|e| e.into_inner());
        let dropped = match &*held {
            Some((first, _)) if *first <= at => Some(payload),
            _ => held.replace((at, payload)).map(|(_, payload)| payload),
        };
        self.held.store(true, Ordering::Release);
        drop(held);
        // Dropped outside the lock: a payload's destructor is user code.
        drop(dropped);
    }

    /// The held panic's index and message, leaving it held.
    pub(crate) fn placed(&self) -> Option<(usize, String)> {
        if !self.held.load(Ordering::Acquire) {
            return None;
        }
        let held = self.first.lock().unwrap_or_else(|e| e.into_inner());
        held.as_ref()
            .map(|(at, payload)| (*at, message(&**payload)))
    }

    /// Takes the held panic and its index, if any. Sees every panic kept by a thread that
    /// finished before the call (an executor's return orders its pieces before it).
    #[inline]
    pub(crate) fn take(&self) -> Option<(usize, PanicPayload)> {
        if !self.held.load(Ordering::Acquire) {
            return None;
        }
        self.take_held()
    }

    #[cold]
    #[inline(never)]
    fn take_held(&self) -> Option<(usize, PanicPayload)> {
        self.first.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// A panic payload's message: the `&str` or `String` that `panic!` makes, or a note saying the
/// payload is something else.
pub fn message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic whose payload is not a string".to_owned())
}
