//! Whether this thread runs a piece while it waits for something below it on its own stack: a
//! worker waiting for a half it forked, or a consumer inside [`Executor::help`]. Such pieces,
//! and the leaves of this crate's folds nested in them on the same thread, go through
//! [`Job::run_while_waiting`](foldex_core::Job::run_while_waiting). The count covers every
//! pool of the process: a worker of one pool waiting in a fold of another still waits.
//!
//! [`Executor::help`]: foldex_core::Executor::help

foldex_core::wait_depth! {
    /// This thread's waits in which it runs this crate's tasks.
    pub(crate) static WAITING;
}
