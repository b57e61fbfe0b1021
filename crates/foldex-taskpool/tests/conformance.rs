//! TaskPoolEx passes the shared conformance suite for ntasks 1, 2 and 5 with the suite's mix of
//! basesizes, and with basesize 1, with background mode on and off (the suite's roles check calls folds as a loader's
//! driver does, with a helper and without).
use foldex_core::Basesize;
use foldex_taskpool::TaskPoolEx;
use std::sync::OnceLock;

/// One pool per task count, shared by every test of that count (as folds share a pool); each
/// test sets its own basesize and mode on a clone of the handle.
fn pool(ntasks: usize) -> TaskPoolEx {
    static POOLS: [OnceLock<TaskPoolEx>; 3] = [const { OnceLock::new() }; 3];
    let lane = [1, 2, 5]
        .iter()
        .position(|&n| n == ntasks)
        .expect("a tested count");
    POOLS[lane]
        .get_or_init(|| TaskPoolEx::new().ntasks(ntasks))
        .clone()
}

macro_rules! suite {
    ($($name:ident: $ntasks:expr, $basesize:expr, $background:expr;)*) => {$(
        mod $name {
            use super::*;
            foldex_testkit::conformance_tests!(|_suite_basesize: Basesize| {
                let basesize: Basesize = $basesize;
                pool($ntasks).with_basesize(basesize).background($background)
            });
        }
    )*};
}

fn fixed(n: usize) -> Basesize {
    Basesize::fixed(n).expect("nonzero")
}

// Basesize 1 (a chunk per index, the most claims) in both modes.
suite! {
    n2_b1_fg: 2, fixed(1), false;
    n5_b1_bg: 5, fixed(1), true;
}

/// Each count with the suite's own mix of basesizes (auto, small, odd, large), in both modes.
macro_rules! mixed {
    ($($name:ident: $ntasks:expr, $background:expr;)*) => {$(
        mod $name {
            foldex_testkit::conformance_tests!(
                |bs| super::pool($ntasks).with_basesize(bs).background($background)
            );
        }
    )*};
}

mixed! {
    n1_fg: 1, false;
    n1_bg: 1, true;
    n2_fg: 2, false;
    n2_bg: 2, true;
    n5_fg: 5, false;
    n5_bg: 5, true;
}
