//! `pipe_drain`: a range of a `Vec` (or a `VecDeque`) moved out into a pipeline, the
//! collection keeping the rest, as rayon's `par_drain`.

use super::from_vec;
use crate::pipeline::Pipeline;
use foldex_core::source::OwnedVec;
use std::collections::VecDeque;
use std::ops::{Bound, Range, RangeBounds};

/// A range of a collection's items moved out into a pipeline (rayon's `ParallelDrainRange`):
/// when `pipe_drain` returns, the collection holds the items before and after the range, as
/// after std's `drain(range)`, and the pipeline owns the drained ones (a pipeline that runs
/// once, as [`from_vec`]'s).
///
/// The drained items are moved once into a `Vec` of their own (a sequential copy, then the
/// collection's tail closes the gap as std's `drain` does); draining all of a `Vec` takes its
/// buffer as it is, with no copy.
///
/// ```
/// use foldex_pipeline::sources::PipeDrain;
/// use foldex_threaded::ThreadedEx;
/// let mut v: Vec<String> = (0..10).map(|i| i.to_string()).collect();
/// let middle: String = v.pipe_drain(3..6).collect(&ThreadedEx::new());
/// assert_eq!(middle, "345");
/// assert_eq!(v, ["0", "1", "2", "6", "7", "8", "9"]);
/// ```
pub trait PipeDrain<T: Send> {
    /// Moves the items of `range` out into a pipeline, keeping the rest.
    ///
    /// # Panics
    /// If the range starts after it ends or ends past the collection's length, with a message
    /// that names the range and the length.
    fn pipe_drain<R: RangeBounds<usize>>(&mut self, range: R) -> Pipeline<OwnedVec<T>>;
}

impl<T: Send> PipeDrain<T> for Vec<T> {
    #[track_caller]
    fn pipe_drain<R: RangeBounds<usize>>(&mut self, range: R) -> Pipeline<OwnedVec<T>> {
        let range = checked(&range, self.len());
        if range == (0..self.len()) {
            return from_vec(std::mem::take(self));
        }
        from_vec(self.drain(range).collect())
    }
}

impl<T: Send> PipeDrain<T> for VecDeque<T> {
    #[track_caller]
    fn pipe_drain<R: RangeBounds<usize>>(&mut self, range: R) -> Pipeline<OwnedVec<T>> {
        let range = checked(&range, self.len());
        from_vec(self.drain(range).collect())
    }
}

/// `range` as a `Range` within `0..len`, or a panic naming it.
#[track_caller]
fn checked<R: RangeBounds<usize>>(range: &R, len: usize) -> Range<usize> {
    let start = match range.start_bound() {
        Bound::Included(&s) => Some(s),
        Bound::Excluded(&s) => s.checked_add(1),
        Bound::Unbounded => Some(0),
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1),
        Bound::Excluded(&e) => Some(e),
        Bound::Unbounded => Some(len),
    };
    let shown = format!("{:?}..{:?}", range.start_bound(), range.end_bound());
    let (Some(start), Some(end)) = (start, end) else {
        panic!("pipe_drain: the range {shown} overflows usize");
    };
    assert!(
        start <= end,
        "pipe_drain: the range starts at {start} but ends at {end} ({shown})"
    );
    assert!(
        end <= len,
        "pipe_drain: the range ends at {end}, past the length {len} ({shown})"
    );
    start..end
}
