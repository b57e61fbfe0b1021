//! The early-stop protocol between ranks: a rank whose block breaks or panics tells every rank
//! after it, which stop at their next poll.
//!
//! Ranks fold their blocks in pieces and, between pieces, probe (without blocking) for a notice
//! from a rank before them. Notices go only rightwards: the sequential answer needs every block
//! left of the first `Break` (or panic) whole, and none of the blocks after it. A notice is a
//! one-byte non-blocking send per later rank; once every rank's outcome is known (one
//! collective), each rank receives the notices addressed to it (it knows how many: one from each
//! earlier rank that broke or panicked) and waits for its own sends, so that no message of one
//! fold is left for the next. The messages travel on the executor's own duplicate of the world
//! communicator, apart from the program's.

use mpi::request::{Request, StaticScope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// The tag of stop notices.
const STOP: i32 = 0x5709;

/// What a notice carries (its arrival is the message).
static NOTICE: [u8; 1] = [1];

/// One fold's notices: those this rank sent, and whether one reached it.
pub(crate) struct Notices<'c> {
    comm: &'c SimpleCommunicator,
    sent: Vec<Request<'static, [u8; 1], StaticScope>>,
    stopped: bool,
}

impl Drop for Notices<'_> {
    /// Reached without [`Notices::settle`] only when the fold unwinds between the sends and
    /// the gather: the sends are left to MPI (their buffer is static), since a request dropped
    /// before it completes would panic again during the unwind.
    fn drop(&mut self) {
        for request in self.sent.drain(..) {
            std::mem::forget(request);
        }
    }
}

impl<'c> Notices<'c> {
    pub fn new(comm: &'c SimpleCommunicator) -> Self {
        Self {
            comm,
            sent: Vec::new(),
            stopped: false,
        }
    }

    /// Tells every later rank to stop.
    pub fn tell_later_ranks(&mut self) {
        let (rank, size) = (self.comm.rank(), self.comm.size());
        for later in rank + 1..size {
            let request = self.comm.process_at_rank(later).immediate_send_with_tag(
                StaticScope,
                &NOTICE,
                STOP,
            );
            self.sent.push(request);
        }
    }

    /// Whether an earlier rank broke or panicked (probed without blocking; once true, stays).
    pub fn stopped(&mut self) -> bool {
        if !self.stopped {
            self.stopped = self
                .comm
                .any_process()
                .immediate_probe_with_tag(STOP)
                .is_some();
        }
        self.stopped
    }

    /// Receives the `expected` notices addressed to this rank and completes this rank's sends.
    pub fn settle(mut self, expected: usize) {
        for _ in 0..expected {
            let mut byte = [0u8; 1];
            self.comm
                .any_process()
                .receive_into_with_tag(&mut byte[..], STOP);
        }
        for request in self.sent.drain(..) {
            request.wait();
        }
    }
}
