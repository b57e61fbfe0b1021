//! Whether this thread runs work inside [`AutoEx::help`](crate::AutoEx): a fold on `AutoEx`
//! nested in such work hands its pools a
//! [`WhileWaiting`](foldex_core::exec::WhileWaiting) job, since the pool that ran the outer
//! piece may not be the one that runs the nested fold.

foldex_core::wait_depth! {
    /// This thread's waits inside `AutoEx::help`.
    pub(crate) static WAITING;
}
