//! AutoEx passes the shared conformance suite (it measures its own granularity, so the
//! suite's basesize is not used): called as usual, and by a thread that stands in for a helper
//! (a loader's driver), on the task pool and on work stealing.
use foldex_auto::AutoEx;

foldex_testkit::conformance_tests!(|_basesize| AutoEx::new());

mod standing_in {
    use foldex_auto::{AutoEx, Choice};
    use foldex_core::exec::stand_in_for_helper;
    use foldex_core::{Executor, ExecutorExt, Job, Partial};
    use std::time::Duration;

    /// Runs each fold as the helper's fold of its length that comes after `primed` others on
    /// a fresh `AutoEx`, so that it goes to the pool that is tried in that turn: the task pool
    /// first, then work stealing. (Which pool comes third depends on the times the first two
    /// took; the spare-core pool is a `ThreadedEx` with basesize 1, as work stealing is.)
    /// The priming folds stop at their first items, the first of which sleeps 1.5 ms (long
    /// enough to teach).
    pub struct Primed {
        pub primed: usize,
        pub expect: fn(Choice) -> bool,
    }

    impl Executor for Primed {
        fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
            let ex = AutoEx::new();
            for _ in 0..self.primed {
                let _first_items_only = stand_in_for_helper(|| {
                    ex.try_fold(
                        0..job.len(),
                        || (),
                        |(), i| {
                            if i == 0 {
                                std::thread::sleep(Duration::from_micros(1500));
                            }
                            std::ops::ControlFlow::Break(())
                        },
                        |(), ()| (),
                    )
                });
            }
            let partial = stand_in_for_helper(|| ex.execute(job));
            if !job.is_empty() {
                let choice = ex.last_choice().expect("a fold ran");
                assert!((self.expect)(choice), "{choice:?}");
            }
            partial
        }
        fn workers(&self) -> usize {
            AutoEx::new().workers()
        }
        fn help(&self) -> bool {
            AutoEx::new().help()
        }
    }
}

/// Nobody helps: the pools finish each fold by themselves.
mod suite_standing_in_task_pool {
    foldex_testkit::conformance_tests!(|_basesize| foldex_testkit::StandIn(
        foldex_auto::AutoEx::new()
    ));
}

mod suite_standing_in_work_stealing {
    foldex_testkit::conformance_tests!(|_basesize| super::standing_in::Primed {
        primed: 1,
        expect: |choice| choice == foldex_auto::Choice::HelperStealing,
    });
}
