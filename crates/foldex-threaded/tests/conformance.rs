//! ThreadedEx passes the shared conformance suite for 1, 2, 3 and 8 threads with the suite's
//! own mix of basesizes, and with basesize 1 on 2 and 8 threads. DepthFirstEx passes it on
//! those pools of 1, 2 and 3 threads with the suite's basesizes, and with basesize 1 on 2.
use foldex_core::Basesize;
use foldex_threaded::{Pool, ThreadedEx};
use std::sync::OnceLock;

/// One pool per thread count, shared by every test of that count (as folds share a pool).
fn pool(threads: usize) -> Pool {
    static POOLS: [OnceLock<Pool>; 4] = [const { OnceLock::new() }; 4];
    let slot = [1, 2, 3, 8]
        .iter()
        .position(|&t| t == threads)
        .expect("a tested count");
    POOLS[slot].get_or_init(|| Pool::new(threads)).clone()
}

macro_rules! suite {
    ($name:ident, $threads:expr, $basesize:expr) => {
        mod $name {
            use super::*;
            foldex_testkit::conformance_tests!(|suite_basesize: Basesize| {
                let basesize: Option<Basesize> = $basesize;
                ThreadedEx::new()
                    .pool(pool($threads))
                    .with_basesize(basesize.unwrap_or(suite_basesize))
            });
        }
    };
}

fn fixed(n: usize) -> Option<Basesize> {
    Some(Basesize::fixed(n).expect("nonzero"))
}

// Each count with the suite's mix of basesizes (auto, 1 to 8, larger), and the finest split
// (basesize 1, the most forks and steals) on 2 and 8 threads.
suite!(threads1_mixed, 1, None);
suite!(threads2_mixed, 2, None);
suite!(threads3_mixed, 3, None);
suite!(threads8_mixed, 8, None);
suite!(threads2_basesize1, 2, fixed(1));
suite!(threads8_basesize1, 8, fixed(1));

// The global pool, as `ThreadedEx::new()` uses it.
mod global_pool {
    use super::*;
    foldex_testkit::conformance_tests!(
        |basesize: Basesize| ThreadedEx::new().with_basesize(basesize)
    );
}

macro_rules! depth_first {
    ($name:ident, $threads:expr, $basesize:expr) => {
        mod $name {
            use super::*;
            use foldex_threaded::DepthFirstEx;
            foldex_testkit::conformance_tests!(|suite_basesize: Basesize| {
                let basesize: Option<Basesize> = $basesize;
                DepthFirstEx::on(ThreadedEx::new().pool(pool($threads)))
                    .with_basesize(basesize.unwrap_or(suite_basesize))
            });
        }
    };
}

depth_first!(depth_first1_mixed, 1, None);
depth_first!(depth_first2_mixed, 2, None);
depth_first!(depth_first3_mixed, 3, None);
depth_first!(depth_first2_basesize1, 2, fixed(1));
