//! The `loader_panics` group: panics in `get`, re-raised by `next()`, and the epochs after
//! them on the same loader.

use crate::loader_cases::{
    check_delivery, check_loads, counted, loads, run_epoch, snapshot, unarmed, LoaderSpec,
};
use crate::{run_group, Payload};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::Ordering;

#[derive(Debug, Clone)]
struct PanicCase {
    loader: LoaderSpec,
    /// `get` panics with `Boom(index)` the first time it loads each of these.
    panics: Vec<usize>,
    /// Sleep this many µs before panicking (so that two panics can overlap).
    panic_delay: Option<u64>,
    /// Drop the iterator after this many batches.
    stop_after: Option<usize>,
}

pub(crate) fn loader_panics() {
    run_group(
        "loader_panics",
        600,
        |rng| {
            let mut loader = LoaderSpec::draw(rng, 300);
            loader.len = loader.len.max(1);
            let batches = loader.len.div_ceil(loader.batch_size);
            let panics = (0..if rng.chance(75) { 1 } else { 2 })
                .map(|_| rng.below(loader.len))
                .collect();
            PanicCase {
                panics,
                panic_delay: rng.chance(30).then(|| rng.range(10, 200) as u64),
                stop_after: rng.chance(25).then(|| rng.range(0, batches)),
                loader,
            }
        },
        |ctx, case| {
            let spec = &case.loader;
            let loads = loads(spec.len);
            let armed = unarmed(spec.len);
            for &p in &case.panics {
                armed[p].store(true, Ordering::SeqCst);
            }
            let loader = spec.build(counted(spec, &loads, &armed, case.panic_delay));
            // Each failed epoch disarms a panic; the loop ends at the first epoch without one.
            for epoch in 0..=case.panics.len() as u64 {
                let order = loader.order(epoch);
                let expected = spec.expected(&order);
                let mut live: Vec<usize> = case
                    .panics
                    .iter()
                    .copied()
                    .filter(|&p| armed[p].load(Ordering::SeqCst))
                    .filter(|p| expected.iter().flatten().any(|i| i == p))
                    .collect();
                live.dedup();
                let before = snapshot(&loads);
                let mut iter = loader.start();
                let run = run_epoch(&mut *iter, case.stop_after.unwrap_or(usize::MAX));
                let failed_index = iter.failed_index();
                let failed = match &run.panic {
                    None => {
                        if run.ended && !live.is_empty() {
                            ctx.fail(
                                case,
                                format_args!(
                                    "epoch {epoch} ended normally, but get() panics at {live:?}"
                                ),
                            );
                        }
                        false
                    }
                    Some(Payload::Step(p)) if live.contains(p) => {
                        if failed_index != Some(*p) {
                            ctx.fail(
                                case,
                                format_args!(
                                    "epoch {epoch}: next() re-raised Boom({p}), but \
                                     failed_index() is {failed_index:?}"
                                ),
                            );
                        }
                        let again = panic::catch_unwind(AssertUnwindSafe(|| iter.next_batch()));
                        if !matches!(again, Ok(None)) {
                            ctx.fail(
                                case,
                                format_args!(
                                    "epoch {epoch}: after the panic, next() did not return None"
                                ),
                            );
                        }
                        true
                    }
                    Some(other) => ctx.fail(
                        case,
                        format_args!(
                            "epoch {epoch}: next() panicked with {other:?}; get() panics (armed) \
                             at {live:?}"
                        ),
                    ),
                };
                drop(iter);
                let after = snapshot(&loads);
                let complete = run.ended && !failed;
                check_delivery(&expected, &run.got, spec.ordered, complete)
                    .and_then(|()| check_loads(&before, &after, &expected, complete))
                    .unwrap_or_else(|e| {
                        ctx.fail(
                            case,
                            format_args!(
                                "epoch {epoch} ({} batches delivered, {}): {e}; delivered {:?}",
                                run.got.len(),
                                if failed {
                                    "then the panic"
                                } else if run.ended {
                                    "then None"
                                } else {
                                    "then dropped"
                                },
                                run.got
                            ),
                        )
                    });
                if !failed {
                    break;
                }
            }
        },
    );
}
