//! TaskPoolEx passes the shared conformance suite for ntasks 1, 2 and 5, basesize 1, 3 and
//! auto, with background mode on and off (the suite's roles check calls folds as a loader's
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

suite! {
    n1_b1_fg: 1, fixed(1), false;
    n1_b1_bg: 1, fixed(1), true;
    n1_b3_fg: 1, fixed(3), false;
    n1_b3_bg: 1, fixed(3), true;
    n1_auto_fg: 1, Basesize::Auto, false;
    n1_auto_bg: 1, Basesize::Auto, true;
    n2_b1_fg: 2, fixed(1), false;
    n2_b1_bg: 2, fixed(1), true;
    n2_b3_fg: 2, fixed(3), false;
    n2_b3_bg: 2, fixed(3), true;
    n2_auto_fg: 2, Basesize::Auto, false;
    n2_auto_bg: 2, Basesize::Auto, true;
    n5_b1_fg: 5, fixed(1), false;
    n5_b1_bg: 5, fixed(1), true;
    n5_b3_fg: 5, fixed(3), false;
    n5_b3_bg: 5, fixed(3), true;
    n5_auto_fg: 5, Basesize::Auto, false;
    n5_auto_bg: 5, Basesize::Auto, true;
}

/// The suite's own mix of basesizes (auto, small, odd, large), in both modes.
mod suite_mix_fg {
    foldex_testkit::conformance_tests!(|bs| super::pool(2).with_basesize(bs).background(false));
}
mod suite_mix_bg {
    foldex_testkit::conformance_tests!(|bs| super::pool(5).with_basesize(bs).background(true));
}
