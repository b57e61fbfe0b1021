//! [`check_reducer`]: does a user's `init` / `step` / `combine` give one answer however a fold
//! is split? Runs it on the calling thread, split into leaves of every size from 1 up and
//! combined left-leaning, right-leaning and as a balanced tree, against the sequential fold.

use foldex_core::exec::chunks;
use foldex_core::{Executor, ExecutorExt, Job, Partial};
use std::fmt::Debug;
use std::ops::Range;

/// The shapes of combine tree [`check_reducer`] tries.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// `((a · b) · c) · d`
    LeftLeaning,
    /// `a · (b · (c · d))`
    RightLeaning,
    /// `(a · b) · (c · d)`
    Balanced,
}

/// Runs every job on the calling thread in leaves of `leaf` indices, combined in `shape`.
struct Splitting {
    leaf: usize,
    shape: Shape,
}

impl Splitting {
    fn combine<'a>(&self, job: &dyn Job<'a>, leaves: &[Range<usize>]) -> Partial<'a> {
        match (self.shape, leaves) {
            (_, [only]) => job.run(only.clone()),
            (Shape::LeftLeaning, [rest @ .., last]) => {
                let left = self.combine(job, rest);
                job.combine(left, job.run(last.clone()))
            }
            (Shape::RightLeaning, [first, rest @ ..]) => {
                let left = job.run(first.clone());
                job.combine(left, self.combine(job, rest))
            }
            (Shape::Balanced, _) => {
                let (left, right) = leaves.split_at(leaves.len() / 2);
                let left = self.combine(job, left);
                job.combine(left, self.combine(job, right))
            }
            (_, []) => unreachable!("a job has at least one leaf"),
        }
    }
}

impl Executor for Splitting {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let len = job.len();
        // An empty job is one empty leaf: its identity.
        let leaves: Vec<Range<usize>> = chunks(len, self.leaf)
            .chain((len == 0).then_some(0..0))
            .collect();
        self.combine(job, &leaves)
    }
}

/// Checks a reduction written for foldex: for every prefix length of `items` up to 64 (and the
/// whole of it), leaf sizes from 1 to 64 (and the whole length), and three shapes of combine
/// tree, the
/// fold equals the sequential `Iterator::fold` from `init()`. So `init()` is an identity of
/// `combine` and `combine` is associative on these items, as every executor needs.
///
/// # Panics
/// With a message naming the length, the leaf size, the shape of the tree, and both results,
/// at the first disagreement.
///
/// ```
/// use foldex_testkit::check_reducer;
/// // Concatenation: associative, not commutative, with "" as identity.
/// check_reducer(&["a", "b", "c"], String::new, |s, w: &&str| s + w, |a, b| a + &b);
/// ```
///
/// ```should_panic
/// use foldex_testkit::check_reducer;
/// // Subtraction is not associative.
/// check_reducer(&[1i64, 2, 3], || 0, |a, &x| a + x, |a, b| a - b);
/// ```
pub fn check_reducer<T, A, I, F, C>(items: &[T], init: I, step: F, combine: C)
where
    T: Sync,
    A: Send + PartialEq + Debug,
    I: Fn() -> A + Sync,
    F: Fn(A, &T) -> A + Sync,
    C: Fn(A, A) -> A + Sync,
{
    let lengths = (0..=items.len().min(64)).chain((items.len() > 64).then_some(items.len()));
    for len in lengths {
        let prefix = &items[..len];
        let want = prefix.iter().fold(init(), &step);
        let leaves = (1..=len.clamp(1, 64)).chain((len > 64).then_some(len));
        for leaf in leaves {
            for shape in [Shape::LeftLeaning, Shape::RightLeaning, Shape::Balanced] {
                let got = Splitting { leaf, shape }.fold(prefix, &init, &step, &combine);
                assert!(
                    got == want,
                    "check_reducer: the first {len} items in leaves of {leaf}, combined \
                     {shape:?}, give {got:?}, but folding them in order gives {want:?}: \
                     `combine` is not associative or `init()` is not its identity"
                );
            }
        }
    }
}
