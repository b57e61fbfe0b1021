//! The claim flag of an [`offer`](crate::exec::offer): the owner and the offer's `TaskRef` race for
//! the offered closure, and exactly one of them wins it.
//!
//! The audited module (`audited`) builds `offer` on these two pieces and relies on them for
//! soundness: a [`Claim`] has one winner however many holders try it, and [`ClaimOrWait`] does
//! not let the owner leave its frame before it has won the claim or the winner has set the
//! latch. Neither needs `unsafe`.
#![forbid(unsafe_code)]

use crate::exec::sync::{AtomicBool, Ordering};
use crate::latch::JoinLatch;

/// A flag shared (in the offer's ticket) by the owner of an offer and its `TaskRef`: the first
/// to [`Claim::claim`] it gets the closure, every later attempt fails.
#[derive(Debug)]
pub(crate) struct Claim(AtomicBool);

impl Claim {
    /// A flag nobody has claimed.
    pub(crate) fn new() -> Self {
        Self(AtomicBool::new(false))
    }

    /// `true` for the first call on this flag, `false` for every later one.
    /// The winner sees everything the other holders wrote before their attempts (`AcqRel`).
    pub(crate) fn claim(&self) -> bool {
        !self.0.swap(true, Ordering::AcqRel)
    }
}

/// On every way out of the block of an [`offer`](crate::exec::offer) that holds it: claims the job
/// for the owner, or, if a `TaskRef` claimed it first, waits until that one has set the latch.
pub(crate) struct ClaimOrWait<'a> {
    /// The offer's flag.
    pub(crate) claim: &'a Claim,
    /// The latch the `TaskRef` sets once it is done with the owner's frame.
    pub(crate) latch: &'a JoinLatch,
}

impl Drop for ClaimOrWait<'_> {
    fn drop(&mut self) {
        if !self.claim.claim() {
            self.latch.wait();
        }
    }
}
