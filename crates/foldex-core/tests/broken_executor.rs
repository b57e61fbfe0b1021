//! Executors that break the contract, written in safe code, are caught: the fold panics on its
//! caller with "executor bug" and what happened, instead of returning a wrong answer. A correct
//! executor that splits and combines in any valid tree is believed.
#![cfg(all(not(loom), panic = "unwind"))]

use foldex_core::{Executor, ExecutorExt, Job, Partial, Source};
use proptest::prelude::*;
use std::ops::ControlFlow::{self, Break, Continue};
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

/// An executor made of one function of the job.
struct Custom<F>(F);

impl<F: for<'a> Fn(&dyn Job<'a>) -> Partial<'a> + Send + Sync> Executor for Custom<F> {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        (self.0)(job)
    }
}

/// `Custom(f)`, with `f` taken as a function of any job.
fn custom<F: for<'a> Fn(&dyn Job<'a>) -> Partial<'a> + Send + Sync>(f: F) -> Custom<F> {
    Custom(f)
}

/// `custom(f)`, boxed.
fn ex(
    f: impl for<'a> Fn(&dyn Job<'a>) -> Partial<'a> + Send + Sync + 'static,
) -> Box<dyn Executor> {
    Box::new(custom(f))
}

/// Each way of breaking the contract, by name.
fn broken() -> Vec<(&'static str, Box<dyn Executor>)> {
    vec![
        (
            "runs 0..len twice",
            ex(|job| job.combine(job.run(0..job.len()), job.run(0..job.len()))),
        ),
        (
            "runs only the first half",
            ex(|job| job.run(0..job.len() / 2)),
        ),
        ("runs 0..0", ex(|job| job.run(0..0))),
        (
            "runs overlapping ranges",
            ex(|job| {
                let len = job.len();
                job.combine(job.run(0..len * 6 / 10), job.run(len * 4 / 10..len))
            }),
        ),
        ("runs past len", ex(|job| job.run(0..job.len() + 200))),
        (
            "runs a range that ends before it starts",
            ex(|job| {
                let len = job.len();
                let backwards = Range {
                    start: len / 2 + 1,
                    end: len / 2,
                };
                let left = job.combine(job.run(0..len / 2), job.run(backwards));
                job.combine(left, job.run(len / 2..len))
            }),
        ),
        (
            "combines right then left",
            ex(|job| {
                let len = job.len();
                job.combine(job.run(len / 2..len), job.run(0..len / 2))
            }),
        ),
        (
            "combines non-adjacent partials",
            ex(|job| {
                let len = job.len();
                let (a, b) = (len / 3, 2 * len / 3);
                let outer = job.combine(job.run(0..a), job.run(b..len));
                job.combine(outer, job.run(a..b))
            }),
        ),
        (
            "leaves out the middle",
            ex(|job| {
                let len = job.len();
                job.combine(job.run(0..len / 3), job.run(2 * len / 3..len))
            }),
        ),
        (
            "combines on another thread",
            ex(|job| {
                let len = job.len();
                std::thread::scope(|s| {
                    s.spawn(|| job.combine(job.run(len / 2..len), job.run(0..len / 2)))
                        .join()
                        .expect("Job::combine does not unwind")
                })
            }),
        ),
    ]
}

/// The panic message of `f`, which must panic.
fn panic_message<R>(what: &str, f: impl FnOnce() -> R) -> String {
    let payload = match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(_) => panic!("{what}: the fold returned instead of panicking"),
        Err(payload) => payload,
    };
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| panic!("{what}: a panic without a message"))
}

fn assert_bug<R>(what: &str, f: impl FnOnce() -> R) -> String {
    let msg = panic_message(what, f);
    assert!(msg.contains("executor bug"), "{what}: {msg}");
    msg
}

#[test]
fn every_broken_executor_is_caught_by_every_fold() {
    let data: Vec<u64> = (1..=1000).collect();
    for (what, ex) in broken() {
        assert_bug(what, || ex.sum::<u64>(&data));
        assert_bug(what, || ex.fold(0..1000, || 0, |a, i| a + i, |a, b| a + b));
        assert_bug(what, || ex.collect_vec(0..1000));
        assert_bug(what, || {
            ex.try_fold(0..1000, || 0, |a, i| Continue(a + i), |a, b| a + b)
        });
    }
}

/// Past the packed form's limit (2^31 indices), partials carry their range in another form;
/// broken executors that run little of a huge job are caught there too.
#[test]
fn broken_executors_are_caught_on_huge_jobs() {
    let cases = [
        (
            "runs 0..10 only",
            ex(|job| job.run(0..10)),
            "covers 0..10 of",
        ),
        ("runs 0..0", ex(|job| job.run(0..0)), "covers 0..0 of"),
        (
            "runs past len",
            ex(|job| job.run(0..job.len() + 1)),
            "past the end",
        ),
        (
            "combines non-adjacent partials",
            ex(|job| job.combine(job.run(0..10), job.run(20..30))),
            "0..10 and 20..30",
        ),
        (
            "combines right then left",
            ex(|job| job.combine(job.run(10..20), job.run(0..10))),
            "10..20 and 0..10",
        ),
    ];
    for (what, ex, names) in cases {
        let msg = assert_bug(what, || {
            ex.try_fold(0..1usize << 40, || 0, |a, _| Continue(a + 1), |a, b| a + b)
        });
        assert!(msg.contains(names), "{what}: {msg}");
    }
}

#[test]
fn the_message_names_the_ranges() {
    let msgs: Vec<(&str, String)> = broken()
        .into_iter()
        .map(|(what, ex)| (what, assert_bug(what, || ex.sum::<usize>(0..30))))
        .collect();
    let msg = |what: &str| &msgs.iter().find(|(w, _)| w.contains(what)).unwrap().1;
    assert!(
        msg("non-adjacent").contains("non-adjacent partials 0..10 and 20..30"),
        "{}",
        msg("non-adjacent")
    );
    assert!(
        msg("right then left").contains("15..30 and 0..15"),
        "{}",
        msg("right then left")
    );
    assert!(msg("another thread").contains("15..30 and 0..15"));
    assert!(msg("overlapping").contains("0..18 and 12..30"));
    assert!(msg("twice").contains("0..30 and 0..30"));
    assert!(msg("first half").contains("covers 0..15 of 0..30"));
    assert!(msg("runs 0..0").contains("covers 0..0 of 0..30"));
    assert!(msg("past len").contains("0..230"));
    assert!(msg("ends before it starts").contains("16..15"));
}

/// A source that counts the items read and refuses an index past its end with its own panic.
struct Checked<'c> {
    len: usize,
    reads: &'c AtomicUsize,
}

impl Source for Checked<'_> {
    type Item = usize;
    fn len(&self) -> usize {
        self.len
    }
    fn get(&self, index: usize) -> usize {
        self.reads.fetch_add(1, Ordering::Relaxed);
        assert!(index < self.len, "the source was read at {index}");
        index
    }
}

#[test]
fn a_range_past_len_is_refused_before_the_source_is_read() {
    let reads = AtomicUsize::new(0);
    let past = custom(|job| job.run(0..job.len() + 1));
    let msg = assert_bug("past len", || {
        past.sum::<usize>(Checked {
            len: 100,
            reads: &reads,
        })
    });
    assert!(msg.contains("past the end"), "{msg}");
    assert_eq!(reads.load(Ordering::Relaxed), 0, "the source was read");
    // A slice would have been sliced out of bounds.
    let data = [1u64; 10];
    let msg = assert_bug("past len, slice", || past.sum::<u64>(&data));
    assert!(msg.contains("0..11"), "{msg}");
}

#[test]
fn an_empty_job_must_run_0_to_0() {
    let nothing_run = custom(|job| job.run(1..1));
    let msg = assert_bug("empty, 1..1", || nothing_run.sum::<usize>(0..0));
    assert!(msg.contains("1..1"), "{msg}");
    let fine = custom(|job| job.run(0..0));
    assert_eq!(fine.sum::<usize>(0..0), 0);
    assert_eq!(fine.collect_vec(0..0), Vec::<usize>::new());
}

/// A correct executor: splits `range` at the points `cuts` chooses, folds the pieces (left first,
/// on this thread or on scoped threads), and combines them in a tree of its choice.
struct Arbitrary {
    seed: u64,
    threads: bool,
}

impl Arbitrary {
    fn next(state: &mut u64) -> u64 {
        // xorshift64*
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn fold<'a>(&self, job: &dyn Job<'a>, range: Range<usize>, state: &mut u64) -> Partial<'a> {
        let len = range.end - range.start;
        let r = Self::next(state);
        if len <= 1 || r.is_multiple_of(4) || job.is_stopped(range.start) {
            return job.run(range);
        }
        let mid = range.start + 1 + (r >> 8) as usize % (len - 1);
        let (left, right) = (range.start..mid, mid..range.end);
        let mut right_state = Self::next(state);
        if self.threads && r.is_multiple_of(3) {
            std::thread::scope(|s| {
                let right = s.spawn(move || self.fold(job, right, &mut right_state));
                let left = self.fold(job, left, state);
                job.combine(left, right.join().expect("no unwinding"))
            })
        } else {
            let left = self.fold(job, left, state);
            let right = self.fold(job, right, &mut right_state);
            job.combine(left, right)
        }
    }
}

impl Executor for Arbitrary {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let mut state = self.seed | 1;
        self.fold(job, 0..job.len(), &mut state)
    }
}

/// A correct executor that leaves out what the job says is stopped, as a chunked executor
/// does: it runs chunks of `size` in order until one starts at a stopped index.
struct Prefix(usize);

impl Executor for Prefix {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let len = job.len();
        let mut acc = job.run(0..len.min(self.0));
        let mut start = len.min(self.0);
        while start < len && !job.is_stopped(start) {
            let end = len.min(start + self.0);
            acc = job.combine(acc, job.run(start..end));
            start = end;
        }
        acc
    }
}

fn concat(mut a: Vec<usize>, mut b: Vec<usize>) -> Vec<usize> {
    a.append(&mut b);
    a
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_correct_executor_that_splits_arbitrarily_is_believed(
        len in 0usize..3000, seed in any::<u64>(), threads in any::<bool>(), stop in 0usize..3200,
    ) {
        let ex = Arbitrary { seed, threads };
        let data: Vec<u64> = (0..len as u64).collect();
        prop_assert_eq!(ex.sum::<u64>(&data), data.iter().sum::<u64>());
        prop_assert_eq!(ex.collect_vec(0..len), (0..len).collect::<Vec<_>>());
        let step = |mut acc: Vec<usize>, i: usize| {
            acc.push(i);
            if i == stop { Break(acc) } else { Continue(acc) }
        };
        let want = (0..len).try_fold(Vec::new(), step);
        prop_assert_eq!(ex.try_fold(0..len, Vec::new, step, concat), want);
    }

    #[test]
    fn a_correct_executor_may_leave_out_stopped_indices(
        len in 0usize..3000, size in 1usize..300, stop in 0usize..3200,
    ) {
        let step = |mut acc: Vec<usize>, i: usize| {
            acc.push(i);
            if i == stop { Break(acc) } else { Continue(acc) }
        };
        let want = (0..len).try_fold(Vec::new(), step);
        prop_assert_eq!(Prefix(size).try_fold(0..len, Vec::new, step, concat), want);
        prop_assert_eq!(Prefix(size).sum::<usize>(0..len), (0..len).sum::<usize>());
    }
}

#[test]
fn a_correct_executor_is_believed_past_the_packed_limit() {
    let huge = 0..1usize << 40;
    for seed in 0..20 {
        let ex = Arbitrary {
            seed,
            threads: false,
        };
        let got: ControlFlow<usize, usize> = ex.try_fold(
            huge.clone(),
            || 0,
            |n, i| if i == 5000 { Break(n) } else { Continue(n + 1) },
            |a, b| a + b,
        );
        assert_eq!(got, Break(5000), "seed {seed}");
    }
}
