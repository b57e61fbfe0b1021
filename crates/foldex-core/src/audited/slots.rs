//! Elements of one buffer handed out to many threads, each at most once: [`MutSlice`] lends
//! them (`&mut`), [`OwnedVec`] moves them out, [`VecWriter`] has them written in place.
//!
//! Every hand-out goes through the buffer's `OnceBits` first: a range is handed out only if no
//! index of it was handed out before, so no two pieces ever reach one element, whatever ranges
//! an executor asks for. A refused range panics with "foldex: executor bug", naming the index,
//! before any element is touched.
//!
//! A `MutSlice` or an `OwnedVec` also serves one fold (`claim_fold`, which
//! [`Source::start_fold`](crate::Source::start_fold) calls before a fold reads an item), so
//! that a second fold is refused up front, saying so, rather than element by element. That
//! flag is a message, not a guard: soundness rests on `OnceBits` alone.

use crate::once_bits::OnceBits;
use crate::spent::Spent;
use std::fmt;
use std::marker::PhantomData;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::ops::Range;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Takes `range` in `bits`, or panics naming the first index already taken.
fn take_or_panic(bits: &OnceBits, range: Range<usize>, what: &str) {
    if let Err(index) = bits.take(range) {
        panic!("foldex: executor bug: {what} {index} was handed to two pieces");
    }
}

/// A buffer's parts, as `Vec::into_raw_parts` gives them.
struct RawVec<T> {
    ptr: NonNull<T>,
    len: usize,
    capacity: usize,
}

impl<T> RawVec<T> {
    fn new(vec: Vec<T>) -> Self {
        let mut vec = ManuallyDrop::new(vec);
        Self {
            // A `Vec`'s pointer is never null (dangling when nothing is allocated).
            ptr: NonNull::new(vec.as_mut_ptr()).expect("a Vec's pointer is not null"),
            len: vec.len(),
            capacity: vec.capacity(),
        }
    }

    /// The element at `index`.
    ///
    /// # Safety
    /// `index <= capacity` (one past the end included), and the allocation is live: not yet
    /// handed to a `Vec` by `VecWriter::finish`. Callers with an empty range at hand do not
    /// call this (an empty writer may outlive the allocation).
    unsafe fn at(&self, index: usize) -> *mut T {
        // SAFETY: in bounds of a live allocation, by the caller's guarantee.
        unsafe { self.ptr.as_ptr().add(index) }
    }

    /// Frees the allocation without dropping any element.
    fn free(&self) {
        // SAFETY: `ptr` and `capacity` come from a `Vec<T>` whose ownership `new` took over;
        // a length of 0 drops no element; every caller frees once (in a `Drop`, or in
        // `VecWriter::finish`, which keeps that `Drop` from freeing again).
        drop(unsafe { Vec::from_raw_parts(self.ptr.as_ptr(), 0, self.capacity) });
    }
}

// ----------------------------------------------------------------------------------------------
// MutSlice
// ----------------------------------------------------------------------------------------------

/// A mutable slice whose elements pieces of a fold on any threads borrow mutably, each element
/// by one piece: the [`Source`](crate::Source) of in-place work (`for_each` over `&mut [T]`,
/// writing a map into an output slice).
///
/// Each element is lent once for the life of the `MutSlice`: it serves one fold, and a second
/// fold over the same value panics, saying so, before it lends anything.
///
/// ```
/// use foldex_core::source::MutSlice;
/// use foldex_core::ExecutorExt;
/// use foldex_seq::SequentialEx;
/// let mut v = vec![1, 2, 3];
/// SequentialEx.for_each(MutSlice::new(&mut v), |x| *x *= 10);
/// assert_eq!(v, [10, 20, 30]);
/// ```
pub struct MutSlice<'a, T> {
    ptr: NonNull<T>,
    len: usize,
    lent: OnceBits,
    /// Set by the first fold's `claim_fold`.
    folded: AtomicBool,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a `MutSlice` holds a `&'a mut [T]` (which is `Send` when `T: Send`) and gives out
// `&'a mut T` to disjoint elements only (`OnceBits`), never a `&T` to an element another
// thread may hold: sharing it between threads moves mutable access to `T`s between them, which
// `T: Send` allows, as `rayon`'s `par_iter_mut` requires.
unsafe impl<T: Send> Send for MutSlice<'_, T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Send> Sync for MutSlice<'_, T> {}

impl<T> fmt::Debug for MutSlice<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MutSlice").field("len", &self.len).finish()
    }
}

impl<'a, T> MutSlice<'a, T> {
    /// Lends `slice` out, element by element.
    pub fn new(slice: &'a mut [T]) -> Self {
        Self {
            ptr: NonNull::from(&mut *slice).cast(),
            len: slice.len(),
            lent: OnceBits::new(slice.len()),
            folded: AtomicBool::new(false),
            _borrow: PhantomData,
        }
    }

    /// Claims the elements for a fold: `Ok` the first time, [`Spent`] after.
    pub(crate) fn claim_fold(&self) -> Result<(), Spent> {
        match self.folded.swap(true, Ordering::Relaxed) {
            false => Ok(()),
            true => Err(Spent::SLICE),
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements of `range`, borrowed mutably for `'a`.
    ///
    /// # Panics
    /// If `range` ends past the end, or if an element of it was taken before, through this
    /// `MutSlice` (no element is then touched).
    pub fn take(&self, range: Range<usize>) -> &'a mut [T] {
        take_or_panic(&self.lent, range.clone(), "element");
        // SAFETY: `take_or_panic` returned, so `range` is in bounds and no element of it was
        // lent before, nor ever will be again: this is the only reference to them. The
        // elements are alive and exclusively ours for `'a` (`new` took a `&'a mut [T]`).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(range.start), range.len()) }
    }
}

// ----------------------------------------------------------------------------------------------
// OwnedVec
// ----------------------------------------------------------------------------------------------

/// A `Vec<T>` whose elements pieces of a fold on any threads move out, each element by one
/// piece: the [`Source`](crate::Source) of a fold over a `Vec` by value.
///
/// Elements no piece took (after an early `Break` or a panic) are dropped with the `OwnedVec`.
/// Each element is moved out once: it serves one fold, and a second fold over the same value
/// panics, saying so, before it moves anything.
///
/// ```
/// use foldex_core::source::OwnedVec;
/// use foldex_core::ExecutorExt;
/// use foldex_seq::SequentialEx;
/// let words = vec![String::from("fold"), String::from("ex")];
/// let joined = SequentialEx.fold(OwnedVec::new(words), String::new, |s, w| s + &w, |a, b| a + &b);
/// assert_eq!(joined, "foldex");
/// ```
pub struct OwnedVec<T> {
    raw: RawVec<T>,
    taken: OnceBits,
    /// Set by the first fold's `claim_fold`.
    folded: AtomicBool,
    _owns: PhantomData<T>,
}

// SAFETY: an `OwnedVec` owns its `T`s and moves each out to one thread only (`OnceBits`); it
// never hands out a `&T`. Sharing it moves `T`s between threads, which `T: Send` allows.
unsafe impl<T: Send> Send for OwnedVec<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Send> Sync for OwnedVec<T> {}

impl<T> fmt::Debug for OwnedVec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedVec")
            .field("len", &self.raw.len)
            .finish()
    }
}

impl<T> OwnedVec<T> {
    /// Takes ownership of `vec`'s elements, to be moved out by range.
    pub fn new(vec: Vec<T>) -> Self {
        let raw = RawVec::new(vec);
        Self {
            taken: OnceBits::new(raw.len),
            raw,
            folded: AtomicBool::new(false),
            _owns: PhantomData,
        }
    }

    /// Claims the elements for a fold: `Ok` the first time, [`Spent`] after.
    pub(crate) fn claim_fold(&self) -> Result<(), Spent> {
        match self.folded.swap(true, Ordering::Relaxed) {
            false => Ok(()),
            true => Err(Spent::VEC),
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.raw.len
    }

    /// `true` when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.raw.len == 0
    }

    /// Moves the elements of `range` out, as an iterator; those it does not yield are dropped
    /// with it.
    ///
    /// # Panics
    /// If `range` ends past the end, or if an element of it was taken before (no element is
    /// then touched).
    pub fn take(&self, range: Range<usize>) -> Taken<'_, T> {
        take_or_panic(&self.taken, range.clone(), "element");
        Taken {
            raw: &self.raw,
            next: range.start,
            end: range.end,
        }
    }
}

impl<T> Drop for OwnedVec<T> {
    fn drop(&mut self) {
        let mut rest = DropUntaken {
            raw: &self.raw,
            taken: &self.taken,
            next: 0,
        };
        // If an element's drop panics, `rest`'s own `Drop` drops the others and frees the
        // buffer while unwinding (a second panic aborts, as in `Vec`).
        rest.drop_remaining();
    }
}

/// The elements of an [`OwnedVec`] that no piece took, dropped in order from `next`, then the
/// buffer freed.
struct DropUntaken<'v, T> {
    raw: &'v RawVec<T>,
    taken: &'v OnceBits,
    next: usize,
}

impl<T> DropUntaken<'_, T> {
    fn drop_remaining(&mut self) {
        while self.next < self.raw.len {
            let index = self.next;
            self.next += 1;
            if !self.taken.is_taken(index) {
                // SAFETY: `index < len`, and an index not taken is an element still in place,
                // initialised and owned by us alone (the `OwnedVec` is being dropped, so every
                // `Taken` is gone); `next` has moved past it, so it is dropped once.
                unsafe { ptr::drop_in_place(self.raw.at(index)) };
            }
        }
    }
}

impl<T> Drop for DropUntaken<'_, T> {
    fn drop(&mut self) {
        self.drop_remaining();
        self.raw.free();
    }
}

/// The elements of one range of an [`OwnedVec`], moved out one by one.
pub struct Taken<'v, T> {
    raw: &'v RawVec<T>,
    next: usize,
    end: usize,
}

impl<T> fmt::Debug for Taken<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Taken")
            .field("range", &(self.next..self.end))
            .finish()
    }
}

impl<T> Iterator for Taken<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.next == self.end {
            return None;
        }
        let index = self.next;
        self.next += 1;
        // SAFETY: `OwnedVec::take` took `next..end` for this `Taken` alone, and `next` only
        // grows: the element is in place, initialised, and read (moved out) once.
        Some(unsafe { self.raw.at(index).read() })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end - self.next;
        (left, Some(left))
    }
}

impl<T> ExactSizeIterator for Taken<'_, T> {}

impl<T> Drop for Taken<'_, T> {
    fn drop(&mut self) {
        if self.next == self.end {
            return;
        }
        // SAFETY: `next..end` are elements of this `Taken`'s range not yet moved out: in place,
        // initialised and ours alone. Dropping the slice drops each of them once, even if one
        // drop panics.
        unsafe {
            let rest = ptr::slice_from_raw_parts_mut(self.raw.at(self.next), self.end - self.next);
            ptr::drop_in_place(rest);
        }
    }
}

// ----------------------------------------------------------------------------------------------
// VecWriter
// ----------------------------------------------------------------------------------------------

/// A `Vec<T>` of a known length written in place by the pieces of a fold, each piece its own
/// range: the output of an in-place collect, allocated once and never copied.
///
/// A piece writes its range with a [`RangeWriter`] and gets a [`Written`], which owns the
/// elements written; adjacent `Written` ranges [`join`](Written::join), and
/// [`finish`](VecWriter::finish) turns one that covers everything into the `Vec`.
///
/// ```
/// use foldex_core::exec::VecWriter;
/// let out = VecWriter::new(4);
/// let mut right = out.write(2..4);
/// right.push("c");
/// right.push("d");
/// let right = right.finish();
/// let mut left = out.write(0..2);
/// left.push("a");
/// left.push("b");
/// assert_eq!(out.finish(left.finish().join(right)), ["a", "b", "c", "d"]);
/// ```
pub struct VecWriter<T> {
    raw: RawVec<T>,
    written: OnceBits,
    /// Tells `Written`s of this buffer from those of any other.
    id: u64,
    finished: AtomicBool,
    _owns: PhantomData<T>,
}

// SAFETY: a `VecWriter` hands each element slot to one `RangeWriter` only (`OnceBits`), whose
// thread writes `T`s there; the `Written` it becomes owns them and moves with the fold's
// partials. It never gives out a `&T`. Sharing it moves `T`s between threads: `T: Send`.
unsafe impl<T: Send> Send for VecWriter<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Send> Sync for VecWriter<T> {}

impl<T> fmt::Debug for VecWriter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VecWriter")
            .field("len", &self.raw.len)
            .finish()
    }
}

impl<T> VecWriter<T> {
    /// Room for `len` elements, allocated at once.
    pub fn new(len: usize) -> Self {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let mut raw = RawVec::new(Vec::with_capacity(len));
        raw.len = len;
        Self {
            raw,
            written: OnceBits::new(len),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            finished: AtomicBool::new(false),
            _owns: PhantomData,
        }
    }

    /// The number of elements the `Vec` will have.
    pub fn len(&self) -> usize {
        self.raw.len
    }

    /// `true` when the `Vec` will be empty.
    pub fn is_empty(&self) -> bool {
        self.raw.len == 0
    }

    /// A writer for the elements of `range`.
    ///
    /// # Panics
    /// If `range` ends past the end, or if an element of it was handed to a writer before.
    pub fn write(&self, range: Range<usize>) -> RangeWriter<'_, T> {
        take_or_panic(&self.written, range.clone(), "output slot");
        RangeWriter {
            out: self,
            start: range.start,
            next: range.start,
            end: range.end,
        }
    }

    /// An empty [`Written`], the identity of [`Written::join`].
    pub fn nothing(&self) -> Written<'_, T> {
        Written {
            out: self,
            start: 0,
            end: 0,
        }
    }

    /// The `Vec`, from a [`Written`] that covers every element.
    ///
    /// # Panics
    /// If `all` was made by another `VecWriter` or does not cover `0..len` (its elements are
    /// then dropped), or if this `VecWriter` was finished before.
    pub fn finish(&self, all: Written<'_, T>) -> Vec<T> {
        assert!(
            all.out.id == self.id,
            "foldex: executor bug: a partial result of another collect was handed back"
        );
        assert!(
            all.start == 0 && all.end == self.raw.len,
            "foldex: executor bug: the pieces written cover {:?}, not 0..{}",
            all.start..all.end,
            self.raw.len
        );
        assert!(
            !self.finished.swap(true, Ordering::Relaxed),
            "foldex: this output was finished before"
        );
        std::mem::forget(all);
        // SAFETY: `all`, from this writer (same id), owned the initialised elements `0..len`
        // (a `Written` covers exactly the elements its `RangeWriter`s wrote, and `join` only
        // joins adjacent ranges), and is forgotten: the `Vec` takes them over. `finished`
        // keeps `Drop` from freeing the allocation, which the `Vec` now owns; `len <=
        // capacity`, as `new` allocated it.
        unsafe { Vec::from_raw_parts(self.raw.ptr.as_ptr(), self.raw.len, self.raw.capacity) }
    }
}

impl<T> Drop for VecWriter<T> {
    fn drop(&mut self) {
        // Every `Written` borrows this writer, so all are gone and have dropped their elements.
        if !*self.finished.get_mut() {
            self.raw.free();
        }
    }
}

/// Writes the elements of one range of a [`VecWriter`], in order; [`finish`](Self::finish) it
/// once the range is full. Dropped unfinished (a panic in the item's producer), it drops what
/// it wrote.
pub struct RangeWriter<'w, T> {
    out: &'w VecWriter<T>,
    start: usize,
    next: usize,
    end: usize,
}

impl<T> fmt::Debug for RangeWriter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RangeWriter")
            .field("range", &(self.start..self.end))
            .field("written", &(self.next - self.start))
            .finish()
    }
}

impl<'w, T> RangeWriter<'w, T> {
    /// Writes the next element of the range.
    ///
    /// # Panics
    /// If the range is full.
    #[inline]
    pub fn push(&mut self, item: T) {
        assert!(
            self.next < self.end,
            "foldex: more items than the {} of range {:?}",
            self.end - self.start,
            self.start..self.end
        );
        // SAFETY: `next` is in this writer's range, which `VecWriter::write` took for it alone,
        // and not yet written (`next` only grows): the slot is ours and uninitialised.
        unsafe { self.out.raw.at(self.next).write(item) };
        self.next += 1;
    }

    /// Writes the items of `items` into the rest of the range, in order, until either runs
    /// out (items beyond the range are dropped unwritten; [`finish`](Self::finish) reports a
    /// range left short): the loop of a slice's `collect`, which vectorises where the items
    /// allow.
    #[inline]
    pub fn fill<I: Iterator<Item = T>>(&mut self, items: I) {
        let rest = self.end - self.next;
        if rest == 0 {
            return;
        }
        // SAFETY: `next..end` is the unwritten rest of this writer's range, which
        // `VecWriter::write` took for it alone: in bounds of the allocation, uninitialised and
        // reached by no other reference while `self` is borrowed mutably. `MaybeUninit<T>` has
        // `T`'s layout.
        let slots = unsafe {
            std::slice::from_raw_parts_mut(
                self.out.raw.at(self.next).cast::<MaybeUninit<T>>(),
                rest,
            )
        };
        for (slot, item) in slots.iter_mut().zip(items) {
            slot.write(item);
            // Counted per item, so that a panic in the next item's producer drops exactly the
            // items written.
            self.next += 1;
        }
    }

    /// The written range, which now owns its elements.
    ///
    /// # Panics
    /// If fewer elements than the range holds were written (those written are dropped).
    pub fn finish(self) -> Written<'w, T> {
        assert!(
            self.next == self.end,
            "foldex: range {:?} got {} items, not {}",
            self.start..self.end,
            self.next - self.start,
            self.end - self.start
        );
        let this = ManuallyDrop::new(self);
        Written {
            out: this.out,
            start: this.start,
            end: this.end,
        }
    }
}

impl<T> Drop for RangeWriter<'_, T> {
    fn drop(&mut self) {
        // SAFETY: `start..next` are the elements this writer wrote: initialised, ours alone.
        unsafe { drop_range(&self.out.raw, self.start..self.next) }
    }
}

/// Drops the elements `range` of `raw`.
///
/// # Safety
/// They are initialised, owned by the caller, and not used again.
unsafe fn drop_range<T>(raw: &RawVec<T>, range: Range<usize>) {
    if range.is_empty() {
        return;
    }
    // SAFETY: by the caller's guarantee; dropping a slice drops each element once, even if
    // one drop panics.
    unsafe {
        ptr::drop_in_place(ptr::slice_from_raw_parts_mut(
            raw.at(range.start),
            range.len(),
        ))
    }
}

/// Elements of a [`VecWriter`] written by one or more adjacent [`RangeWriter`]s; it owns them
/// (and drops them, unless it becomes part of the `Vec`).
pub struct Written<'w, T> {
    out: &'w VecWriter<T>,
    start: usize,
    end: usize,
}

// SAFETY: a `Written` owns the `T`s of its range (and borrows the `VecWriter`, which is `Sync`
// when `T: Send`); moving it moves them.
unsafe impl<T: Send> Send for Written<'_, T> {}

impl<T> fmt::Debug for Written<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Written")
            .field("range", &(self.start..self.end))
            .finish()
    }
}

impl<'w, T> Written<'w, T> {
    /// The indices whose elements this owns.
    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }

    /// `self` followed by `right`; either may be empty.
    ///
    /// # Panics
    /// If both hold elements and `right` does not start where `self` ends, or they belong to
    /// different `VecWriter`s (both are then dropped, with their elements).
    pub fn join(self, right: Written<'w, T>) -> Written<'w, T> {
        if right.start == right.end {
            return self;
        }
        if self.start == self.end {
            return right;
        }
        assert!(
            self.out.id == right.out.id && self.end == right.start,
            "foldex: executor bug: pieces {:?} and {:?} combined as if adjacent",
            self.start..self.end,
            right.start..right.end
        );
        let (left, right) = (ManuallyDrop::new(self), ManuallyDrop::new(right));
        Written {
            out: left.out,
            start: left.start,
            end: right.end,
        }
    }
}

impl<T> Drop for Written<'_, T> {
    fn drop(&mut self) {
        // SAFETY: a `Written` owns the initialised elements of its range: made from a full
        // `RangeWriter`, or joined from two adjacent `Written`s of the same writer (each
        // forgotten, so each element has one owner).
        unsafe { drop_range(&self.out.raw, self.start..self.end) }
    }
}
