//! What every partial of a typed fold covers, how that travels in a [`Partial`], and the checks
//! that the executor covered the job: every index run once, and the partials combined into one,
//! left to right.
//!
//! `run(start..end)` makes a partial that covers `start..end`; `combine(left, right)` one that
//! covers `left.start..right.end`. These are executor bugs, and the fold panics on its caller
//! with "foldex: executor bug: " and the ranges involved, instead of returning a wrong answer:
//! `run` of a range that ends before it starts or past `len` (refused before the source is
//! touched); `combine` of partials that are not neighbours, left first (`left.end` must be
//! `right.start`); a result that does not cover `0..len` (`0..0` for an empty job). The one
//! exception: nothing at or after a stopped index ([`Job::is_stopped`]) can change the result,
//! so a gap that starts there, and a result that ends there, are accepted.
//!
//! `run` and `combine` never unwind: a bug they see (perhaps on a pool thread) is recorded in
//! [`Bugs`], halts the job, and is raised on the caller once the executor has returned, ahead
//! of any panic of user code. A partial the executor makes and then drops is not seen: a range
//! run twice, one partial thrown away, still gives the right answer.
//!
//! Every partial holds an accumulator, so that with the range and the kind packed into one
//! never-zero word ([`Packed`], for jobs of at most [`PACKED_MAX_LEN`] indices) a one-word
//! accumulator makes a pair of scalars: it moves in registers and fits a [`Partial`] in place.
//!
//! [`Job::is_stopped`]: crate::Job::is_stopped

use crate::audited::{Brand, Partial};
use std::num::NonZeroU64;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// What a piece came to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Every `step` in it returned `Continue`.
    Continue,
    /// A `step` returned `Break` inside this piece; everything to its right is irrelevant.
    Break,
    /// Not run (or abandoned) because a `Break` or a panic to its left, an executor bug or a
    /// cancellation made it irrelevant. Its accumulator is a stand-in that never reaches the
    /// result.
    Skipped,
}

/// A partial as the typed layer sees it: what it came to, and the indices `start..end` it
/// covers.
pub(crate) struct Piece<A> {
    pub(crate) kind: Kind,
    pub(crate) acc: A,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl<A> Piece<A> {
    /// A piece of `kind`, holding `acc`, covering `start..end`.
    pub(crate) fn new(kind: Kind, acc: A, start: usize, end: usize) -> Self {
        Self {
            kind,
            acc,
            start,
            end,
        }
    }
}

/// The longest job whose partials travel as [`Packed`]: a start or an end takes 31 bits.
const PACKED_MAX_LEN: usize = (1 << 31) - 1;

/// A piece's kind and range in one word: the kind in bits 62..64 (1, 2 or 3, so the word is
/// never zero: the niche that gives [`Packed`] its `Lost` for free), the start in bits 31..62
/// and the end in bits 0..31.
struct Span(NonZeroU64);

impl Span {
    const CONTINUE: NonZeroU64 = NonZeroU64::new(1 << 62).expect("not zero");
    const BREAK: NonZeroU64 = NonZeroU64::new(2 << 62).expect("not zero");
    const SKIPPED: NonZeroU64 = NonZeroU64::new(3 << 62).expect("not zero");
    const FIELD: u64 = PACKED_MAX_LEN as u64;
}

/// A piece of a job of at most [`PACKED_MAX_LEN`] indices, or `None` (`Lost`).
///
/// One word larger than the accumulator, and with no other variant that holds data, so that
/// a one-word accumulator makes a pair of scalars, which moves through registers and fits a
/// [`Partial`] in place.
enum Packed<A> {
    Piece(Span, A),
    Lost,
}

impl<A> Packed<A> {
    fn pack(piece: Option<Piece<A>>) -> Self {
        let Some(piece) = piece else {
            return Packed::Lost;
        };
        let kind = match piece.kind {
            Kind::Continue => Span::CONTINUE,
            Kind::Break => Span::BREAK,
            Kind::Skipped => Span::SKIPPED,
        };
        let (start, end) = (piece.start as u64, piece.end as u64);
        Packed::Piece(Span(kind | start << 31 | end), piece.acc)
    }

    fn unpack(self) -> Option<Piece<A>> {
        let Packed::Piece(Span(bits), acc) = self else {
            return None;
        };
        let bits = bits.get();
        let kind = match bits >> 62 {
            1 => Kind::Continue,
            2 => Kind::Break,
            _ => Kind::Skipped,
        };
        let (start, end) = (bits >> 31 & Span::FIELD, bits & Span::FIELD);
        Some(Piece::new(kind, acc, start as usize, end as usize))
    }
}

/// Turns the pieces of one job into [`Partial`]s and back: as [`Packed`] for a job of at most
/// [`PACKED_MAX_LEN`] indices, else as an `Option<Piece>`. `None` is a lost piece.
pub(crate) struct Pieces<A>(Brands<A>);

/// The one brand a job's partials carry, for the one form they take.
enum Brands<A> {
    Packed(Brand<Packed<A>>),
    Wide(Brand<Option<Piece<A>>>),
}

impl<A> Pieces<A> {
    /// The brand of one job of `len` indices.
    pub(crate) fn new(len: usize) -> Self {
        Self(if len <= PACKED_MAX_LEN {
            Brands::Packed(Brand::new())
        } else {
            Brands::Wide(Brand::new())
        })
    }

    /// `piece` as a partial that only this job can unwrap.
    pub(crate) fn wrap<'a>(&self, piece: Option<Piece<A>>) -> Partial<'a>
    where
        A: Send + 'a,
    {
        match &self.0 {
            Brands::Packed(brand) => brand.wrap(Packed::pack(piece)),
            Brands::Wide(brand) => brand.wrap(piece),
        }
    }

    /// The piece that [`Pieces::wrap`] made `partial` of.
    ///
    /// # Panics
    /// If another job's brand made `partial`.
    pub(crate) fn unwrap(&self, partial: Partial<'_>) -> Option<Piece<A>> {
        match &self.0 {
            Brands::Packed(brand) => brand.unwrap(partial).unpack(),
            Brands::Wide(brand) => brand.unwrap(partial),
        }
    }
}

/// The executor bugs one job has seen: the first is raised on the caller, and any halts the
/// job (every index counts as stopped).
#[derive(Default)]
pub(crate) struct Bugs {
    halted: AtomicBool,
    first: Mutex<Option<String>>,
}

impl Bugs {
    /// `true` once a bug has been seen.
    #[inline]
    pub(crate) fn halted(&self) -> bool {
        self.halted.load(Ordering::Relaxed)
    }

    /// Records an executor bug (the first one is raised on the caller) and halts the job.
    #[cold]
    fn record(&self, what: String) {
        let mut first = self.first.lock().unwrap_or_else(PoisonError::into_inner);
        first.get_or_insert(format!("foldex: executor bug: {what}"));
        // After the message: `raise` reads it only once it sees the flag.
        self.halted.store(true, Ordering::Release);
    }

    /// Checks `run(start..end)` of a job of `len` indices. A range that is not a part of
    /// `0..len` is a bug: recorded, and the part of `0..len` that its (skipped) piece stands
    /// for is returned.
    #[inline]
    pub(crate) fn check_run(
        &self,
        start: usize,
        end: usize,
        len: usize,
    ) -> Result<(), Range<usize>> {
        if start > end || end > len {
            return Err(self.bad_range(start, end, len));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn bad_range(&self, start: usize, end: usize, len: usize) -> Range<usize> {
        self.record(if start > end {
            format!("ran {start}..{end}, a range that ends before it starts (the job is 0..{len})")
        } else {
            format!("ran {start}..{end}, past the end of the job's 0..{len}")
        });
        let end = end.min(len);
        start.min(end)..end
    }

    /// Checks `combine` of pieces covering `left` and `right`: `Ok(gap)` when they are
    /// neighbours, the left one first (`gap == false`), or when a gap between them starts at
    /// an index that `stopped` (`gap == true`: the right side does not count). Anything else is
    /// a bug: recorded, and the range that the combined (skipped) piece stands for is returned.
    #[inline]
    pub(crate) fn check_combine(
        &self,
        left: Range<usize>,
        right: Range<usize>,
        stopped: impl FnOnce(usize) -> bool,
    ) -> Result<bool, Range<usize>> {
        let gap = left.end != right.start;
        if gap && !(left.end < right.start && stopped(left.end)) {
            return Err(self.not_adjacent(left, right));
        }
        Ok(gap)
    }

    #[cold]
    #[inline(never)]
    fn not_adjacent(&self, left: Range<usize>, right: Range<usize>) -> Range<usize> {
        let how = if right.end <= left.start {
            "the right one first"
        } else if left.end < right.start {
            "with a gap between them"
        } else {
            "they overlap"
        };
        self.record(format!(
            "combined non-adjacent partials {left:?} and {right:?} ({how}; the left one must end \
             where the right one starts)"
        ));
        left.start.min(right.start)..left.end.max(right.end)
    }

    /// Once the executor has returned: panics with the first bug recorded, if any. A job that
    /// saw none takes no lock.
    #[inline]
    pub(crate) fn raise(&self) {
        if self.halted.load(Ordering::Acquire) {
            self.raise_recorded();
        }
    }

    #[cold]
    #[inline(never)]
    fn raise_recorded(&self) {
        let first = self
            .first
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(bug) = first {
            panic!("{bug}");
        }
    }
}

/// Panics unless the job's result, covering `start..end`, covers `0..len`, or `0..end` where
/// the index `end` is `stopped` (nothing from there on can change the result).
pub(crate) fn check_result(
    start: usize,
    end: usize,
    len: usize,
    stopped: impl FnOnce(usize) -> bool,
) {
    if start != 0 || (end != len && !stopped(end)) {
        panic!(
            "foldex: executor bug: the result covers {start}..{end} of 0..{len} (every index must \
             be run once, and the partials combined into one)"
        );
    }
}

/// Panics: the result for the whole job was skipped, and no `Break`, panic or cancellation to
/// its left explains it.
#[cold]
pub(crate) fn whole_job_skipped() -> ! {
    panic!(
        "foldex: executor bug: the result for the whole range was skipped, with no Break, panic \
         or cancellation to its left"
    )
}

#[cfg(all(test, target_pointer_width = "64"))]
mod tests {
    use super::Packed;
    use std::mem::size_of;

    /// A one-word accumulator and its packed range fit the two words a `Partial` holds in place.
    #[test]
    fn one_word_accumulators_stay_in_two_words() {
        assert_eq!(size_of::<Packed<u64>>(), 16);
        assert_eq!(size_of::<Packed<f64>>(), 16);
        assert_eq!(size_of::<Packed<()>>(), 8);
        assert_eq!(size_of::<Packed<Option<&u8>>>(), 16);
    }
}
