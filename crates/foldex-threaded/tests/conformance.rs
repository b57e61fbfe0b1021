//! ThreadedEx passes the shared conformance suite for 1, 2, 3 and 8 threads, with basesize 1,
//! 7, auto, and the suite's own mix of basesizes.
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

suite!(threads1_basesize1, 1, fixed(1));
suite!(threads1_basesize7, 1, fixed(7));
suite!(threads1_auto, 1, Some(Basesize::Auto));
suite!(threads2_basesize1, 2, fixed(1));
suite!(threads2_basesize7, 2, fixed(7));
suite!(threads2_auto, 2, Some(Basesize::Auto));
suite!(threads2_mixed, 2, None);
suite!(threads3_basesize1, 3, fixed(1));
suite!(threads3_basesize7, 3, fixed(7));
suite!(threads3_auto, 3, Some(Basesize::Auto));
suite!(threads8_basesize1, 8, fixed(1));
suite!(threads8_basesize7, 8, fixed(7));
suite!(threads8_auto, 8, Some(Basesize::Auto));
suite!(threads8_mixed, 8, None);

// The global pool, as `ThreadedEx::new()` uses it.
mod global_pool {
    use super::*;
    foldex_testkit::conformance_tests!(
        |basesize: Basesize| ThreadedEx::new().with_basesize(basesize)
    );
}
