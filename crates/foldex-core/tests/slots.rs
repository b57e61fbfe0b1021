//! The element hand-outs of the audited module from safe code: `MutSlice`, `OwnedVec` and the
//! in-place `collect_vec`, with well-behaved and broken executors. Every element is dropped
//! exactly once, whatever panics.

use foldex_core::exec::VecWriter;
use foldex_core::source::{MutSlice, OwnedVec};
use foldex_core::{Executor, ExecutorExt, Job, Partial};
use foldex_seq::SequentialEx;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicIsize, Ordering};

/// Counts live values: +1 when made, -1 when dropped.
struct Counted<'c>(u64, &'c AtomicIsize);

impl<'c> Counted<'c> {
    fn new(value: u64, live: &'c AtomicIsize) -> Self {
        live.fetch_add(1, Ordering::Relaxed);
        Self(value, live)
    }
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.1.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Runs the whole job as two leaves, the right one first, combined in order.
struct RightFirst;

impl Executor for RightFirst {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let mid = job.len() / 2;
        let right = job.run(mid..job.len());
        let left = job.run(0..mid);
        job.combine(left, right)
    }
}

/// Runs `0..len` and then `0..1` again, combining the two: the overlap a broken executor makes.
struct RunsIndexZeroTwice;

impl Executor for RunsIndexZeroTwice {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let whole = job.run(0..job.len());
        let again = job.run(0..1.min(job.len()));
        job.combine(whole, again)
    }
}

/// Runs `0..len` on two threads at once: each index is asked for twice, concurrently.
struct RacesTheWholeRange;

impl Executor for RacesTheWholeRange {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        std::thread::scope(|s| {
            let other = s.spawn(|| drop(job.run(0..job.len())));
            let mine = job.run(0..job.len());
            let _ = other.join();
            mine
        })
    }
}

#[test]
fn mut_slice_lends_every_element_once() {
    let mut v: Vec<u64> = (0..10_000).collect();
    RightFirst.for_each(MutSlice::new(&mut v), |x| *x *= 3);
    assert!(v.iter().enumerate().all(|(i, &x)| x == 3 * i as u64));
}

#[test]
fn mut_slice_refuses_a_second_fold_and_a_broken_executor() {
    let mut v = vec![1u8; 100];
    let lent = MutSlice::new(&mut v);
    SequentialEx.for_each(&lent, |x| *x = 2);
    let again = catch_unwind(AssertUnwindSafe(|| {
        SequentialEx.for_each(&lent, |x| *x = 3)
    }));
    let message = *again.unwrap_err().downcast::<String>().unwrap();
    assert!(
        message.contains("a mutable slice runs once") && !message.contains("executor bug"),
        "{message}"
    );
    drop(lent);
    assert!(v.iter().all(|&x| x == 2));

    for broken in [&RunsIndexZeroTwice as &dyn Executor, &RacesTheWholeRange] {
        let mut v = vec![0u32; 5000];
        let r = catch_unwind(AssertUnwindSafe(|| {
            broken.for_each(MutSlice::new(&mut v), |x| *x += 1)
        }));
        let message = *r.unwrap_err().downcast::<String>().unwrap();
        assert!(message.contains("executor bug"), "{message}");
        // No element was written through two `&mut`: each was incremented at most once.
        assert!(v.iter().all(|&x| x <= 1));
    }
}

#[test]
fn owned_vec_moves_out_and_drops_what_was_not_taken() {
    let live = AtomicIsize::new(0);
    let items: Vec<Counted> = (0..10_000).map(|i| Counted::new(i, &live)).collect();
    let total = RightFirst.fold(OwnedVec::new(items), || 0, |s, c| s + c.0, |a, b| a + b);
    assert_eq!(total, (0..10_000).sum::<u64>());
    assert_eq!(live.load(Ordering::Relaxed), 0);

    // An early Break leaves most items untaken; they are dropped with the source.
    let items: Vec<Counted> = (0..10_000).map(|i| Counted::new(i, &live)).collect();
    let found = SequentialEx.try_fold(
        OwnedVec::new(items),
        || None,
        |_, c| {
            if c.0 == 7 {
                std::ops::ControlFlow::Break(Some(c.0))
            } else {
                std::ops::ControlFlow::Continue(None)
            }
        },
        |a, b| a.or(b),
    );
    assert_eq!(found, std::ops::ControlFlow::Break(Some(7)));
    assert_eq!(live.load(Ordering::Relaxed), 0);

    // It serves one fold: a second is refused before it takes anything, saying so.
    let items: Vec<Counted> = (0..100).map(|i| Counted::new(i, &live)).collect();
    let owned = OwnedVec::new(items);
    let first = SequentialEx.try_fold(
        &owned,
        || 0,
        |n, c| match c.0 {
            10 => std::ops::ControlFlow::Break(n),
            _ => std::ops::ControlFlow::Continue(n + 1),
        },
        |a, b| a + b,
    );
    assert_eq!(first, std::ops::ControlFlow::Break(10));
    let again = catch_unwind(AssertUnwindSafe(|| SequentialEx.for_each(&owned, drop)));
    let message = *again.unwrap_err().downcast::<String>().unwrap();
    assert!(
        message.contains("a Vec by value runs once") && !message.contains("executor bug"),
        "{message}"
    );
    drop(owned);
    assert_eq!(live.load(Ordering::Relaxed), 0);

    // A panic part-way through a range drops the rest of it.
    let items: Vec<Counted> = (0..10_000).map(|i| Counted::new(i, &live)).collect();
    let r = catch_unwind(AssertUnwindSafe(|| {
        RightFirst.for_each(OwnedVec::new(items), |c| assert_ne!(c.0, 9_000, "boom"))
    }));
    assert!(r.is_err());
    assert_eq!(live.load(Ordering::Relaxed), 0);

    for broken in [&RunsIndexZeroTwice as &dyn Executor, &RacesTheWholeRange] {
        let items: Vec<Counted> = (0..5000).map(|i| Counted::new(i, &live)).collect();
        let r = catch_unwind(AssertUnwindSafe(|| {
            broken.for_each(OwnedVec::new(items), drop)
        }));
        assert!(r.is_err());
        assert_eq!(
            live.load(Ordering::Relaxed),
            0,
            "every element dropped exactly once"
        );
    }
}

#[test]
fn collect_vec_writes_in_place_on_any_tree() {
    assert_eq!(
        RightFirst.collect_vec(0..10_000),
        (0..10_000).collect::<Vec<_>>()
    );
    assert_eq!(RightFirst.collect_vec(0..0), Vec::<usize>::new());
    assert_eq!(SequentialEx.collect_vec(0..1), vec![0]);
    let v: Vec<()> = RightFirst.collect_vec((0..1000).map_unit());
    assert_eq!(v.len(), 1000);
}

#[test]
fn collect_vec_drops_what_it_wrote_when_a_map_panics() {
    let live = AtomicIsize::new(0);
    let source: Vec<u64> = (0..10_000).collect();
    let r = catch_unwind(AssertUnwindSafe(|| {
        RightFirst.collect_vec(Mapped(&source, |&x: &u64| {
            if x == 6_000 {
                panic!("boom");
            }
            Counted::new(x, &live)
        }))
    }));
    assert_eq!(*r.err().unwrap().downcast::<&str>().unwrap(), "boom");
    assert_eq!(live.load(Ordering::Relaxed), 0);

    for broken in [&RunsIndexZeroTwice as &dyn Executor, &RacesTheWholeRange] {
        let r = catch_unwind(AssertUnwindSafe(|| {
            broken.collect_vec(Mapped(&source, |&x: &u64| Counted::new(x, &live)))
        }));
        assert!(r.is_err());
        assert_eq!(
            live.load(Ordering::Relaxed),
            0,
            "every element dropped exactly once"
        );
    }
}

#[test]
fn vec_writer_refuses_what_does_not_fit() {
    let out = VecWriter::<String>::new(3);
    let mut w = out.write(0..2);
    w.push("a".into());
    let short = catch_unwind(AssertUnwindSafe(|| w.finish()));
    let message = *short.unwrap_err().downcast::<String>().unwrap();
    assert!(
        message.contains("range 0..2 got 1 items, not 2"),
        "{message}"
    );
    let twice = catch_unwind(AssertUnwindSafe(|| out.write(1..3)));
    assert!(twice.is_err(), "slots 0..2 were handed out already");
    let other = VecWriter::<String>::new(1);
    let mut w = other.write(0..1);
    w.push("x".into());
    let foreign = w.finish();
    let r = catch_unwind(AssertUnwindSafe(|| out.finish(foreign)));
    assert!(r.is_err());
}

/// `source[i]` mapped by `f`.
struct Mapped<'s, T, F>(&'s [T], F);

impl<T: Sync, R, F: Fn(&T) -> R + Sync> foldex_core::Source for Mapped<'_, T, F> {
    type Item = R;
    fn len(&self) -> usize {
        self.0.len()
    }
    fn get(&self, i: usize) -> R {
        (self.1)(&self.0[i])
    }
}

/// `()` per index, for zero-sized items.
trait MapUnit {
    fn map_unit(self) -> Mapped<'static, (), fn(&()) -> ()>;
}

impl MapUnit for std::ops::Range<usize> {
    fn map_unit(self) -> Mapped<'static, (), fn(&()) -> ()> {
        let units: &'static [()] = Box::leak(vec![(); self.len()].into_boxed_slice());
        Mapped(units, |_| ())
    }
}

#[test]
fn an_empty_writer_after_finish_touches_nothing() {
    let out = VecWriter::<u64>::new(2);
    let mut w = out.write(0..2);
    w.fill([1, 2].into_iter());
    let v = out.finish(w.finish());
    drop(v);
    let mut empty = out.write(2..2);
    empty.fill(std::iter::empty());
    drop(empty.finish());
}

/// Panics in its drop when its value is 0.
struct PanicsOnDrop<'c>(u64, &'c AtomicIsize);

impl Drop for PanicsOnDrop<'_> {
    fn drop(&mut self) {
        self.1.fetch_sub(1, Ordering::Relaxed);
        if self.0 == 0 {
            panic!("drop of 0");
        }
    }
}

#[test]
fn a_panicking_drop_leaves_no_other_element_undropped() {
    let live = AtomicIsize::new(3);
    let items = vec![
        PanicsOnDrop(0, &live),
        PanicsOnDrop(1, &live),
        PanicsOnDrop(2, &live),
    ];
    let owned = OwnedVec::new(items);
    let r = catch_unwind(AssertUnwindSafe(|| drop(owned)));
    assert!(r.is_err());
    assert_eq!(live.load(Ordering::Relaxed), 0);
}

#[test]
fn too_many_zero_sized_elements_panic_instead_of_aborting() {
    let mut units = vec![(); usize::MAX];
    let r = catch_unwind(AssertUnwindSafe(|| MutSlice::new(&mut units).len()));
    let message = *r.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("no memory to track"), "{message}");
}
