//! AutoEx passes the shared conformance suite (it measures its own granularity, so the
//! suite's basesize is not used). The suite's roles check calls folds as a loader's driver does,
//! which go to the task pool first; they go to work stealing once that has its turn.
use foldex_auto::AutoEx;

foldex_testkit::conformance_tests!(|_basesize| AutoEx::new());

mod standing_in {
    use foldex_auto::{AutoEx, Choice};
    use foldex_core::exec::StandIn;
    use foldex_core::{Executor, ExecutorExt, Job, Partial};
    use foldex_testkit::AsDriver;
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
                let _first_items_only = AsDriver(&ex).try_fold(
                    0..job.len(),
                    || (),
                    |(), i| {
                        if i == 0 {
                            std::thread::sleep(Duration::from_micros(1500));
                        }
                        std::ops::ControlFlow::Break(())
                    },
                    |(), ()| (),
                );
            }
            let partial = ex.execute(&StandIn(job));
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

/// The roles on work stealing: each fold the second of its length on a fresh `AutoEx`.
#[test]
fn roles_on_work_stealing() {
    foldex_testkit::check_roles(|_basesize| standing_in::Primed {
        primed: 1,
        expect: |choice| choice == foldex_auto::Choice::HelperStealing,
    });
}
