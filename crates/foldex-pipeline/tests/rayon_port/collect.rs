//! rayon's `tests/collect.rs`: a panic in the middle of a `collect` drops every item made.

use super::*;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

struct Recorddrop<'a>(i64, &'a Mutex<Vec<i64>>);

impl Drop for Recorddrop<'_> {
    fn drop(&mut self) {
        self.1.lock().unwrap().push(self.0);
    }
}

#[test]
fn collect_drop_on_unwind() {
    each("collect_drop_on_unwind", |ex, what| {
        for will_panic in [true, false] {
            let test_vec_len = 1024;
            let panic_point = 740;

            let mut inserts = Mutex::new(Vec::new());
            let mut drops = Mutex::new(Vec::new());

            let mut a = (0..test_vec_len).collect::<Vec<i64>>();
            let b = (0..test_vec_len).collect::<Vec<i64>>();

            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                let result: Vec<Recorddrop<'_>> = (&mut a)
                    .pipe()
                    .zip(&b)
                    .map(|(&mut a, &b)| {
                        if a > panic_point && will_panic {
                            panic!("unwinding for test");
                        }
                        let elt = a + b;
                        inserts.lock().unwrap().push(elt);
                        Recorddrop(elt, &drops)
                    })
                    .collect(ex);
                // If we reach this point, this must pass.
                assert_eq!(a.len(), result.len());
            }));
            assert_eq!(result.is_err(), will_panic, "{what}");

            let inserts = inserts.get_mut().unwrap();
            let drops = drops.get_mut().unwrap();
            assert_eq!(inserts.len(), drops.len(), "drops: {what}");
            inserts.sort();
            drops.sort();
            assert_eq!(inserts, drops, "elements dropped: {what}");
        }
    });
}

static INSERTS: AtomicUsize = AtomicUsize::new(0);
static DROPS: AtomicUsize = AtomicUsize::new(0);

struct RecorddropZst;

impl Drop for RecorddropZst {
    fn drop(&mut self) {
        DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn collect_drop_on_unwind_zst() {
    each("collect_drop_on_unwind_zst", |ex, what| {
        for will_panic in [true, false] {
            INSERTS.store(0, Ordering::SeqCst);
            DROPS.store(0, Ordering::SeqCst);

            let test_vec_len = 1024;
            let panic_point = 740;

            let a = (0..test_vec_len).collect::<Vec<_>>();

            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                let result: Vec<RecorddropZst> = a
                    .pipe()
                    .map(|&a| {
                        if a > panic_point && will_panic {
                            panic!("unwinding for test");
                        }
                        INSERTS.fetch_add(1, Ordering::SeqCst);
                        RecorddropZst
                    })
                    .collect(ex);
                // If we reach this point, this must pass.
                assert_eq!(a.len(), result.len());
            }));
            assert_eq!(result.is_err(), will_panic, "{what}");

            let inserts = INSERTS.load(Ordering::SeqCst);
            let drops = DROPS.load(Ordering::SeqCst);
            assert_eq!(inserts, drops, "drops: {what}");
            assert!(will_panic || drops == test_vec_len, "{what}");
        }
    });
}
