//! rayon's `tests/iter_panic.rs`.

use super::*;
use std::panic::{self, AssertUnwindSafe};

fn check(&i: &i32) {
    if i == 0xC000 {
        panic!("boom")
    }
}

/// rayon: `#[should_panic(expected = "boom")]`; here every executor re-raises the panic
/// with its payload.
#[test]
fn iter_panic() {
    each("iter_panic", |ex, what| {
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            (0_i32..0x1_0000).pipe().for_each(ex, |i| check(&i));
        }));
        let payload = result.expect_err(what);
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom"), "{what}");
    });
}
