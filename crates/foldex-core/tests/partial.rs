//! Partials hold small values in place and large ones boxed; either way each value is dropped
//! exactly once, whether it is unwrapped or not.

use foldex_core::Brand;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Counts its drops; one word (an `Arc`), so it is held in place.
struct Small(Arc<AtomicUsize>);

impl Drop for Small {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// The same, padded past two words, so it is boxed.
#[allow(dead_code)] // the fields are there for their size and their drop
struct Large(Small, [u64; 4]);

#[test]
fn small_and_large_values_round_trip() {
    let small = Brand::<(u64, u32)>::new();
    assert_eq!(small.unwrap(small.wrap((7, 8))), (7, 8));
    let large = Brand::<[u64; 5]>::new();
    assert_eq!(large.unwrap(large.wrap([1, 2, 3, 4, 5])), [1, 2, 3, 4, 5]);
    let aligned = Brand::<u128>::new();
    assert_eq!(aligned.unwrap(aligned.wrap(u128::MAX - 1)), u128::MAX - 1);
    let text = String::from("borrowed");
    let borrowing = Brand::<&str>::new();
    assert_eq!(borrowing.unwrap(borrowing.wrap(text.as_str())), "borrowed");
}

#[test]
fn every_value_is_dropped_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let small = Brand::<Small>::new();
    let large = Brand::<Large>::new();

    drop(small.wrap(Small(Arc::clone(&drops))));
    assert_eq!(
        drops.load(Ordering::Relaxed),
        1,
        "a small partial dropped unwrapped"
    );
    drop(small.unwrap(small.wrap(Small(Arc::clone(&drops)))));
    assert_eq!(
        drops.load(Ordering::Relaxed),
        2,
        "a small value unwrapped, then dropped"
    );

    drop(large.wrap(Large(Small(Arc::clone(&drops)), [0; 4])));
    assert_eq!(
        drops.load(Ordering::Relaxed),
        3,
        "a large partial dropped unwrapped"
    );
    drop(large.unwrap(large.wrap(Large(Small(Arc::clone(&drops)), [0; 4]))));
    assert_eq!(
        drops.load(Ordering::Relaxed),
        4,
        "a large value unwrapped, then dropped"
    );
}

#[test]
fn partials_cross_threads() {
    let brand = Brand::<u64>::new();
    let partial = brand.wrap(41);
    let partial = std::thread::spawn(move || partial).join().unwrap();
    assert_eq!(brand.unwrap(partial) + 1, 42);
}
