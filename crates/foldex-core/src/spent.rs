//! Why a source refused a fold: [`Spent`], for sources that hand each item out once (a module
//! of its own, below both the sources and the audited module that refuses).

use std::fmt;

/// Why a source refused a fold: it hands each item out once ([`Source::HANDS_OUT_ONCE`](crate::Source::HANDS_OUT_ONCE)), and
/// an earlier fold had them. Its `Display` is the message the refused fold panics with: what
/// the source is, what the first fold did with its items, and how to run again.
///
/// ```
/// use foldex_core::source::OwnedVec;
/// use foldex_core::{ExecutorExt, Source};
/// use foldex_seq::SequentialEx;
/// let items = OwnedVec::new(vec![1u64, 2, 3]);
/// assert_eq!(SequentialEx.sum::<u64>(&items), 6);
/// let spent = items.start_fold().unwrap_err();
/// assert!(spent.to_string().contains("runs once"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spent {
    message: &'static str,
}

impl Spent {
    /// A refusal that says `message` (for a source of your own that hands its items out
    /// once): start it with "foldex: ", or your crate's name, and say what to do instead.
    pub const fn new(message: &'static str) -> Self {
        Self { message }
    }

    /// The refusal of a second fold over a `Vec` by value ([`OwnedVec`](crate::OwnedVec)).
    pub(crate) const VEC: Self = Self::new(
        "foldex: a pipeline or fold over a Vec by value runs once (its items were moved out \
         by the first run); build a new one with from_vec or OwnedVec::new for another run",
    );

    /// The refusal of a second fold over a mutable slice ([`MutSlice`](crate::MutSlice)).
    pub(crate) const SLICE: Self = Self::new(
        "foldex: a pipeline or fold over a mutable slice runs once (its elements were lent out \
         by the first run, and may still be borrowed); build a new one with (&mut v).pipe() or \
         MutSlice::new for another run",
    );
}

impl fmt::Display for Spent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message)
    }
}

impl std::error::Error for Spent {}
