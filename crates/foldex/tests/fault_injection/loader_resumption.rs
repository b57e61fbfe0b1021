//! The `loader_resumption` group: an epoch interrupted, its state taken, and resumed on the
//! same loader or a fresh one.

use crate::loader_cases::{
    check_delivery, counted, loads, run_epoch, snapshot, unarmed, LoaderSpec,
};
use crate::run_group;

#[derive(Debug, Clone)]
struct ResumeCase {
    loader: LoaderSpec,
    /// Whole epochs run before the interrupted one.
    warmup_epochs: u64,
    /// Each interruption: the batches taken before it, and whether the epoch resumes on a
    /// fresh loader with the same settings (a restart from a checkpoint) or the same one.
    interruptions: Vec<(usize, bool)>,
}

pub(crate) fn loader_resumption() {
    run_group(
        "loader_resumption",
        600,
        |rng| {
            let loader = LoaderSpec::draw(rng, 300);
            let batches = loader.len.div_ceil(loader.batch_size);
            let interruptions = (0..rng.range(1, 3))
                .map(|_| (rng.range(0, batches / 2 + 1), rng.chance(40)))
                .collect();
            ResumeCase {
                warmup_epochs: if rng.chance(25) { 1 } else { 0 },
                interruptions,
                loader,
            }
        },
        |ctx, case| {
            let spec = &case.loader;
            let loads = loads(spec.len);
            let make = || spec.build(counted(spec, &loads, &unarmed(spec.len), None));
            let mut loader = make();
            for warmup in 0..case.warmup_epochs {
                let run = run_epoch(&mut *loader.start(), usize::MAX);
                if !run.ended {
                    ctx.fail(
                        case,
                        format_args!("warm-up epoch {warmup} did not end: {:?}", run.panic),
                    );
                }
            }
            let epoch = loader.next_epoch();
            let expected = spec.expected(&loader.order(epoch));
            let mut got: Vec<Vec<usize>> = Vec::new();
            // Per resumption: the loads then, and the indices received before it.
            let mut resumed_at: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
            let mut iter = loader.start();
            for (k, &(take, fresh)) in case.interruptions.iter().enumerate() {
                let run = run_epoch(&mut *iter, take);
                if let Some(p) = &run.panic {
                    ctx.fail(
                        case,
                        format_args!("segment {k}: next() panicked with {p:?}"),
                    );
                }
                got.extend(run.got);
                let state = iter.state();
                drop(iter);
                let received = state.next_batch + state.received_above.len();
                if state.epoch != epoch
                    || state.seed != spec.shuffle
                    || state.batch_size != spec.batch_size
                    || state.len != spec.len
                    || received != got.len()
                    || (spec.ordered && !state.received_above.is_empty())
                {
                    ctx.fail(
                        case,
                        format_args!(
                            "after {} batches of epoch {epoch} (interruption {k}), the state is \
                             {state:?}",
                            got.len()
                        ),
                    );
                }
                if fresh {
                    loader = make();
                }
                resumed_at.push((snapshot(&loads), got.iter().flatten().copied().collect()));
                iter = loader.resume(&state).unwrap_or_else(|e| {
                    ctx.fail(case, format_args!("resume(&{state:?}) refused: {e}"))
                });
                if iter.epoch() != epoch || iter.remaining() != expected.len() - got.len() {
                    ctx.fail(
                        case,
                        format_args!(
                            "resumed epoch {} with len() {} after {} of {} batches",
                            iter.epoch(),
                            iter.remaining(),
                            got.len(),
                            expected.len()
                        ),
                    );
                }
            }
            let run = run_epoch(&mut *iter, usize::MAX);
            if let Some(p) = &run.panic {
                ctx.fail(
                    case,
                    format_args!("last segment: next() panicked with {p:?}"),
                );
            }
            if !run.ended {
                unreachable!("an unlimited run ends or panics");
            }
            got.extend(run.got);
            drop(iter);
            check_delivery(&expected, &got, spec.ordered, true).unwrap_or_else(|e| {
                ctx.fail(
                    case,
                    format_args!("before and after resumption: {e}; delivered {got:?}"),
                )
            });
            let end = snapshot(&loads);
            for (k, (at, received)) in resumed_at.iter().enumerate() {
                if let Some(&i) = received.iter().find(|&&i| end[i] != at[i]) {
                    ctx.fail(
                        case,
                        format_args!(
                            "index {i} was received before resumption {k}, and loaded again \
                             after it"
                        ),
                    );
                }
            }
            if loader.next_epoch() != epoch + 1 {
                ctx.fail(
                    case,
                    format_args!(
                        "after resuming epoch {epoch}, next_epoch() is {}",
                        loader.next_epoch()
                    ),
                );
            }
        },
    );
}
