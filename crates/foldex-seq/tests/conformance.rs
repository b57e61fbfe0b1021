//! SequentialEx passes the shared conformance suite: every fold over a source runs inline
//! (`Executor::runs_inline`), with no job. The same suite over a wrapper that runs folds of
//! at most 100 items inline (the odd lengths timed) and hands longer ones to
//! `SequentialEx::execute` checks the job's path and the timed one, and that all give the same
//! results. NonThreadedEx passes it with the suite's basesizes, and as the tree of 1 and 3 threads.
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

mod non_threaded {
    use foldex_core::Basesize;
    use foldex_seq::NonThreadedEx;

    foldex_testkit::conformance_tests!(
        |basesize: Basesize| NonThreadedEx::new().with_basesize(basesize)
    );

    mod one_thread {
        use foldex_seq::NonThreadedEx;
        foldex_testkit::conformance_tests!(|_basesize| NonThreadedEx::new().threads(1));
    }

    mod three_threads {
        use foldex_seq::NonThreadedEx;
        foldex_testkit::conformance_tests!(|_basesize| NonThreadedEx::new().threads(3));
    }
}
