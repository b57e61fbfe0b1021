//! AutoEx passes the shared conformance suite (it measures its own granularity, so the
//! suite's basesize is not used).
use foldex_auto::AutoEx;

foldex_testkit::conformance_tests!(|_basesize| AutoEx::new());
