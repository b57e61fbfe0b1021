//! SequentialEx passes the shared conformance suite.
use foldex_seq::SequentialEx;

foldex_testkit::conformance_tests!(|_basesize| SequentialEx);
