//! The benchmark matrix: which workloads and executors run, in which order, and running them.

use crate::across::Across;
use crate::cli::BenchArgs;
use crate::executors::{Choice, Kind};
use crate::measure::{self, Measurement};
use crate::pipeline;
use crate::report::Outcome;
use crate::workload::{TimeDataset, Variant};
use clap::ValueEnum;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The seed's matrix: `(n, t)` pairs, minutes per variant on a few cores.
pub const FULL: [(usize, Duration); 4] = [
    (100, Duration::from_millis(100)),
    (10_000, Duration::from_millis(1)),
    (10_000, Duration::from_micros(100)),
    (10_000, Duration::from_micros(10)),
];

/// The same shapes scaled down so that the whole default run takes well under two minutes on
/// two cores (about 3.3 s of item time per variant, sequentially).
pub const QUICK: [(usize, Duration); 4] = [
    (100, Duration::from_millis(10)),
    (2_000, Duration::from_millis(1)),
    (2_000, Duration::from_micros(100)),
    (5_000, Duration::from_micros(10)),
];

/// The oversubscribed worker count added for the sleep variant: items that wait use no CPU,
/// so more workers than cores overlap more waits.
pub const OVERSUBSCRIBED: usize = 8;

/// Everything a run needs: the rows to run, in order, and how.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Workload and executor of each row, in print order.
    pub cases: Vec<(TimeDataset, Choice)>,
    /// Runs per row (the median is kept).
    pub repeat: usize,
    /// The loader's buffer, if set.
    pub buffer: Option<usize>,
}

impl Plan {
    /// Builds the plan from the options, with `cores` as the default worker count; `ranks` is
    /// the size of the MPI job the run is part of, if any.
    pub fn from_args(args: &BenchArgs, cores: usize, ranks: Option<usize>) -> Result<Self, String> {
        let defaults: &[(usize, Duration)] = if args.full { &FULL } else { &QUICK };
        let workloads = pair_up(&args.n, &args.t, defaults)?;
        let variants = or_default(&args.variant, &Variant::ALL);
        let kinds = match ranks {
            None => or_default(&args.executors, &Kind::ALL),
            Some(_) => or_default(&args.executors, &[Kind::Mpi]),
        };
        check_ranks(&kinds, ranks)?;
        check_settings(args, &kinds, cores)?;
        let mut cases = Vec::new();
        for &variant in &variants {
            let threads = if args.threads.is_empty() {
                default_workers(variant, cores)
            } else {
                sorted_unique(&args.threads)
            };
            let ntasks = if args.ntasks.is_empty() {
                threads.clone()
            } else {
                sorted_unique(&args.ntasks)
            };
            let counts = sorted_unique(&[threads.as_slice(), ntasks.as_slice()].concat());
            for &(n, t) in &workloads {
                let data = TimeDataset { n, t, variant };
                if kinds.contains(&Kind::Sequential) {
                    cases.push((data, choice(Kind::Sequential, 1, None)));
                }
                if kinds.contains(&Kind::Auto) {
                    cases.push((data, choice(Kind::Auto, cores, None)));
                }
                if let Some(ranks) = ranks {
                    cases.push((data, choice(Kind::Mpi, ranks, None)));
                    continue;
                }
                for &workers in &counts {
                    for &kind in Kind::ALL
                        .iter()
                        .chain(&Kind::ON_REQUEST)
                        .filter(|k| k.has_workers() && kinds.contains(k))
                    {
                        let listed = if kind.is_task_pool() {
                            &ntasks
                        } else {
                            &threads
                        };
                        if listed.contains(&workers) {
                            cases.push((data, choice(kind, workers, args.basesize)));
                        }
                    }
                }
            }
        }
        Ok(Plan {
            cases,
            repeat: args.runs,
            buffer: args.buffer,
        })
    }

    /// The number of items the whole plan consumes (the progress bar's length).
    pub fn total_items(&self) -> u64 {
        let per_round: u64 = self.cases.iter().map(|(data, _)| data.n as u64).sum();
        per_round * self.repeat as u64
    }
}

/// The cap on `--threads` and `--ntasks` is the larger of this and [`MAX_WORKERS_PER_CORE`]
/// per core: enough to overlap the waits of sleeping items many times over, few enough that a
/// typing mistake (`--threads 100000`) cannot bring the machine to a halt.
pub const MAX_WORKERS: usize = 1024;

/// See [`MAX_WORKERS`].
pub const MAX_WORKERS_PER_CORE: usize = 64;

/// Refuses the `mpi` executor outside an MPI job, and every other executor inside one: there,
/// the ranks that wait for rank 0 would take cores from its rows.
fn check_ranks(kinds: &[Kind], ranks: Option<usize>) -> Result<(), String> {
    match ranks {
        None if kinds.contains(&Kind::Mpi) => Err("--executors mpi runs in an MPI job: build \
             foldex-mpi's foldex binary and start it with mpirun (see the README's scale-out \
             section)"
            .to_owned()),
        Some(_) if kinds.iter().any(|&k| k != Kind::Mpi) => Err("in an MPI job only \
             --executors mpi runs (ranks waiting for rank 0 would take cores from the other \
             executors' rows): run those with the plain foldex binary"
            .to_owned()),
        _ => Ok(()),
    }
}

/// Refuses worker counts over the cap and settings that no chosen executor would use.
fn check_settings(args: &BenchArgs, kinds: &[Kind], cores: usize) -> Result<(), String> {
    let cap = MAX_WORKERS.max(MAX_WORKERS_PER_CORE * cores);
    for (flag, values) in [("--threads", &args.threads), ("--ntasks", &args.ntasks)] {
        if let Some(&too_many) = values.iter().find(|&&v| v > cap) {
            return Err(format!(
                "{flag} {too_many} is over the cap of {cap} (the larger of {MAX_WORKERS} and \
                 {MAX_WORKERS_PER_CORE} per core; this machine has {cores})"
            ));
        }
    }
    let uses_threads = kinds.iter().any(|k| k.has_workers() && !k.is_task_pool());
    let uses_tasks = kinds.iter().any(|k| k.is_task_pool());
    let uses_basesize = kinds.iter().any(|k| {
        matches!(
            k,
            Kind::Threaded | Kind::DepthFirst | Kind::TaskPool | Kind::TaskPoolBackground
        )
    });
    let chosen = kinds
        .iter()
        .filter_map(|k| k.to_possible_value().map(|v| v.get_name().to_owned()))
        .collect::<Vec<_>>()
        .join(", ");
    for (flag, given, used) in [
        ("--threads", !args.threads.is_empty(), uses_threads),
        ("--ntasks", !args.ntasks.is_empty(), uses_tasks),
        ("--basesize", args.basesize.is_some(), uses_basesize),
    ] {
        if given && !used {
            return Err(format!(
                "{flag} applies to none of the executors chosen ({chosen})"
            ));
        }
    }
    Ok(())
}

fn choice(kind: Kind, workers: usize, basesize: Option<usize>) -> Choice {
    let basesize = if matches!(
        kind,
        Kind::Threaded | Kind::DepthFirst | Kind::TaskPool | Kind::TaskPoolBackground
    ) {
        basesize
    } else {
        None
    };
    Choice {
        kind,
        workers,
        basesize,
    }
}

fn default_workers(variant: Variant, cores: usize) -> Vec<usize> {
    match variant {
        Variant::Sleep => sorted_unique(&[cores, OVERSUBSCRIBED]),
        Variant::Spin => vec![cores],
    }
}

fn or_default<T: Copy + PartialEq>(given: &[T], all: &[T]) -> Vec<T> {
    let chosen = if given.is_empty() { all } else { given };
    let mut out = Vec::new();
    for &item in chosen {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

fn sorted_unique(values: &[usize]) -> Vec<usize> {
    let mut out = values.to_vec();
    out.sort_unstable();
    out.dedup();
    out
}

/// Pairs `--n` with `--t`: equal lengths pair up in order, a single value goes with every
/// value of the other, and a missing list takes the default matrix's values.
fn pair_up(
    ns: &[usize],
    ts: &[Duration],
    defaults: &[(usize, Duration)],
) -> Result<Vec<(usize, Duration)>, String> {
    Ok(match (ns.len(), ts.len()) {
        (0, 0) => defaults.to_vec(),
        (0, _) => ts
            .iter()
            .map(|&t| (default_n_for(t, defaults), t))
            .collect(),
        (_, 0) => ns.iter().map(|&n| (n, defaults[1].1)).collect(),
        (1, _) => ts.iter().map(|&t| (ns[0], t)).collect(),
        (_, 1) => ns.iter().map(|&n| (n, ts[0])).collect(),
        (a, b) if a == b => ns.iter().copied().zip(ts.iter().copied()).collect(),
        (a, b) => {
            return Err(format!(
                "--n has {a} values and --t has {b}: give the same number, or one of either"
            ))
        }
    })
}

/// The default matrix's `n` for an item cost `t`, or its largest `n` for a cost it lacks.
fn default_n_for(t: Duration, defaults: &[(usize, Duration)]) -> usize {
    defaults
        .iter()
        .find(|&&(_, dt)| dt == t)
        .or_else(|| defaults.iter().max_by_key(|(n, _)| *n))
        .map_or(1000, |&(n, _)| n)
}

/// What the runner reports as it goes.
#[derive(Debug)]
pub enum Event {
    /// A row started (its index in the plan).
    Started(usize),
    /// A row finished.
    Finished(Outcome),
    /// A row could not run.
    Failed(String),
    /// Every row ran, or the run was stopped.
    Done,
}

/// Runs the plan in order, reporting through `report`, and stops early once `stop` is raised.
/// `on_item` is called after every item consumed.
pub fn run(
    plan: &Plan,
    across: Option<&dyn Across>,
    stop: &AtomicBool,
    on_item: &(dyn Fn() + Sync),
    report: &mut dyn FnMut(Event),
) {
    for (index, &(data, choice)) in plan.cases.iter().enumerate() {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        report(Event::Started(index));
        // An executor that cannot be made (its threads could not start) and a panic in a
        // pipeline (an executor's bug, re-raised on the consumer; a pool that starts lazily and
        // cannot) fail their row, not the whole run.
        let measured = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let prepared =
                pipeline::prepare(choice, across).map_err(|e| format!("{choice}: {e}"))?;
            let mut runs: Vec<Measurement> = Vec::with_capacity(plan.repeat);
            for _ in 0..plan.repeat {
                let m = prepared.measure(data, choice.workers, plan.buffer, stop, on_item);
                if m.interrupted {
                    break;
                }
                runs.push(m);
            }
            Ok::<_, String>(runs)
        }));
        let runs = match measured {
            Ok(Ok(runs)) => runs,
            Ok(Err(reason)) => {
                report(Event::Failed(reason));
                continue;
            }
            Err(payload) => {
                report(Event::Failed(format!(
                    "{choice} on {data}: panicked: {}",
                    panic_message(payload.as_ref())
                )));
                continue;
            }
        };
        // A row cut short by an interrupt is not reported: its figures would mislead.
        if runs.len() < plan.repeat {
            break;
        }
        let spread = measure::spread(&runs);
        let measurement = measure::median(runs).expect("at least one run");
        report(Event::Finished(Outcome {
            data,
            choice,
            measurement,
            spread,
            runs: plan.repeat,
        }));
    }
    report(Event::Done);
}

/// The message of a panic payload, when it is a string.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(not a string)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn plan(args: &[&str]) -> Result<Plan, String> {
        let cli = crate::cli::Cli::try_parse_from(["foldex", "bench"].iter().chain(args.iter()))
            .map_err(|e| e.to_string())?;
        let crate::cli::Command::Bench(bench) = cli.command else {
            unreachable!()
        };
        Plan::from_args(&bench, 2, None)
    }

    #[test]
    fn in_an_mpi_job_only_the_mpi_rows_run() {
        let cli = crate::cli::Cli::try_parse_from(["foldex", "bench"]).unwrap();
        let crate::cli::Command::Bench(bench) = cli.command else {
            unreachable!()
        };
        let plan = Plan::from_args(&bench, 2, Some(3)).unwrap();
        // 4 workloads × 2 variants, one row each.
        assert_eq!(plan.cases.len(), 8);
        assert!(plan
            .cases
            .iter()
            .all(|(_, c)| c.kind == Kind::Mpi && c.workers == 3));
        let cli = crate::cli::Cli::try_parse_from(["foldex", "bench", "-e", "mpi,threaded"]);
        let crate::cli::Command::Bench(bench) = cli.unwrap().command else {
            unreachable!()
        };
        let refused = Plan::from_args(&bench, 2, Some(3)).unwrap_err();
        assert!(refused.contains("only --executors mpi"), "{refused}");
    }

    #[test]
    fn the_default_plan_has_every_executor_on_both_variants() {
        let plan = plan(&[]).unwrap();
        // sleep: 4 workloads × (sequential + auto + 4 executors × {2, 8});
        // spin: 4 × (2 + 4 × {2}).
        assert_eq!(plan.cases.len(), 4 * 10 + 4 * 6);
        let (data, first) = plan.cases[0];
        assert_eq!(
            (data.variant, data.n, first.kind),
            (Variant::Sleep, 100, Kind::Sequential)
        );
        assert!(plan.cases.iter().any(|(d, c)| d.variant == Variant::Sleep
            && c.kind == Kind::TaskPoolBackground
            && c.workers == 8));
        assert!(!plan
            .cases
            .iter()
            .any(|(d, c)| d.variant == Variant::Spin && c.workers == 8));
        let quick_items: u64 = QUICK.iter().map(|&(n, _)| n as u64).sum();
        assert_eq!(
            plan.total_items(),
            quick_items * (10 + 6) * 3,
            "three runs per row"
        );
    }

    #[test]
    fn n_and_t_pair_up() {
        let p = plan(&[
            "--n",
            "20",
            "--t",
            "1ms,2ms",
            "--variant",
            "spin",
            "-e",
            "seq",
        ])
        .unwrap();
        let shapes: Vec<_> = p.cases.iter().map(|(d, _)| (d.n, d.t)).collect();
        assert_eq!(
            shapes,
            [
                (20, Duration::from_millis(1)),
                (20, Duration::from_millis(2))
            ]
        );
        assert!(plan(&["--n", "1,2,3", "--t", "1ms,2ms"])
            .unwrap_err()
            .contains("--n has 3 values and --t has 2"));
    }

    #[test]
    fn explicit_workers_and_basesize() {
        let p = plan(&[
            "--variant",
            "sleep",
            "--threads",
            "3",
            "--ntasks",
            "4",
            "--basesize",
            "5",
            "--n",
            "10",
            "--t",
            "1ms",
        ])
        .unwrap();
        let labels: Vec<String> = p.cases.iter().map(|(_, c)| c.to_string()).collect();
        assert_eq!(
            labels,
            [
                "SequentialEx",
                "AutoEx",
                "ThreadedEx(threads=3, basesize=5)",
                "rayon+channel(threads=3)",
                "TaskPoolEx(ntasks=4, basesize=5)",
                "TaskPoolEx(ntasks=4, basesize=5, background)",
            ]
        );
    }
}
