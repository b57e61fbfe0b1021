//! The testkit's composition suite (random chains against `std::iter`) on the built-in
//! executors, split as finely as they go; the conformance suite of each executor runs it too.

use foldex_core::Basesize;
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_threaded::ThreadedEx;

#[test]
fn chains_on_one_piece_make_stds_calls_in_order() {
    foldex_testkit::compositions::check_compositions_in_order(&SequentialEx);
}

#[test]
fn chains_on_threaded_match_std() {
    foldex_testkit::check_compositions(|basesize: Basesize| {
        ThreadedEx::new().threads(2).with_basesize(basesize)
    });
}

#[test]
fn chains_on_a_task_pool_match_std() {
    foldex_testkit::check_compositions(|basesize: Basesize| {
        TaskPoolEx::new().ntasks(3).with_basesize(basesize)
    });
}
