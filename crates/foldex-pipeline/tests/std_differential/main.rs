//! The pipeline crate's tests against `std::iter` (or a sequential model where std lacks the
//! method), one module per part of the vocabulary, on every executor configuration through
//! `&dyn Executor`. They are one test binary because each binary links the executors and the
//! testkit anew: twelve binaries took longer to build than their tests take to run.
//!
//! Run one part with a filter: `cargo test -p foldex-pipeline --test std_differential sort::`.
//! The tests that need a binary of their own stay apart: `collect_memory` and
//! `word_count_allocations` install a counting global allocator, `reducers_progress` is built
//! again with the `indicatif` feature, and `rayon_port` is rayon's tests, ported.

#[path = "../common/mod.rs"]
mod common;

mod adapters_std;
mod borrowed;
mod compositions;
mod differential;
mod encoded;
mod from_right;
mod in_place;
mod nested;
mod reductions_std;
mod sort;
mod sources_std;
mod stacked;
mod transforms_std;
