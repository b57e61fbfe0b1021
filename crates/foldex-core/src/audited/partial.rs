//! Type-erased partial results: [`Partial`] and the [`Brand`] that makes and unwraps them.

use std::fmt;
use std::marker::PhantomData;
use std::mem::{align_of, size_of, ManuallyDrop, MaybeUninit};
use std::sync::atomic::{AtomicU64, Ordering};

/// A partial result of a job, with its type erased so that executors stay object-safe.
///
/// Executors move partials between threads and hand them back to [`Job::combine`]; they never
/// look inside. Only the [`Brand`] that made a partial can unwrap it.
///
/// [`Job::combine`]: crate::Job::combine
pub struct Partial<'a> {
    value: Value<'a>,
    brand: u64,
}

/// A partial's value: in place when it fits in two words (sums, counts, small tuples: no
/// allocation per leaf and per combine), boxed otherwise.
enum Value<'a> {
    Inline(Inline<'a>),
    Boxed(Box<dyn Send + 'a>),
}

/// Room for a value of at most two words, and the function that drops it.
struct Inline<'a> {
    bytes: MaybeUninit<[usize; 2]>,
    drop: unsafe fn(*mut MaybeUninit<[usize; 2]>),
    // Owns a `Send + 'a` value: `Send`, not `Sync`, and bound by `'a`, as the box is.
    _owns: PhantomData<Box<dyn Send + 'a>>,
}

impl Drop for Inline<'_> {
    fn drop(&mut self) {
        // SAFETY: `Brand::wrap` pairs `bytes`, which holds an initialised `T`, with
        // `drop_inline::<T>`; `Brand::unwrap` moves the value out only through `ManuallyDrop`,
        // so this `Drop` runs only for a value still in place, and only once.
        unsafe { (self.drop)(&mut self.bytes) }
    }
}

/// Drops the `T` that `Brand::wrap` wrote into `bytes`.
///
/// # Safety
/// `bytes` holds an initialised `T`, which is not used again.
unsafe fn drop_inline<T>(bytes: *mut MaybeUninit<[usize; 2]>) {
    // SAFETY: the caller guarantees a live `T` at `bytes`; `fits_inline::<T>` made sure the
    // room is large and aligned enough for it.
    unsafe { std::ptr::drop_in_place(bytes.cast::<T>()) }
}

/// `true` when a `T` fits in an `Inline`'s room, size and alignment.
const fn fits_inline<T>() -> bool {
    size_of::<T>() <= size_of::<[usize; 2]>() && align_of::<T>() <= align_of::<[usize; 2]>()
}

impl fmt::Debug for Partial<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Partial")
            .field("brand", &self.brand)
            .finish_non_exhaustive()
    }
}

/// The unique key that wraps values of type `T` into [`Partial`]s and unwraps them again.
///
/// Each brand has an id no other brand shares, and a brand only ever wraps values of its own
/// type `T`; so a partial that carries this brand's id holds a `T`. A custom [`Job`] makes one
/// brand per run.
///
/// ```
/// use foldex_core::Brand;
/// let brand = Brand::<Vec<&str>>::new();
/// let partial = brand.wrap(vec!["a"]);
/// assert_eq!(brand.unwrap(partial), vec!["a"]);
/// ```
///
/// [`Job`]: crate::Job
pub struct Brand<T> {
    id: u64,
    // `fn(T) -> T`: the brand neither owns a `T` nor constrains `T`'s variance or auto traits.
    _type: PhantomData<fn(T) -> T>,
}

impl<T> fmt::Debug for Brand<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Brand").field("id", &self.id).finish()
    }
}

impl<T> Default for Brand<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Brand<T> {
    /// A brand with an id that no other brand in this process has.
    pub fn new() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Self {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            _type: PhantomData,
        }
    }

    /// Wraps `value` into a partial that only this brand can unwrap.
    pub fn wrap<'a>(&self, value: T) -> Partial<'a>
    where
        T: Send + 'a,
    {
        let value = if fits_inline::<T>() {
            let mut bytes = MaybeUninit::<[usize; 2]>::uninit();
            // SAFETY: `fits_inline::<T>()`: the room is at least as large and as aligned as a
            // `T`, so writing one at its start is in bounds and aligned.
            unsafe { bytes.as_mut_ptr().cast::<T>().write(value) };
            Value::Inline(Inline {
                bytes,
                drop: drop_inline::<T>,
                _owns: PhantomData,
            })
        } else {
            Value::Boxed(Box::new(value))
        };
        Partial {
            value,
            brand: self.id,
        }
    }

    /// Unwraps a partial made by [`Brand::wrap`] of this brand.
    ///
    /// # Panics
    /// If the partial was made by another brand: an executor mixed up the partials of two jobs.
    pub fn unwrap(&self, partial: Partial<'_>) -> T {
        assert_eq!(
            partial.brand, self.id,
            "foldex: a partial result was handed to a job that did not make it (executor bug)"
        );
        let boxed = match partial.value {
            Value::Inline(inline) => {
                let inline = ManuallyDrop::new(inline);
                // SAFETY: the brand check above means this partial was made by `wrap` of this
                // brand, hence of type `T` (ids are unique per brand, a `Brand<T>` wraps only
                // `T`s, and `wrap` is the only constructor of `Partial`), and `wrap` put it in
                // place, initialised, at the start of `bytes`. `ManuallyDrop` keeps `Inline`'s
                // `Drop` from dropping it again after this read moves it out.
                return unsafe { inline.bytes.as_ptr().cast::<T>().read() };
            }
            Value::Boxed(boxed) => boxed,
        };
        let raw: *mut (dyn Send + '_) = Box::into_raw(boxed);
        // SAFETY: `partial.brand == self.id`, and the only function that creates a `Partial`
        // is `Brand::wrap`, which stores a `Box<T>` under its own id. Ids are unique per brand
        // (a global counter) and a `Brand<T>` only wraps `T`s, so `raw` points to a live `T`
        // allocated by `Box::<T>::new`. Casting the fat pointer to a thin `*mut T` keeps the
        // address; `Box::from_raw` then takes back ownership of that same allocation, once,
        // since `boxed` was consumed by `into_raw`.
        unsafe { *Box::from_raw(raw.cast::<T>()) }
    }
}
