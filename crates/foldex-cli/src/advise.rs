//! `foldex advise`: which executor, basesize and ntasks for a workload, and why. The rules are
//! the ones docs/choosing-an-executor.md gives, with the thresholds measured for it; what
//! `AutoEx` would choose comes from `AutoEx`'s own model ([`foldex::auto::Estimate`]), and
//! what counts as waiting is its threshold.

use crate::measure::since;
use crate::parse::format_duration;
use crate::workload::{TimeDataset, Variant};
use crate::{cputime, load};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// Below this much work in all, handing items to other threads costs more than it saves.
pub const SEQUENTIAL_BELOW: Duration = Duration::from_millis(1);

/// Workers per core for I/O-bound items: a waiting item holds a worker but no core.
pub const IO_WORKERS_PER_CORE: usize = 4;

/// The least work a piece should carry, so that scheduling it is noise next to running it.
pub const MIN_PIECE: Duration = Duration::from_micros(50);

/// An item counts as I/O-bound when less than this share of its time is spent on a CPU:
/// `AutoEx`'s threshold.
pub const IO_CPU_SHARE: f64 = foldex::auto::WAITING_CPU_SHARE;

/// What is known about a workload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Workload {
    /// Items.
    pub n: usize,
    /// The (typical) cost of one item.
    pub cost: Duration,
    /// Items wait rather than compute.
    pub io: bool,
    /// Item costs vary a lot.
    pub uneven: bool,
    /// The consumer needs its own thread for heavy work.
    pub busy_consumer: bool,
    /// Cores available.
    pub cores: usize,
}

/// A recommendation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advice {
    /// The executor to build, as Rust code.
    pub executor: String,
    /// Why, one reason a line.
    pub reasons: Vec<String>,
}

/// `cost` times `n`, exact for any `n` (saturating at `Duration::MAX`, some 584 billion
/// years).
pub fn times(cost: Duration, n: usize) -> Duration {
    let nanos = cost.as_nanos().saturating_mul(n as u128);
    match u64::try_from(nanos / 1_000_000_000) {
        Ok(secs) => Duration::new(secs, (nanos % 1_000_000_000) as u32),
        Err(_) => Duration::MAX,
    }
}

/// Applies the guide's rules to `w`. Thread and task counts never exceed the items (one item
/// per worker at most) nor, for items that compute, the cores.
pub fn advise(w: &Workload) -> Advice {
    let total = times(w.cost, w.n);
    let mut reasons = Vec::new();
    if w.n <= 1 {
        reasons.push(format!(
            "{} item(s): there is nothing to hand to another thread",
            w.n
        ));
        return Advice {
            executor: "SequentialEx".to_owned(),
            reasons,
        };
    }
    if total < SEQUENTIAL_BELOW {
        reasons.push(format!(
            "the whole run is {} of work, under the {} below which handing items to other \
             threads costs more than it saves",
            format_duration(total),
            format_duration(SEQUENTIAL_BELOW)
        ));
        return Advice {
            executor: "SequentialEx".to_owned(),
            reasons,
        };
    }
    if w.io {
        let ntasks = (IO_WORKERS_PER_CORE * w.cores).min(w.n).max(1);
        reasons.push(format!(
            "the items wait rather than compute, so a waiting item holds a task but not a core: \
             {IO_WORKERS_PER_CORE} tasks per core ({ntasks}) overlap that many waits"
        ));
        reasons.push(
            "basesize 1: each item is a chunk, so an item is handed to the consumer as soon as \
             it is loaded and a slow item holds up no others"
                .to_owned(),
        );
        reasons.push(
            "background: the tasks use little CPU, so the consumer's thread need not help; it \
             stays free for the consumer's own work"
                .to_owned(),
        );
        return Advice {
            executor: format!("TaskPoolEx::new().ntasks({ntasks}).basesize(1).background(true)"),
            reasons,
        };
    }
    if w.cores.min(w.n) == 1 {
        reasons.push(
            "the items compute and there is one core: other threads would only take turns on it"
                .to_owned(),
        );
        return Advice {
            executor: "SequentialEx".to_owned(),
            reasons,
        };
    }
    if w.busy_consumer {
        let ntasks = (w.cores - 1).min(w.n);
        let basesize = cpu_basesize(w, ntasks, &mut reasons);
        reasons.insert(
            0,
            format!(
                "the consumer needs its thread: background keeps every chunk off it, and {ntasks} \
                 task(s) leave its core to it"
            ),
        );
        return Advice {
            executor: format!(
                "TaskPoolEx::new().ntasks({ntasks}).basesize({basesize}).background(true)"
            ),
            reasons,
        };
    }
    let threads = w.cores.min(w.n);
    let basesize = cpu_basesize(w, threads, &mut reasons);
    if threads < w.cores {
        reasons.push(format!(
            "{threads} threads, not {}: a thread takes one item at least, and there are {} items",
            w.cores, w.n
        ));
    }
    reasons.insert(
        0,
        if w.uneven {
            format!(
                "the items compute and their costs vary: ThreadedEx's work stealing moves pieces \
                 from busy threads to idle ones, across {threads} cores"
            )
        } else {
            format!(
                "the items compute: ThreadedEx keeps {threads} cores busy and splits the work so \
                 no thread waits for another"
            )
        },
    );
    Advice {
        executor: format!("ThreadedEx::new().threads({threads}).basesize({basesize})"),
        reasons,
    }
}

/// Basesize for CPU-bound items: enough items per piece to carry [`MIN_PIECE`] of work, but
/// never so many that the pieces are fewer than four per worker (or, for uneven items, more
/// than one item).
fn cpu_basesize(w: &Workload, workers: usize, reasons: &mut Vec<String>) -> usize {
    if w.uneven {
        reasons.push("basesize 1: with uneven items, the smallest pieces balance best".to_owned());
        return 1;
    }
    let per_piece = MIN_PIECE.as_nanos().div_ceil(w.cost.as_nanos().max(1));
    let balance_cap = (w.n / (4 * workers)).max(1);
    let basesize = usize::try_from(per_piece)
        .unwrap_or(usize::MAX)
        .clamp(1, balance_cap);
    reasons.push(if basesize == 1 {
        format!(
            "basesize 1: one item ({}) already outweighs the cost of scheduling it",
            format_duration(w.cost)
        )
    } else {
        format!(
            "basesize {basesize}: pieces of {basesize} items carry about {} of work each, enough \
             to hide the cost of scheduling them, and still make at least four pieces per worker",
            format_duration(times(w.cost, basesize))
        )
    });
    basesize
}

/// What timing a few items of a built-in workload measured, before any interpretation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Items timed.
    pub items: usize,
    /// Wall time over all of them.
    pub wall: Duration,
    /// The calibrating thread's CPU time over the same span, if it could be read.
    pub cpu: Option<Duration>,
    /// How long the thread waited for a core while it could have run (other threads had the
    /// cores), if the platform says.
    pub run_delay: Option<Duration>,
    /// The machine's load average, if known.
    pub load: Option<f64>,
    /// Cores on the machine.
    pub cores: usize,
}

/// What a calibration concludes about a built-in workload's items.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// Items timed.
    pub items: usize,
    /// Mean wall time per item, less the time the thread waited for a core where that is
    /// known.
    pub cost: Duration,
    /// Share of the time the thread could run (not waiting for a core) that it spent on a CPU,
    /// if it could be read.
    pub cpu_share: Option<f64>,
    /// Share of the wall time the thread waited for a core, if known.
    pub queued: Option<f64>,
    /// Why the CPU share cannot be trusted, when it cannot.
    pub untrusted: Option<String>,
    /// The machine's load and cores, for the report.
    pub load: Option<(f64, usize)>,
}

impl Sample {
    /// The calibration this sample gives. The CPU share is taken over the time the thread could
    /// run: on a loaded machine a spinning thread spends much of its wall time waiting for a
    /// core, which is no more waiting on I/O than its spinning is. Where the platform does not
    /// say how long it waited and the load says others took cores from it, the share is kept
    /// but marked untrusted, with why.
    pub fn calibration(&self) -> Calibration {
        let wall = self.wall.as_secs_f64().max(1e-9);
        let queued = self.run_delay.map(|d| (d.as_secs_f64() / wall).min(1.0));
        let runnable = (wall * (1.0 - queued.unwrap_or(0.0))).max(1e-9);
        let cpu_share = self.cpu.map(|c| (c.as_secs_f64() / runnable).min(1.0));
        let loaded = self.load.filter(|&l| load::others_computed(l, 1.0));
        let untrusted = match (cpu_share, queued, loaded) {
            (None, _, _) => Some(
                "this platform gives no CPU time for a thread, so the workload is taken to be \
                 what its name says"
                    .to_owned(),
            ),
            (Some(share), None, Some(load)) => Some(format!(
                "a load of {load:.2} on {} cores means other processes held this thread off the \
                 cores for a time this platform does not report, so its {:.0}% on a CPU may be \
                 short of a core rather than waiting on I/O; rerun on a quieter machine, or give \
                 --cost (and --io if the items wait)",
                self.cores,
                share * 100.0
            )),
            _ => None,
        };
        Calibration {
            items: self.items,
            // What an item takes on a core of its own: the wait for a core is the machine's.
            cost: Duration::from_secs_f64(runnable / self.items.max(1) as f64),
            cpu_share,
            queued,
            untrusted,
            load: self.load.map(|l| (l, self.cores)),
        }
    }
}

impl Calibration {
    /// What the command says of the calibration: what was timed, the machine's load (with the
    /// warning `foldex bench` gives when others took cores), and why the calibration is not to
    /// be trusted, when it is not.
    pub fn render(&self, variant: Variant) -> String {
        let share = self
            .cpu_share
            .map_or_else(|| "unknown".to_owned(), |s| format!("{:.0}%", s * 100.0));
        let mut out = format!(
            "calibrated: {} {} item(s) took {} each, {share} of it on a CPU",
            self.items,
            variant.name(),
            format_duration(self.cost),
        );
        if let Some(queued) = self.queued.filter(|&q| q >= 0.01) {
            let _ = write!(
                out,
                " (the {:.0}% of the time it waited for a core left out)",
                queued * 100.0
            );
        }
        out.push('\n');
        if let Some((load, cores)) = self.load {
            // The calibration keeps one thread busy.
            let _ = writeln!(out, "{}", load::describe(cores, load, 1.0));
        }
        if let Some(why) = &self.untrusted {
            let _ = writeln!(out, "warning: this calibration is not to be trusted: {why}");
        }
        out
    }
}

/// The longest a calibration may take: items longer than this are not timed at all.
pub const CALIBRATION_BUDGET: Duration = Duration::from_secs(2);

/// Times a few items of `data` on this thread, for about 200 ms: at most 50, and at least 3
/// unless that would take longer than [`CALIBRATION_BUDGET`] (one at least). `cores`: the
/// machine's.
pub fn calibrate(data: &TimeDataset, cores: usize) -> Calibration {
    let budget = Duration::from_millis(200);
    let cpu_before = cputime::thread();
    let delay_before = cputime::thread_run_delay();
    let started = Instant::now();
    let mut items = 0;
    let at_least = if times(data.t, 3) > CALIBRATION_BUDGET {
        1
    } else {
        3
    };
    while items < data.n.min(50) && (items < at_least || started.elapsed() < budget) {
        std::hint::black_box(data.get(items));
        items += 1;
    }
    let wall = started.elapsed();
    Sample {
        items,
        wall,
        cpu: since(cputime::thread(), cpu_before),
        run_delay: since(cputime::thread_run_delay(), delay_before),
        load: load::load_average(),
        cores,
    }
    .calibration()
}

/// What `AutoEx` would choose for the workload, by its own model. The workload is a loader's
/// (`eachobsparallel`), so the fold's caller stands in for a helper.
pub fn auto_choice(w: &Workload) -> foldex::auto::Choice {
    foldex::auto::Estimate {
        len: w.n,
        item_cost: w.cost,
        cpu_share: Some(if w.io { 0.0 } else { 1.0 }),
        for_helper: true,
    }
    .choice()
}

/// The advice as the command prints it.
pub fn render(w: &Workload, advice: &Advice) -> String {
    let total = times(w.cost, w.n);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "workload: {} items of {} ({} in all), {}{}{}, {} core(s)",
        w.n,
        format_duration(w.cost),
        format_duration(total),
        if w.io { "I/O-bound" } else { "CPU-bound" },
        if w.uneven { ", uneven" } else { "" },
        if w.busy_consumer {
            ", busy consumer"
        } else {
            ""
        },
        w.cores
    );
    let _ = writeln!(out, "use:      {}", advice.executor);
    for (i, reason) in advice.reasons.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}- {reason}",
            if i == 0 { "why:      " } else { "          " }
        );
    }
    let _ = writeln!(
        out,
        "or:       AutoEx::new(), which would start with {}",
        auto_choice(w)
    );
    out
}

/// Whether a calibrated item counts as I/O-bound.
pub fn is_io(calibration: &Calibration, variant: Variant) -> bool {
    calibration
        .cpu_share
        .map_or(variant == Variant::Sleep, |share| share < IO_CPU_SHARE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload(n: usize, cost_us: u64, io: bool) -> Workload {
        Workload {
            n,
            cost: Duration::from_micros(cost_us),
            io,
            uneven: false,
            busy_consumer: false,
            cores: 2,
        }
    }

    #[test]
    fn tiny_runs_stay_sequential() {
        assert_eq!(advise(&workload(10, 10, false)).executor, "SequentialEx");
        assert_eq!(
            advise(&workload(1, 1_000_000, true)).executor,
            "SequentialEx"
        );
    }

    #[test]
    fn io_gets_an_oversubscribed_background_task_pool() {
        let advice = advise(&workload(10_000, 1000, true));
        assert_eq!(
            advice.executor,
            "TaskPoolEx::new().ntasks(8).basesize(1).background(true)"
        );
        assert_eq!(
            advise(&workload(5, 1000, true)).executor,
            "TaskPoolEx::new().ntasks(5).basesize(1).background(true)"
        );
    }

    #[test]
    fn cpu_gets_threaded_with_pieces_worth_scheduling() {
        assert_eq!(
            advise(&workload(10_000, 100, false)).executor,
            "ThreadedEx::new().threads(2).basesize(1)"
        );
        assert_eq!(
            advise(&workload(10_000, 10, false)).executor,
            "ThreadedEx::new().threads(2).basesize(5)"
        );
        // Never fewer than four pieces per worker.
        assert_eq!(
            advise(&workload(200, 5, false)).executor,
            "ThreadedEx::new().threads(2).basesize(10)"
        );
        let uneven = Workload {
            uneven: true,
            ..workload(10_000, 10, false)
        };
        assert_eq!(
            advise(&uneven).executor,
            "ThreadedEx::new().threads(2).basesize(1)"
        );
    }

    #[test]
    fn a_busy_consumer_keeps_its_core() {
        let w = Workload {
            busy_consumer: true,
            cores: 4,
            ..workload(10_000, 100, false)
        };
        assert_eq!(
            advise(&w).executor,
            "TaskPoolEx::new().ntasks(3).basesize(1).background(true)"
        );
        let one_core = Workload {
            cores: 1,
            ..workload(10_000, 100, false)
        };
        assert_eq!(advise(&one_core).executor, "SequentialEx");
    }

    #[test]
    fn one_item_is_sequential_for_the_right_reason() {
        let w = Workload {
            cost: Duration::from_secs(1),
            ..workload(1, 0, false)
        };
        let advice = advise(&w);
        assert_eq!(advice.executor, "SequentialEx");
        assert!(advice.reasons[0].contains("nothing to hand"), "{advice:?}");
        assert!(!advice.reasons[0].contains("1ms"), "{advice:?}");
    }

    #[test]
    fn totals_do_not_overflow() {
        let w = Workload {
            cost: Duration::from_secs(1),
            ..workload(5_000_000_000, 0, false)
        };
        assert_eq!(times(w.cost, w.n), Duration::from_secs(5_000_000_000));
        let text = render(&w, &advise(&w));
        assert!(text.contains("(5000000000s in all)"), "{text}");
        assert_eq!(times(Duration::MAX, 2), Duration::MAX);
    }

    #[test]
    fn threads_never_exceed_the_items() {
        let w = Workload {
            cost: Duration::from_secs(1),
            cores: 64,
            ..workload(10, 0, false)
        };
        let advice = advise(&w);
        assert_eq!(advice.executor, "ThreadedEx::new().threads(10).basesize(1)");
        assert!(advice
            .reasons
            .iter()
            .any(|r| r.contains("10 threads, not 64")));
        let busy = Workload {
            busy_consumer: true,
            ..w
        };
        assert_eq!(
            advise(&busy).executor,
            "TaskPoolEx::new().ntasks(10).basesize(1).background(true)"
        );
        let io = Workload { io: true, ..w };
        assert_eq!(
            advise(&io).executor,
            "TaskPoolEx::new().ntasks(10).basesize(1).background(true)"
        );
    }

    fn sample(cpu_ms: u64, wall_ms: u64, delay_ms: Option<u64>, load: f64) -> Sample {
        Sample {
            items: 100,
            wall: Duration::from_millis(wall_ms),
            cpu: Some(Duration::from_millis(cpu_ms)),
            run_delay: delay_ms.map(Duration::from_millis),
            load: Some(load),
            cores: 2,
        }
    }

    #[test]
    fn spin_on_a_loaded_machine_is_cpu_bound_once_the_wait_for_a_core_is_left_out() {
        // A load of 9 on 2 cores: the spinning thread ran 15% of the time, and waited for a
        // core the rest.
        let c = sample(150, 1000, Some(840), 9.0).calibration();
        assert!(!is_io(&c, Variant::Spin), "{c:?}");
        assert!(c.cpu_share.unwrap() > 0.9, "{c:?}");
        assert!((c.queued.unwrap() - 0.84).abs() < 1e-9, "{c:?}");
        assert_eq!(c.untrusted, None);
        // 160ms of the second was the thread's own, for 100 items.
        assert!(
            c.cost.abs_diff(Duration::from_micros(1600)) < Duration::from_nanos(10),
            "{c:?}"
        );
        let text = c.render(Variant::Spin);
        assert!(
            text.contains(&format!(
                "calibrated: 100 spin item(s) took {} each, 94% of it on a CPU (the 84% of the \
                 time it waited for a core left out)",
                format_duration(c.cost)
            )),
            "{text}"
        );
        assert!(text.contains("warning: a load of 9.00"), "{text}");
    }

    #[test]
    fn sleep_on_a_loaded_machine_is_still_io_bound() {
        let c = sample(2, 1000, Some(5), 9.0).calibration();
        assert!(is_io(&c, Variant::Sleep), "{c:?}");
        assert_eq!(c.untrusted, None);
    }

    #[test]
    fn without_the_wait_for_a_core_a_loaded_machine_makes_the_share_untrusted() {
        let c = sample(150, 1000, None, 9.0).calibration();
        let why = c.untrusted.clone().expect("untrusted");
        assert!(
            why.contains("a load of 9.00 on 2 cores") && why.contains("15%"),
            "{why}"
        );
        let text = c.render(Variant::Spin);
        assert!(
            text.contains("warning: this calibration is not to be trusted: "),
            "{text}"
        );
        // On a quiet machine the share is what it seems.
        let quiet = sample(990, 1000, None, 0.3).calibration();
        assert_eq!(quiet.untrusted, None);
        assert_eq!(quiet.cost, Duration::from_millis(10));
        assert!(!is_io(&quiet, Variant::Spin));
        assert!(!quiet.render(Variant::Spin).contains("warning"));
    }

    #[test]
    fn calibration_tells_sleep_from_spin() {
        for variant in Variant::ALL {
            let data = TimeDataset {
                n: 1000,
                t: Duration::from_millis(2),
                variant,
            };
            let c = calibrate(&data, 2);
            assert!(c.items >= 3);
            // An item's wall time, less only what the thread spent waiting for a core.
            assert!(
                c.cost >= Duration::from_millis(2) || c.queued.is_some_and(|q| q > 0.0),
                "{c:?}"
            );
            if variant == Variant::Sleep {
                assert!(is_io(&c, variant), "{c:?}");
            }
        }
    }

    #[test]
    fn rendering_gives_the_code_and_the_reasons() {
        let w = workload(10_000, 100, true);
        let text = render(&w, &advise(&w));
        assert!(text.contains("use:      TaskPoolEx::new().ntasks(8)"));
        assert!(text.contains("why:      - the items wait"));
        assert!(text.contains("1s in all"));
        assert!(
            text.contains("or:       AutoEx::new(), which would start with a task pool of"),
            "{text}"
        );
    }

    #[test]
    fn autoex_is_asked_by_its_own_model() {
        use foldex::auto::Choice;
        // A loader's fold is not measured: whatever its items cost, the task pool.
        for w in [
            workload(4, 1, false),
            workload(10_000, 100, false),
            workload(10_000, 100, true),
        ] {
            assert!(
                matches!(auto_choice(&w), Choice::HelperTaskPool { ntasks } if ntasks >= 8),
                "{:?}",
                auto_choice(&w)
            );
        }
    }
}
