//! The `loader_error_policies` group: `Checked` datasets under skip, retry, retry then skip,
//! and fail fast.

use crate::loader_cases::{check_delivery, run_epoch, LoaderSpec};
use crate::{run_group, Payload};
use foldex::from_fn;
use foldex::loader::{Checked, ErrorPolicy};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PolicyKind {
    Skip,
    Retry(u32),
    RetryThenSkip(u32),
    /// Fail fast after this many retries.
    FailFast(u32),
}

impl PolicyKind {
    fn policy(self) -> ErrorPolicy {
        match self {
            PolicyKind::Skip => ErrorPolicy::skip(),
            PolicyKind::Retry(r) => ErrorPolicy::retry(r),
            PolicyKind::RetryThenSkip(r) => ErrorPolicy::retry(r).then_skip(),
            PolicyKind::FailFast(0) => ErrorPolicy::fail_fast(),
            PolicyKind::FailFast(r) => ErrorPolicy::retry(r),
        }
    }

    fn retries(self) -> u32 {
        match self {
            PolicyKind::Skip => 0,
            PolicyKind::Retry(r) | PolicyKind::RetryThenSkip(r) | PolicyKind::FailFast(r) => r,
        }
    }

    fn skips(self) -> bool {
        matches!(self, PolicyKind::Skip | PolicyKind::RetryThenSkip(_))
    }
}

#[derive(Debug, Clone)]
struct PolicyCase {
    loader: LoaderSpec,
    policy: PolicyKind,
    /// `(index, k)`: `try_get(index)` fails its first `k` attempts (`u32::MAX`: always), with
    /// the error "bad {index} attempt {n}".
    failing: Vec<(usize, u32)>,
}

pub(crate) fn loader_error_policies() {
    run_group(
        "loader_error_policies",
        600,
        |rng| {
            let loader = LoaderSpec::draw(rng, 300);
            let policy = match rng.below(20) {
                0..=6 => PolicyKind::Skip,
                7..=11 => PolicyKind::Retry(rng.range(1, 4) as u32),
                12..=15 => PolicyKind::RetryThenSkip(rng.range(1, 3) as u32),
                _ => PolicyKind::FailFast(rng.range(0, 2) as u32),
            };
            let r = policy.retries();
            let mut failing = Vec::new();
            let share = rng.range(0, 25) as u64;
            for i in 0..loader.len {
                if rng.chance(share) {
                    let k = match policy {
                        PolicyKind::Skip => u32::MAX,
                        PolicyKind::Retry(r) => rng.range(1, r as usize) as u32,
                        PolicyKind::RetryThenSkip(_) | PolicyKind::FailFast(_) => {
                            if rng.chance(50) {
                                u32::MAX
                            } else {
                                rng.range(1, r as usize + 1) as u32
                            }
                        }
                    };
                    failing.push((i, k));
                }
            }
            PolicyCase {
                loader,
                policy,
                failing,
            }
        },
        |ctx, case| {
            let spec = &case.loader;
            let r = case.policy.retries();
            let mut fails = vec![0u32; spec.len];
            for &(i, k) in &case.failing {
                fails[i] = k;
            }
            let fails = Arc::new(fails);
            let attempts: Arc<Vec<AtomicU32>> =
                Arc::new((0..spec.len).map(|_| AtomicU32::new(0)).collect());
            let dataset = {
                let (spec, fails, attempts) =
                    (spec.clone(), Arc::clone(&fails), Arc::clone(&attempts));
                from_fn(spec.len, move |i| -> Result<usize, String> {
                    spec.pause_if_slow(i);
                    let n = attempts[i].fetch_add(1, Ordering::SeqCst) + 1;
                    if n <= fails[i] {
                        Err(format!("bad {i} attempt {n}"))
                    } else {
                        Ok(i)
                    }
                })
            };
            let loader = spec.build(Checked::new(dataset, case.policy.policy()));
            let order = loader.order(0);
            let expected = spec.expected(&order);
            let gives_up = |i: usize| fails[i] > r;
            let mut loaded: Vec<usize> = expected.iter().flatten().copied().collect();
            loaded.sort_unstable();
            let mut live: Vec<usize> = loaded.iter().copied().filter(|&i| gives_up(i)).collect();
            live.sort_unstable();
            let mut iter = loader.start();
            let run = run_epoch(&mut *iter, usize::MAX);
            let stats = iter.stats();
            let failed_index = iter.failed_index();
            drop(iter);
            let attempts: Vec<u32> = attempts.iter().map(|a| a.load(Ordering::SeqCst)).collect();
            let in_epoch = |i: usize| loaded.binary_search(&i).is_ok();
            let mut want_attempts: Vec<u32> = (0..spec.len)
                .map(|i| if in_epoch(i) { fails[i].min(r) + 1 } else { 0 })
                .collect();
            if case.policy.skips() || live.is_empty() {
                // Everything arrives: the failures that survive their retries left out.
                if let Some(p) = &run.panic {
                    ctx.fail(
                        case,
                        format_args!("next() panicked with {p:?}; failing (given up) {live:?}"),
                    );
                }
                let kept: Vec<Vec<usize>> = expected
                    .iter()
                    .map(|b| b.iter().copied().filter(|&i| !gives_up(i)).collect())
                    .collect();
                check_delivery(&kept, &run.got, spec.ordered, true).unwrap_or_else(|e| {
                    ctx.fail(case, format_args!("{e}; delivered {:?}", run.got))
                });
                let mut skipped: Vec<(usize, String)> = stats
                    .skipped
                    .iter()
                    .map(|s| (s.index, s.error.clone()))
                    .collect();
                skipped.sort();
                let want_skipped: Vec<(usize, String)> = live
                    .iter()
                    .map(|&i| (i, format!("bad {i} attempt {}", r + 1)))
                    .collect();
                if skipped != want_skipped {
                    ctx.fail(
                        case,
                        format_args!("stats.skipped is {skipped:?}, expected {want_skipped:?}"),
                    );
                }
                let retries: u64 = loaded.iter().map(|&i| u64::from(fails[i].min(r))).sum();
                if stats.retries != retries {
                    ctx.fail(
                        case,
                        format_args!("stats.retries is {}, expected {retries}", stats.retries),
                    );
                }
            } else {
                // Fail fast: the ItemError of one failing index reaches next().
                let index = match &run.panic {
                    Some(Payload::Item(index, error)) if live.contains(index) => {
                        if *error != format!("bad {index} attempt {}", r + 1) {
                            ctx.fail(
                                case,
                                format_args!("the ItemError of index {index} carries {error:?}"),
                            );
                        }
                        *index
                    }
                    other => ctx.fail(
                        case,
                        format_args!(
                            "expected next() to re-raise the ItemError of one of {live:?}, got \
                             {other:?} after {} batches",
                            run.got.len()
                        ),
                    ),
                };
                if failed_index != Some(index) {
                    ctx.fail(
                        case,
                        format_args!(
                            "next() re-raised the ItemError of {index}, but failed_index() is \
                             {failed_index:?}"
                        ),
                    );
                }
                check_delivery(&expected, &run.got, spec.ordered, false).unwrap_or_else(|e| {
                    ctx.fail(case, format_args!("{e}; delivered {:?}", run.got))
                });
                // The epoch stopped: a load may not have happened, or stopped short.
                for (i, want) in want_attempts.iter_mut().enumerate() {
                    if attempts[i] < *want {
                        *want = attempts[i];
                    }
                }
            }
            if let Some(i) = (0..spec.len).find(|&i| attempts[i] != want_attempts[i]) {
                ctx.fail(
                    case,
                    format_args!(
                        "try_get({i}) was attempted {} times, expected {} (it fails {} times, \
                         {r} retries)",
                        attempts[i], want_attempts[i], fails[i]
                    ),
                );
            }
        },
    );
}
