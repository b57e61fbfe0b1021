//! Whether this thread runs a chunk while it waits for something below it on its own stack (a
//! consumer inside [`Executor::help`]). Such chunks, and those of this crate's folds nested in
//! them on the same thread, go through
//! [`Job::run_while_waiting`](foldex_core::Job::run_while_waiting). The count covers every
//! pool of the process.
//!
//! [`Executor::help`]: foldex_core::Executor::help

foldex_core::wait_depth! {
    /// This thread's waits in which it runs this crate's chunks.
    pub(crate) static WAITING;
}
