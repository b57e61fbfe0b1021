//! SequentialEx passes the shared conformance suite: every fold over a source runs inline
//! (`Executor::runs_inline`), with no job. The same suite over a wrapper that runs folds of
//! at most 100 items inline (the odd lengths timed) and hands longer ones to
//! `SequentialEx::execute` checks the job's path and the timed one, and that all give the same
//! results.
use foldex_seq::SequentialEx;

foldex_testkit::conformance_tests!(|_basesize| SequentialEx);

mod up_to_100 {
    use foldex_seq::SequentialEx;
    use foldex_testkit::InlineUpTo;

    foldex_testkit::conformance_tests!(|_basesize| InlineUpTo {
        up_to: 100,
        ex: SequentialEx
    });
}
