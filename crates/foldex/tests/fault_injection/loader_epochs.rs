//! The `loader_epochs` group: loader settings, epochs consumed whole or dropped early, one
//! or two epochs per loader.

use crate::loader_cases::{
    check_delivery, check_loads, check_order, counted, loads, run_epoch, snapshot, unarmed,
    LoaderSpec,
};
use crate::run_group;

#[derive(Debug, Clone)]
struct EpochCase {
    loader: LoaderSpec,
    epochs: u64,
    /// Drop the iterator after this many batches (of every epoch).
    stop_after: Option<usize>,
}

pub(crate) fn loader_epochs() {
    run_group(
        "loader_epochs",
        800,
        |rng| {
            let loader = LoaderSpec::draw(rng, 300);
            let batches = loader.len.div_ceil(loader.batch_size);
            EpochCase {
                epochs: if rng.chance(30) { 2 } else { 1 },
                stop_after: rng.chance(35).then(|| rng.range(0, batches + 1)),
                loader,
            }
        },
        |ctx, case| {
            let spec = &case.loader;
            let loads = loads(spec.len);
            let loader = spec.build(counted(spec, &loads, &unarmed(spec.len), None));
            for epoch in 0..case.epochs {
                let order = loader.order(epoch);
                check_order(spec, &order).unwrap_or_else(|e| ctx.fail(case, format_args!("{e}")));
                let expected = spec.expected(&order);
                if loader.batches() != expected.len() {
                    ctx.fail(
                        case,
                        format_args!(
                            "loader.len() is {}, the epoch has {} batches",
                            loader.batches(),
                            expected.len()
                        ),
                    );
                }
                let before = snapshot(&loads);
                let mut iter = loader.start();
                if iter.epoch() != epoch || iter.remaining() != expected.len() {
                    ctx.fail(
                        case,
                        format_args!(
                            "epoch {epoch} started as epoch {} with len() {}; it has {} batches",
                            iter.epoch(),
                            iter.remaining(),
                            expected.len()
                        ),
                    );
                }
                let limit = case.stop_after.unwrap_or(usize::MAX);
                let run = run_epoch(&mut *iter, limit);
                if let Some(p) = &run.panic {
                    ctx.fail(
                        case,
                        format_args!(
                            "epoch {epoch}: next() panicked with {p:?} after {} batches",
                            run.got.len()
                        ),
                    );
                }
                if !run.ended && run.got.len() < limit.min(expected.len() + 1) {
                    unreachable!("run_epoch stops only at the limit, the end, or a panic");
                }
                let stats = iter.stats();
                let items: usize = run.got.iter().map(Vec::len).sum();
                if (stats.batches, stats.items) != (run.got.len() as u64, items as u64) {
                    ctx.fail(
                        case,
                        format_args!(
                            "epoch {epoch}: stats count {} batches and {} items; {} and {items} \
                             were delivered",
                            stats.batches,
                            stats.items,
                            run.got.len()
                        ),
                    );
                }
                if run.ended {
                    if iter.next_batch().is_some() {
                        ctx.fail(
                            case,
                            format_args!("epoch {epoch}: next() gave a batch after None"),
                        );
                    }
                } else if iter.remaining() != expected.len() - run.got.len() {
                    ctx.fail(
                        case,
                        format_args!(
                            "epoch {epoch}: len() is {} after {} of {} batches",
                            iter.remaining(),
                            run.got.len(),
                            expected.len()
                        ),
                    );
                }
                drop(iter);
                let after = snapshot(&loads);
                check_delivery(&expected, &run.got, spec.ordered, run.ended)
                    .and_then(|()| check_loads(&before, &after, &expected, run.ended))
                    .unwrap_or_else(|e| {
                        ctx.fail(
                            case,
                            format_args!(
                                "epoch {epoch}, {} batches taken{}: {e}; delivered {:?}",
                                run.got.len(),
                                if run.ended {
                                    ", then None"
                                } else {
                                    ", then dropped"
                                },
                                run.got
                            ),
                        )
                    });
            }
        },
    );
}
