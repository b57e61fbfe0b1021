//! The automatic basesize measures the first items: small folds stay on the caller, large ones are handed on
//! with a leaf length from their measured cost, and every index runs once, in order.

use foldex_core::exec::{measure_first_items, FirstItems, LEAF_TIME, WAKE_UP};
use foldex_core::{Executor, ExecutorExt, Job, Partial};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// An executor that runs the measurement, then the rest as one piece, and records what it decided.
#[derive(Default)]
struct Measuring {
    /// `(rest's start, rest's len, leaf)` of the last fold that was handed on.
    handed_on: Mutex<Option<(usize, usize, Option<usize>)>>,
}

impl Executor for Measuring {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        match measure_first_items(job, 2) {
            FirstItems::Done(partial) => {
                *self.handed_on.lock().unwrap() = None;
                partial
            }
            FirstItems::Rest(rest) => {
                let len = rest.job().len();
                let start = job.len() - len;
                let leaf = rest.leaf_len().map(|l| l.get());
                *self.handed_on.lock().unwrap() = Some((start, len, leaf));
                let partial = rest.job().run(0..len);
                rest.finish(partial)
            }
        }
    }
}

fn spin(d: Duration) {
    let until = Instant::now() + d;
    while Instant::now() < until {
        std::hint::spin_loop();
    }
}

#[test]
fn a_small_cheap_fold_runs_to_its_end_on_the_caller() {
    let ex = Measuring::default();
    for len in [0, 1, 2, 7, 8, 100] {
        let got = ex.collect_vec(0..len);
        assert_eq!(got, (0..len).collect::<Vec<_>>());
        assert!(
            ex.handed_on.lock().unwrap().is_none(),
            "len {len} was handed on"
        );
    }
}

#[test]
fn a_costly_fold_is_handed_on_with_a_leaf_from_its_cost() {
    let ex = Measuring::default();
    let item = Duration::from_micros(5);
    let runs = AtomicUsize::new(0);
    let sum = ex.map_reduce(
        0..200usize,
        |i| {
            runs.fetch_add(1, Ordering::Relaxed);
            spin(item);
            i
        },
        || 0,
        |a, b| a + b,
    );
    assert_eq!(sum, 199 * 200 / 2);
    assert_eq!(runs.load(Ordering::Relaxed), 200, "every index once");
    let (start, len, leaf) = ex.handed_on.lock().unwrap().expect("handed on");
    assert_eq!(start + len, 200);
    assert!(start >= 1, "the measurement ran the first items");
    // Items of at least 5 µs: a leaf of LEAF_TIME holds at most LEAF_TIME / 5 µs of them.
    let most = (LEAF_TIME.as_micros() / item.as_micros()) as usize;
    let leaf = leaf.expect("the clock advanced over 5 µs");
    assert!((1..=most).contains(&leaf), "leaf {leaf}");
    assert!(WAKE_UP < item * 200, "the fold is worth handing on");
}

#[test]
fn a_break_among_the_first_items_gives_the_sequential_answer() {
    let ex = Measuring::default();
    for stop_at in [0usize, 1, 3, 500, 9_999] {
        let got = ex.try_fold(
            0..1_000_000usize,
            || 0usize,
            |acc, i| {
                if i == stop_at {
                    std::ops::ControlFlow::Break(acc)
                } else {
                    std::ops::ControlFlow::Continue(acc + i)
                }
            },
            |a, b| a + b,
        );
        let want = (0..stop_at).sum::<usize>();
        assert_eq!(got, std::ops::ControlFlow::Break(want), "stop at {stop_at}");
    }
}

#[test]
fn a_panic_among_the_first_items_reaches_the_caller() {
    let ex = Measuring::default();
    let caught = std::panic::catch_unwind(|| {
        ex.for_each(0..10_000usize, |i| {
            if i == 2 {
                panic!("item 2");
            }
        })
    });
    assert_eq!(caught.unwrap_err().downcast_ref::<&str>(), Some(&"item 2"));
}
