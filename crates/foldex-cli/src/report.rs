//! The results of a benchmark: the figures derived from each run, and the table, JSON and CSV
//! that show them.

use crate::executors::{Choice, Kind};
use crate::load;
use crate::measure::Measurement;
use crate::parse::format_duration;
use crate::workload::{TimeDataset, Variant};
use serde::Serialize;
use std::fmt::Write as _;
use std::time::Duration;

/// One finished run: what ran, and what it measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// The workload.
    pub data: TimeDataset,
    /// The executor.
    pub choice: Choice,
    /// The (median) measurement.
    pub measurement: Measurement,
    /// (slowest - fastest) / median wall time of the runs; `None` for one run.
    pub spread: Option<f64>,
    /// How many runs were made.
    pub runs: usize,
}

/// A row of the results, with every derived figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// `sleep` or `spin`.
    pub variant: Variant,
    /// Items in the workload.
    pub n: usize,
    /// Cost of one item, in seconds.
    pub t_s: f64,
    /// The executor, with its settings, as a label.
    pub executor: String,
    /// The executor family, as `--executors` names it.
    pub kind: Kind,
    /// Threads or ntasks (1 for `SequentialEx`).
    pub workers: usize,
    /// The fixed basesize, if one was set.
    pub basesize: Option<usize>,
    /// Wall time (the median run's), in seconds.
    pub wall_s: f64,
    /// Runs made of the row.
    pub runs: usize,
    /// (slowest - fastest) / median wall time of the row's runs (`None` for one run: it has no
    /// spread).
    pub wall_spread: Option<f64>,
    /// Sequential wall time over this wall time (`None` without a sequential row).
    pub speedup: Option<f64>,
    /// `false` when the speedup is more than the threads that could load items at once can
    /// give (see [`credible_speedup`]): the sequential run was slowed by the machine's load or
    /// by noise (`None` without a speedup).
    pub speedup_credible: Option<bool>,
    /// Ideal time (`n × t / workers`) over wall time.
    pub efficiency: f64,
    /// Speedup over workers: the measured sequential time shared by the workers, over wall
    /// time (`None` without a sequential row).
    pub efficiency_vs_sequential: Option<f64>,
    /// Process CPU time, in seconds.
    pub cpu_s: Option<f64>,
    /// Process CPU time over wall time (1.0 is one core kept busy).
    pub cpu_utilisation: Option<f64>,
    /// The consumer's thread's CPU time over wall time: the share of a core it spent loading
    /// items itself (an executor that lends it) or spinning while it waited; the rest of the
    /// time it was blocked, waiting for an item.
    pub consumer_cpu_utilisation: Option<f64>,
    /// This wall time over the rayon reference's at the same worker count (`None` without a
    /// reference row): above 1 is slower than the reference.
    pub vs_rayon: Option<f64>,
    /// This wall time over the fastest hand-picked foldex executor's on the same workload
    /// (every family but `AutoEx` and the rayon reference; `None` without one): how far
    /// `AutoEx`'s own choice is from the best a user could have picked.
    pub vs_best_picked: Option<f64>,
    /// Items the consumer received.
    pub items: usize,
    /// `true` if every index arrived exactly once (by count and sum).
    pub complete: bool,
}

/// Derives the rows from the outcomes, in the order given; `cores`: the machine's.
pub fn rows(outcomes: &[Outcome], cores: usize) -> Vec<Row> {
    outcomes.iter().map(|o| row(o, outcomes, cores)).collect()
}

/// The most speedup a row can credibly show: as many times faster as the threads that load
/// items at once, its workers plus the consumer's thread (which some executors lend to the
/// work); `AutoEx` picks its own worker count, at most
/// [`WAITING_TASKS_PER_CORE`](foldex::auto::WAITING_TASKS_PER_CORE) tasks per core. (Not the
/// cores: a spinning item spins for a span of wall time, which threads beyond the cores also
/// see pass.) A speedup above that, allowing 5% for timing noise, measures a sequential run
/// that something else slowed: the machine's load, or noise.
pub fn credible_speedup(choice: Choice, cores: usize) -> f64 {
    let workers = match choice.kind {
        Kind::Auto => cores.saturating_mul(foldex::auto::WAITING_TASKS_PER_CORE),
        _ => choice.workers,
    };
    workers.saturating_add(1) as f64
}

fn row(outcome: &Outcome, all: &[Outcome], cores: usize) -> Row {
    let Outcome {
        data,
        choice,
        measurement: m,
        spread,
        runs,
    } = *outcome;
    let wall = m.wall.as_secs_f64();
    let same_workload = |o: &&Outcome| o.data == data && !o.measurement.interrupted;
    let sequential = all
        .iter()
        .filter(same_workload)
        .find(|o| o.choice.kind == Kind::Sequential);
    let reference = all
        .iter()
        .filter(same_workload)
        .find(|o| o.choice.kind == Kind::Rayon && o.choice.workers == choice.workers);
    let best_picked = all
        .iter()
        .filter(same_workload)
        .filter(|o| !matches!(o.choice.kind, Kind::Auto | Kind::Rayon))
        .map(|o| o.measurement.wall)
        .min();
    let ideal = data.serial_cost().as_secs_f64() / choice.workers as f64;
    let complete = !m.interrupted && m.items == data.n && m.index_sum == data.index_sum();
    let speedup = sequential.map(|s| s.measurement.wall.as_secs_f64() / wall);
    Row {
        variant: data.variant,
        n: data.n,
        t_s: data.t.as_secs_f64(),
        executor: choice.to_string(),
        kind: choice.kind,
        workers: choice.workers,
        basesize: choice.basesize,
        wall_s: wall,
        runs,
        wall_spread: spread,
        speedup,
        speedup_credible: speedup.map(|s| s <= credible_speedup(choice, cores) * 1.05),
        efficiency: ideal / wall,
        efficiency_vs_sequential: speedup.map(|s| s / choice.workers as f64),
        cpu_s: m.cpu.map(|c| c.as_secs_f64()),
        cpu_utilisation: m.cpu.map(|c| c.as_secs_f64() / wall),
        consumer_cpu_utilisation: m.consumer_cpu.map(|c| c.as_secs_f64() / wall),
        vs_rayon: reference.map(|r| wall / r.measurement.wall.as_secs_f64()),
        vs_best_picked: best_picked.map(|b| wall / b.as_secs_f64()),
        items: m.items,
        complete,
    }
}

/// The columns of the wide view; the compact one shows those flagged `true`.
const COLUMNS: [(&str, bool); 11] = [
    ("workload", true),
    ("executor", true),
    ("wall", true),
    ("±", true),
    ("speedup", true),
    ("eff. (ideal)", true),
    ("eff. (seq.)", false),
    ("CPU", true),
    ("consumer CPU", false),
    ("vs rayon", false),
    ("vs best picked", true),
];

fn cells(row: &Row) -> [String; 11] {
    let ratio = |r: Option<f64>| r.map_or_else(|| "-".to_owned(), |r| format!("{r:.2}×"));
    let percent =
        |p: Option<f64>| p.map_or_else(|| "-".to_owned(), |p| format!("{:.0}%", p * 100.0));
    let workload = format!(
        "{} {}×{}",
        row.variant.name(),
        row.n,
        format_duration(Duration::from_secs_f64(row.t_s))
    );
    let mut wall = format_duration(Duration::from_secs_f64(row.wall_s));
    if !row.complete {
        wall.push_str(" (incomplete)");
    }
    let mut speedup = ratio(row.speedup);
    let mut efficiency_vs_sequential = percent(row.efficiency_vs_sequential);
    if not_credible(row) {
        speedup.push('*');
        efficiency_vs_sequential.push('*');
    }
    [
        workload,
        row.executor.clone(),
        wall,
        row.wall_spread
            .map_or_else(|| "n/a".to_owned(), |s| format!("{:.0}%", s * 100.0)),
        speedup,
        percent(Some(row.efficiency)),
        efficiency_vs_sequential,
        percent(row.cpu_utilisation),
        percent(row.consumer_cpu_utilisation),
        ratio(row.vs_rayon),
        ratio(row.vs_best_picked),
    ]
}

/// The executor family: a task pool with and without background mode is one.
fn family(kind: Kind) -> Kind {
    match kind {
        Kind::TaskPoolBackground => Kind::TaskPool,
        other => other,
    }
}

/// A speedup that its threads cannot give (see [`credible_speedup`]).
fn not_credible(row: &Row) -> bool {
    row.speedup_credible == Some(false)
}

/// The rows to show: every one (`wide`), or per workload the fastest configuration of each
/// executor family (a task pool in background mode or not is one family).
fn shown(rows: &[Row], wide: bool) -> Vec<&Row> {
    if wide {
        return rows.iter().collect();
    }
    let mut out: Vec<&Row> = Vec::new();
    for row in rows {
        let same = |r: &&Row| {
            r.variant == row.variant
                && r.n == row.n
                && r.t_s == row.t_s
                && family(r.kind) == family(row.kind)
        };
        match out.iter().position(same) {
            Some(i) if out[i].wall_s > row.wall_s => out[i] = row,
            Some(_) => {}
            None => out.push(row),
        }
    }
    out
}

/// The machine the rows ran on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Machine {
    /// Its cores.
    pub cores: usize,
    /// Its load average over the last minute, if known.
    pub load: Option<f64>,
}

/// The CPU the run itself kept busy, in cores: its busiest row's (at least one, the consumer).
pub fn own_load(rows: &[Row]) -> f64 {
    rows.iter()
        .filter_map(|r| r.cpu_utilisation)
        .fold(1.0, f64::max)
}

/// The machine's cores and load, with the warning when others computed during the run; `None`
/// where the load is unknown.
pub fn machine_line(rows: &[Row], machine: &Machine) -> Option<String> {
    machine
        .load
        .map(|load| load::describe(machine.cores, load, own_load(rows)))
}

/// The report: the machine's cores and load (with a warning when other processes took cores
/// from the run), then the rows as a Markdown table, columns aligned, ready for a terminal or a
/// README, then the notes its figures need and a conclusion: the fastest executor per
/// workload. The compact view (`wide == false`) shows the fastest configuration of each
/// executor family and the main columns.
pub fn table(rows: &[Row], wide: bool, machine: &Machine) -> String {
    let columns: Vec<usize> = (0..COLUMNS.len())
        .filter(|&c| wide || COLUMNS[c].1)
        .collect();
    let headers: Vec<String> = columns.iter().map(|&c| COLUMNS[c].0.to_owned()).collect();
    let visible = shown(rows, wide);
    let body: Vec<Vec<String>> = visible
        .iter()
        .map(|row| {
            let all = cells(row);
            columns.iter().map(|&c| all[c].clone()).collect()
        })
        .collect();
    let mut out = String::new();
    if let Some(line) = machine_line(rows, machine) {
        let _ = writeln!(out, "{line}\n");
    }
    out.push_str(&markdown(&headers, &body, |column| columns[column] >= 2));
    out.push_str(&notes(rows, &visible));
    out
}

/// A Markdown table (comfy-table's Markdown preset); `right_aligned(column)` for the columns
/// of figures.
fn markdown(
    headers: &[String],
    body: &[Vec<String>],
    right_aligned: impl Fn(usize) -> bool,
) -> String {
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::ASCII_MARKDOWN)
        .set_content_arrangement(comfy_table::ContentArrangement::Disabled)
        .set_header(headers);
    for line in body {
        table.add_row(line);
    }
    for (index, column) in table.column_iter_mut().enumerate() {
        if right_aligned(index) {
            column.set_cell_alignment(comfy_table::CellAlignment::Right);
        }
    }
    let mut out = table.to_string();
    out.push('\n');
    out
}

/// The footnotes the figures need (speedups that are not credible, runs without a spread),
/// and the conclusion: per workload, the fastest executor and by how much it beats the
/// runner-up and the sequential run.
fn notes(rows: &[Row], visible: &[&Row]) -> String {
    let mut out = String::new();
    if visible.iter().any(|r| not_credible(r)) {
        out.push_str(
            "\n* not credible: more than the threads that load items at once can give (the \
             workers and the consumer's thread). The sequential run it is measured against was slowed by something else: the \
             machine's load (other processes took cores from it) or noise. eff. (ideal), \
             against the items' own cost, does not depend on that run.\n",
        );
    }
    if visible.iter().any(|r| r.wall_spread.is_none()) {
        out.push_str(
            "\nn/a in ±: one run has no spread; give --runs 3 or more to see how far runs \
             differ.\n",
        );
    }
    let mut workloads: Vec<&Row> = Vec::new();
    for row in rows {
        if !workloads
            .iter()
            .any(|w| w.variant == row.variant && w.n == row.n && w.t_s == row.t_s)
        {
            workloads.push(row);
        }
    }
    if !workloads.is_empty() {
        out.push_str("\nFastest per workload:\n");
    }
    for w in workloads {
        let mut same: Vec<&Row> = rows
            .iter()
            .filter(|r| r.variant == w.variant && r.n == w.n && r.t_s == w.t_s && r.complete)
            .collect();
        same.sort_by(|a, b| a.wall_s.total_cmp(&b.wall_s));
        let Some(best) = same.first() else { continue };
        let workload = format!(
            "{} {}×{}",
            w.variant.name(),
            w.n,
            format_duration(Duration::from_secs_f64(w.t_s))
        );
        let mut line = format!("- {workload}: {}", best.executor);
        if let Some(next) = same.iter().find(|r| family(r.kind) != family(best.kind)) {
            let _ = write!(
                line,
                ", {:.2}× as fast as the best other family ({})",
                next.wall_s / best.wall_s,
                next.executor
            );
        }
        if let Some(speedup) = best.speedup {
            let _ = write!(line, ", {speedup:.2}× the sequential run");
            if not_credible(best) {
                line.push_str(" (not credible: *)");
            }
        }
        if let Some(spread) = best.wall_spread.filter(|&s| s > 0.1) {
            let _ = write!(
                line,
                " (its runs spread by {:.0}%: rerun with more --runs to be sure)",
                spread * 100.0
            );
        }
        let _ = writeln!(out, "{line}");
    }
    out
}

/// The whole report as JSON: the machine (with whether others computed during the run), the
/// command's settings and the rows.
pub fn json(rows: &[Row], machine: &Machine, interrupted: bool) -> String {
    #[derive(Serialize)]
    struct Report<'r> {
        cores: usize,
        load_average_1m: Option<f64>,
        /// The load was more than the run explains: other processes took cores from it.
        others_computed: Option<bool>,
        interrupted: bool,
        rows: &'r [Row],
    }
    serde_json::to_string_pretty(&Report {
        cores: machine.cores,
        load_average_1m: machine.load,
        others_computed: machine
            .load
            .map(|l| load::others_computed(l, own_load(rows))),
        interrupted,
        rows,
    })
    .expect("rows serialise to JSON")
}

/// The rows as CSV (the `csv` crate), with a header line of the field names; missing figures
/// are empty fields.
pub fn csv(rows: &[Row]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.serialize(row).expect("a row serialises to CSV");
    }
    let bytes = writer.into_inner().expect("writing to memory cannot fail");
    String::from_utf8(bytes).expect("CSV of UTF-8 fields is UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUIET: Machine = Machine {
        cores: 2,
        load: None,
    };

    fn outcome(kind: Kind, workers: usize, wall_ms: u64, cpu_ms: u64) -> Outcome {
        let data = TimeDataset {
            n: 100,
            t: Duration::from_millis(10),
            variant: Variant::Spin,
        };
        Outcome {
            data,
            choice: Choice {
                kind,
                workers,
                basesize: None,
            },
            measurement: Measurement {
                wall: Duration::from_millis(wall_ms),
                cpu: Some(Duration::from_millis(cpu_ms)),
                consumer_cpu: Some(Duration::from_millis(wall_ms / 2)),
                items: 100,
                index_sum: data.index_sum(),
                interrupted: false,
            },
            spread: Some(0.05),
            runs: 3,
        }
    }

    #[test]
    fn a_speedup_beyond_what_the_threads_can_give_is_flagged_not_credible() {
        // A sequential run slowed by the machine's load: 88× on 2 threads.
        let rows = rows(
            &[
                outcome(Kind::Sequential, 1, 4415, 1000),
                outcome(Kind::Threaded, 2, 50, 1000),
            ],
            2,
        );
        let wide = table(&rows, true, &QUIET);
        assert!(wide.contains("88.30×*"), "{wide}");
        assert!(wide.contains("4415%*"), "{wide}");
        assert!(wide.contains("* not credible"), "{wide}");
        assert!(wide.contains("the machine's load"), "{wide}");
        assert_eq!(rows[1].speedup_credible, Some(false));
        assert!(
            table(&rows, false, &QUIET).contains("88.30× the sequential run (not credible: *)"),
            "{wide}"
        );
        // 3.1× on 2 threads and the consumer's is within the noise, 3.5× is not; AutoEx sizes
        // its own pool, up to 8 tasks per core.
        let credible = |kind, workers, speedup: f64| {
            let choice = Choice {
                kind,
                workers,
                basesize: None,
            };
            speedup <= credible_speedup(choice, 2) * 1.05
        };
        assert!(credible(Kind::Threaded, 2, 3.1));
        assert!(!credible(Kind::Threaded, 2, 3.5));
        assert!(credible(Kind::TaskPool, 8, 9.0));
        assert!(!credible(Kind::TaskPool, 8, 10.5));
        assert!(credible(Kind::Auto, 2, 14.0));
        assert!(!credible(Kind::Auto, 2, 18.0));
    }

    #[test]
    fn the_machines_load_comes_first_in_the_report() {
        let rows = rows(
            &[
                outcome(Kind::Sequential, 1, 1000, 1000),
                outcome(Kind::Threaded, 2, 500, 1000),
            ],
            2,
        );
        let loaded = Machine {
            cores: 2,
            load: Some(9.0),
        };
        let text = table(&rows, false, &loaded);
        let table_starts = text.find("| workload").expect("a table");
        let warning = text.find("warning: a load of 9.00").expect("a warning");
        assert!(warning < table_starts, "{text}");
        assert!(
            text.starts_with("2 cores; load average over the last minute: 9.00\n"),
            "{text}"
        );
        let quiet = Machine {
            cores: 2,
            load: Some(0.5),
        };
        assert!(!table(&rows, false, &quiet).contains("warning"));
        assert!(table(&rows, false, &QUIET).starts_with("| workload"));
    }

    #[test]
    fn the_consumers_cpu_is_a_share_of_the_wall_time() {
        let rows = rows(&[outcome(Kind::Threaded, 2, 500, 1000)], 2);
        assert_eq!(rows[0].consumer_cpu_utilisation, Some(0.5));
        let wide = table(&rows, true, &QUIET);
        assert!(wide.contains("| consumer CPU |"), "{wide}");
        assert!(!wide.contains("consumer waited"), "{wide}");
    }

    #[test]
    fn one_run_has_no_spread() {
        let mut one = outcome(Kind::Sequential, 1, 1000, 1000);
        (one.spread, one.runs) = (None, 1);
        let text = table(&rows(&[one], 2), false, &QUIET);
        assert!(!text.contains(" 0% "), "{text}");
        assert!(text.contains("n/a"), "{text}");
        assert!(text.contains("one run"), "{text}");
    }

    #[test]
    fn derived_figures() {
        let outcomes = [
            outcome(Kind::Sequential, 1, 1000, 1000),
            outcome(Kind::Threaded, 2, 500, 1000),
            outcome(Kind::Rayon, 2, 400, 800),
        ];
        let rows = rows(&outcomes, 2);
        let threaded = &rows[1];
        assert_eq!(threaded.speedup, Some(2.0));
        assert!((threaded.efficiency - 1.0).abs() < 1e-9);
        assert_eq!(threaded.cpu_utilisation, Some(2.0));
        assert_eq!(threaded.vs_rayon, Some(1.25));
        assert!(threaded.complete);
        assert_eq!(rows[0].vs_rayon, None, "no rayon row with one worker");
    }

    #[test]
    fn the_compact_view_keeps_the_fastest_of_each_family_and_concludes() {
        let rows = rows(
            &[
                outcome(Kind::Sequential, 1, 1000, 1000),
                outcome(Kind::Threaded, 2, 400, 800),
                outcome(Kind::Threaded, 8, 450, 900),
                outcome(Kind::Rayon, 2, 420, 800),
            ],
            2,
        );
        let compact = table(&rows, false, &QUIET);
        assert!(!compact.contains("threads=8"), "{compact}");
        assert!(!compact.contains("vs rayon"), "{compact}");
        // 2.5× on 2 workers and the consumer's thread is credible: no mark, no footnote.
        assert!(compact.contains(" 2.50× "), "{compact}");
        assert!(!compact.contains("* not credible"), "{compact}");
        assert!(
            compact.contains(
                "- spin 100×10ms: ThreadedEx(threads=2), 1.05× as fast as the best other \
                 family (rayon+channel(threads=2)), 2.50× the sequential run"
            ),
            "{compact}"
        );
        let wide = table(&rows, true, &QUIET);
        assert!(
            wide.contains("threads=8") && wide.contains("vs rayon"),
            "{wide}"
        );
    }

    #[test]
    fn auto_is_compared_with_the_best_hand_picked_executor() {
        let rows = rows(
            &[
                outcome(Kind::Sequential, 1, 1000, 1000),
                outcome(Kind::Auto, 2, 420, 840),
                outcome(Kind::Threaded, 2, 400, 800),
                outcome(Kind::TaskPool, 2, 500, 1000),
                outcome(Kind::Rayon, 2, 300, 600),
            ],
            2,
        );
        let auto = rows[1].vs_best_picked.expect("a hand-picked row");
        assert!((auto - 1.05).abs() < 1e-9, "not against rayon: {auto}");
        assert_eq!(rows[2].vs_best_picked, Some(1.0));
        assert!(table(&rows, false, &QUIET).contains("| vs best picked |"));
    }

    #[test]
    fn a_short_count_is_incomplete() {
        let mut o = outcome(Kind::Sequential, 1, 1000, 1000);
        o.measurement.items = 99;
        let rows = rows(&[o], 2);
        assert!(!rows[0].complete);
        assert!(table(&rows, true, &QUIET).contains("(incomplete)"));
    }

    #[test]
    fn table_json_and_csv_agree() {
        let rows = rows(
            &[
                outcome(Kind::Sequential, 1, 1000, 1000),
                outcome(Kind::TaskPoolBackground, 2, 520, 1040),
            ],
            2,
        );
        let table = table(&rows, true, &QUIET);
        let lines: Vec<&str> = table.lines().take_while(|l| l.starts_with('|')).collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].starts_with("| workload"));
        assert!(lines[3].contains("TaskPoolEx(ntasks=2, background)"));
        assert!(lines[3].contains("1.92×"));
        let widths: Vec<usize> = lines.iter().map(|l| l.chars().count()).collect();
        assert!(widths.windows(2).all(|w| w[0] == w[1]), "{table}");

        let json: serde_json::Value = serde_json::from_str(&json(
            &rows,
            &Machine {
                cores: 2,
                load: Some(0.5),
            },
            false,
        ))
        .unwrap();
        assert_eq!(json["rows"][1]["kind"], "taskpool-bg");
        assert_eq!(json["rows"][1]["workers"], 2);

        let csv = csv(&rows);
        assert_eq!(csv.lines().count(), 3);
        assert!(csv.contains("\"TaskPoolEx(ntasks=2, background)\""));
    }
}
