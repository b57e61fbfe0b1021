//! Folds an executor runs inline (`Executor::runs_inline`): no job reaches `execute`, and every
//! promise of the job's path holds (results, `Break`, panic payloads, items handed out once,
//! codecs); a fold over a stream, or one that can be cancelled, still gets its job. A fold the
//! executor asked to time is reported to `ran_inline` once it ran to its end, and only then.
#![cfg(not(loom))]

use foldex_core::codec::Encoded;
use foldex_core::source::OwnedVec;
use foldex_core::{Codec, Executor, ExecutorExt, Job, Partial, RunsInline, SpawnExt, Stream};
use std::ops::ControlFlow::{self, Break, Continue};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Runs folds of at most `up_to` items inline (timed with `timed`), longer ones as one piece;
/// counts the jobs it was given, and notes the folds reported to `ran_inline`.
#[derive(Default)]
struct Counting {
    up_to: usize,
    timed: bool,
    jobs: AtomicUsize,
    reported: Mutex<Vec<(usize, Duration)>>,
}

impl Counting {
    fn inline() -> Self {
        Self {
            up_to: usize::MAX,
            ..Self::default()
        }
    }

    fn jobs(&self) -> usize {
        self.jobs.load(Ordering::Relaxed)
    }

    /// The lengths of the folds reported since the last call.
    fn reported(&self) -> Vec<usize> {
        let mut reported = self.reported.lock().unwrap();
        reported.drain(..).map(|(len, _)| len).collect()
    }
}

impl Executor for Counting {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        self.jobs.fetch_add(1, Ordering::Relaxed);
        job.run(0..job.len())
    }
    fn runs_inline(&self, len: usize) -> RunsInline {
        match len <= self.up_to {
            false => RunsInline::No,
            true if self.timed => RunsInline::Timed,
            true => RunsInline::Yes,
        }
    }
    fn ran_inline(&self, len: usize, took: Duration) {
        self.reported.lock().unwrap().push((len, took));
    }
}

#[test]
fn every_fold_over_a_source_skips_the_job() {
    let ex = Counting::inline();
    let v: Vec<u64> = (0..10_000).collect();
    assert_eq!(ex.sum::<u64>(&v), v.iter().sum::<u64>());
    assert_eq!(ex.fold(&v, || 0, |a, &x| a + x, |a, b| a + b), 49_995_000);
    let stop = |a: u64, &x: &u64| if x == 5000 { Break(a) } else { Continue(a + x) };
    assert_eq!(
        ex.try_fold(&v, || 0, stop, |a, b| a + b),
        v.iter().try_fold(0, stop)
    );
    let visits = AtomicUsize::new(0);
    ex.for_each(0..100, |_| {
        visits.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(visits.into_inner(), 100);
    assert_eq!(ex.map_reduce(&v, |&x| x % 7, || 0, u64::max), 6);
    assert_eq!(ex.collect_vec(3..7), vec![3, 4, 5, 6]);
    assert_eq!(ex.jobs(), 0);
    // A stream is pulled in batches by its job.
    assert_eq!(ex.sum::<u64>(Stream::new(v.iter())), 49_995_000);
    assert!(ex.jobs() > 0);
}

#[test]
fn the_hint_decides_per_length_and_both_paths_agree() {
    let ex = Counting {
        up_to: 100,
        ..Counting::default()
    };
    for len in [0, 1, 100, 101, 5000, 9000] {
        let jobs = ex.jobs();
        let got = ex.fold(
            0..len,
            Vec::new,
            |mut v, i| {
                v.push(i);
                v
            },
            |mut a, mut b| {
                a.append(&mut b);
                a
            },
        );
        assert_eq!(got, (0..len).collect::<Vec<_>>());
        assert_eq!(ex.jobs() - jobs, usize::from(len > 100), "len {len}");
    }
    // Through `&`, `Box` and `Arc`, and `dyn Executor`.
    let boxed: Box<dyn Executor> = Box::new(Counting::inline());
    let by_ref: &dyn Executor = &&*boxed;
    assert_eq!(boxed.runs_inline(7), RunsInline::Yes);
    assert_eq!(by_ref.runs_inline(7), RunsInline::Yes);
    assert_eq!(Arc::new(Counting::inline()).runs_inline(7), RunsInline::Yes);
    let timed = Arc::new(Counting {
        up_to: 100,
        timed: true,
        ..Counting::default()
    });
    // `&` of `Box` of `Arc`.
    let boxed: Box<dyn Executor> = Box::new(Arc::clone(&timed));
    let forwarded: &dyn Executor = &&boxed;
    assert_eq!(forwarded.runs_inline(7), RunsInline::Timed);
    assert_eq!(forwarded.runs_inline(101), RunsInline::No);
    forwarded.ran_inline(7, Duration::from_nanos(3));
    assert_eq!(
        *timed.reported.lock().unwrap(),
        [(7, Duration::from_nanos(3))]
    );
}

#[test]
fn a_timed_fold_is_reported_once_it_ran_to_its_end() {
    let ex = Counting {
        up_to: 100,
        timed: true,
        ..Counting::default()
    };
    let spin = |a: usize, i: usize| {
        let until = std::time::Instant::now() + Duration::from_micros(20);
        while std::time::Instant::now() < until {}
        a + i
    };
    assert_eq!(ex.fold(0..50usize, || 0, spin, |a, b| a + b), 49 * 50 / 2);
    let reported = std::mem::take(&mut *ex.reported.lock().unwrap());
    assert_eq!(reported.len(), 1);
    assert_eq!(reported[0].0, 50);
    assert!(reported[0].1 >= Duration::from_millis(1), "{reported:?}");
    for len in [0usize, 1, 100] {
        assert_eq!(ex.sum::<usize>(0..len), (0..len).sum::<usize>());
        assert_eq!(ex.reported(), [len]);
    }
    // Through its job: not timed by the typed layer.
    assert_eq!(ex.sum::<usize>(0..101), 5050);
    assert_eq!(ex.jobs(), 1);
    // A fold that cannot be cancelled runs to its end; one that breaks is not reported, nor
    // is a fold that stopped at its very last item.
    let stop_at =
        |at: usize| move |a: usize, i: usize| if i == at { Break(a) } else { Continue(a + i) };
    assert_eq!(ex.try_fold(0..10, || 0, stop_at(3), |a, b| a + b), Break(3));
    assert_eq!(
        ex.try_fold(0..10, || 0, stop_at(9), |a, b| a + b),
        Break(36)
    );
    assert_eq!(
        ex.try_fold(0..10, || 0, stop_at(10), |a, b| a + b),
        Continue(45)
    );
    assert_eq!(ex.reported(), [10]);
    // Nor is a fold that panicked.
    #[cfg(panic = "unwind")]
    {
        let panicked = panic::catch_unwind(AssertUnwindSafe(|| {
            ex.for_each(0..10usize, |i| assert!(i != 9, "boom"));
        }));
        assert!(panicked.is_err());
        assert_eq!(ex.reported(), Vec::<usize>::new());
    }
    // Untimed, nothing is reported.
    let untimed = Counting::inline();
    assert_eq!(untimed.sum::<usize>(0..10), 45);
    assert_eq!(untimed.reported(), Vec::<usize>::new());
}

#[test]
fn a_break_stops_at_once_as_std_try_fold_does() {
    let ex = Counting::inline();
    for len in [0usize, 1, 5, 4096, 4097, 10_000] {
        for stop in [0usize, 3, 4095, 4096, 9_999, usize::MAX] {
            let seen = AtomicUsize::new(0);
            let step = |acc: Vec<usize>, i: usize| {
                seen.fetch_add(1, Ordering::Relaxed);
                let mut acc = acc;
                acc.push(i);
                if i == stop {
                    Break(acc)
                } else {
                    Continue(acc)
                }
            };
            let got = ex.try_fold(0..len, Vec::new, step, |mut a, mut b| {
                a.append(&mut b);
                a
            });
            let want_seen = len.min(stop.saturating_add(1));
            assert_eq!(
                seen.swap(0, Ordering::Relaxed),
                want_seen,
                "len {len}, stop {stop}"
            );
            assert_eq!(
                got,
                (0..len).try_fold(Vec::new(), step),
                "len {len}, stop {stop}"
            );
        }
    }
}

#[derive(Debug, PartialEq)]
struct Boom(usize);

#[test]
#[cfg(panic = "unwind")]
fn a_panic_unwinds_with_its_payload_after_one_init() {
    let ex = Counting::inline();
    for at in [0usize, 17, 4096, 9_999] {
        let inits = AtomicUsize::new(0);
        let init = || {
            inits.fetch_add(1, Ordering::Relaxed);
            0usize
        };
        let payload = panic::catch_unwind(AssertUnwindSafe(|| {
            ex.fold(
                0..10_000,
                init,
                |a, i| {
                    if i == at {
                        panic::panic_any(Boom(i));
                    }
                    a + i
                },
                |a, b| a + b,
            )
        }))
        .expect_err("the step panics");
        assert_eq!(payload.downcast_ref::<Boom>(), Some(&Boom(at)));
        assert_eq!(inits.into_inner(), 1);
    }
    let in_init = panic::catch_unwind(AssertUnwindSafe(|| {
        ex.sum::<usize>(0..0);
        ex.fold(
            0..3,
            || -> usize { panic::panic_any(Boom(7)) },
            |a, i| a + i,
            |a, b| a + b,
        )
    }))
    .expect_err("init panics");
    assert_eq!(in_init.downcast_ref::<Boom>(), Some(&Boom(7)));
    assert_eq!(ex.jobs(), 0);
}

/// Counts live values: +1 when made, -1 when dropped.
struct Counted<'c>(usize, &'c AtomicIsize);

impl<'c> Counted<'c> {
    fn new(value: usize, live: &'c AtomicIsize) -> Self {
        live.fetch_add(1, Ordering::Relaxed);
        Self(value, live)
    }
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.1.fetch_sub(1, Ordering::Relaxed);
    }
}

#[test]
#[cfg(panic = "unwind")]
fn items_handed_out_once_are_dropped_once_on_every_path() {
    let live = AtomicIsize::new(0);
    for up_to in [0, usize::MAX] {
        let ex = Counting {
            up_to,
            ..Counting::default()
        };
        for len in [0usize, 1, 10, 4097, 9000] {
            let items = || OwnedVec::new((0..len).map(|i| Counted::new(i, &live)).collect());
            let total = ex.fold(items(), || 0, |a, c| a + c.0, |a, b| a + b);
            assert_eq!(total, len * len.saturating_sub(1) / 2);
            let stopped = ex.try_fold(
                items(),
                || 0,
                |n, c| if c.0 == 5 { Break(n) } else { Continue(n + 1) },
                |a, b| a + b,
            );
            assert_eq!(stopped, if len > 5 { Break(5) } else { Continue(len) });
            let panicked = panic::catch_unwind(AssertUnwindSafe(|| {
                ex.for_each(items(), |c| assert!(c.0 != len / 2, "boom"));
            }));
            assert_eq!(panicked.is_err(), len > 0);
            let kept = items();
            let panicked = panic::catch_unwind(AssertUnwindSafe(|| {
                ex.for_each(&kept, |c| assert!(c.0 != len / 3, "boom"));
            }));
            assert_eq!(panicked.is_err(), len > 0);
            let again = panic::catch_unwind(AssertUnwindSafe(|| ex.for_each(&kept, drop)));
            assert!(
                again.is_err(),
                "a second fold over items handed out once is refused"
            );
            drop(kept);
            assert_eq!(live.load(Ordering::Relaxed), 0, "up to {up_to}, len {len}");
        }
    }
}

/// A codec that must not be used.
struct Unused;
impl Codec<usize> for Unused {
    fn encode(&self, _: &usize, _: &mut Vec<u8>) -> Result<(), String> {
        unreachable!("no encoding on one thread")
    }
    fn decode(&self, _: &[u8]) -> Result<usize, String> {
        unreachable!("no decoding on one thread")
    }
}

#[test]
fn an_encoded_init_runs_inline_without_encoding() {
    let ex = Counting::inline();
    let init = Encoded(|| 0usize, Unused);
    assert_eq!(ex.fold(0..100, init, |a, i| a + i, |a, b| a + b), 4950);
    assert_eq!(ex.jobs(), 0);
}

#[test]
fn a_fold_that_can_be_cancelled_gets_its_job() {
    let ex = Arc::new(Counting::inline());
    let handle = ex.spawn_fold(0..100usize, || 0, |a, i| a + i, |a, b| a + b);
    assert_eq!(handle.join(), 4950);
    assert_eq!(ex.jobs(), 1);
    let flow: ControlFlow<usize, usize> = ex
        .spawn_try_fold(0..100usize, || 0, |a, i| Continue(a + i), |a, b| a + b)
        .join();
    assert_eq!(flow, Continue(4950));
    assert_eq!(ex.jobs(), 2);
}
