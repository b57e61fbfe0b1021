//! rayon's `tests/iter_panic.rs`.

use super::*;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// The items `for_each` reached before the panic of `run` (which must panic with "boom").
fn count(what: &str, run: impl FnOnce(&AtomicUsize)) -> usize {
    let count = AtomicUsize::new(0);
    let result = panic::catch_unwind(AssertUnwindSafe(|| run(&count)));
    let payload = result.expect_err(what);
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom"), "{what}");
    count.into_inner()
}

/// rayon runs this on a 1-thread pool with `with_max_len(1)`, where without `panic_fuse`
/// every item but the panicking one is reached, and with it fewer. foldex's `panic_fuse` is
/// the identity (`Pipeline::panic_fuse`'s doc: a panic already stops all work to its right),
/// so with or without it fewer are reached: on the executors that run on one thread in order
/// (`SequentialEx`, `NonThreadedEx`) exactly the items before the panic (after it, backwards),
/// on every executor the panic with its payload. Without rayon's `with_max_len(1)`: 65 536
/// one-item pieces, four runs on each executor, would cost the debug run seconds.
#[test]
fn iter_panic_fuse() {
    const ITER: std::ops::Range<i32> = 0..0x1_0000;
    const PANIC: i32 = 0xC000;
    each("iter_panic_fuse", |ex, what| {
        let one_thread = what.ends_with("on SequentialEx") || what.contains("NonThreadedEx");
        let tick = |c: &AtomicUsize| {
            c.fetch_add(1, Ordering::Relaxed);
        };
        let forwards = [
            count(what, |c| {
                ITER.pipe().inspect(check).for_each(ex, |_| tick(c))
            }),
            count(what, |c| {
                ITER.pipe()
                    .inspect(check)
                    .panic_fuse()
                    .for_each(ex, |_| tick(c))
            }),
            count(what, |c| {
                ITER.pipe()
                    .panic_fuse()
                    .inspect(check)
                    .for_each(ex, |_| tick(c))
            }),
        ];
        // rayon's `inspect(check).rev()`: foldex's `rev` comes before a transform.
        let backwards = count(what, |c| {
            ITER.pipe()
                .panic_fuse()
                .rev()
                .inspect(check)
                .for_each(ex, |_| tick(c))
        });
        if one_thread {
            for n in forwards {
                assert_eq!(n, PANIC as usize, "{what}");
            }
            assert_eq!(backwards, (ITER.end - PANIC - 1) as usize, "{what}");
        }
    });
}
