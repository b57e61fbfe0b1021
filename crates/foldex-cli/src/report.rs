//! The results of a benchmark: the figures derived from each run, and the table, JSON and CSV
//! that show them.

use crate::executors::{Choice, Kind};
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
    /// (slowest - fastest) / median wall time of the runs.
    pub spread: f64,
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
    /// (slowest - fastest) / median wall time of the row's runs.
    pub wall_spread: f64,
    /// Sequential wall time over this wall time (`None` without a sequential row).
    pub speedup: Option<f64>,
    /// Ideal time (`n × t / workers`) over wall time.
    pub efficiency: f64,
    /// Speedup over workers: the measured sequential time shared by the workers, over wall
    /// time (`None` without a sequential row).
    pub efficiency_vs_sequential: Option<f64>,
    /// Process CPU time, in seconds.
    pub cpu_s: Option<f64>,
    /// Process CPU time over wall time (1.0 is one core kept busy).
    pub cpu_utilisation: Option<f64>,
    /// Time the consumer spent in `next()`, in seconds.
    pub consumer_wait_s: f64,
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

/// Derives the rows from the outcomes, in the order given.
pub fn rows(outcomes: &[Outcome]) -> Vec<Row> {
    outcomes.iter().map(|o| row(o, outcomes)).collect()
}

fn row(outcome: &Outcome, all: &[Outcome]) -> Row {
    let Outcome {
        data,
        choice,
        measurement: m,
        spread,
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
        wall_spread: spread,
        speedup,
        efficiency: ideal / wall,
        efficiency_vs_sequential: speedup.map(|s| s / choice.workers as f64),
        cpu_s: m.cpu.map(|c| c.as_secs_f64()),
        cpu_utilisation: m.cpu.map(|c| c.as_secs_f64() / wall),
        consumer_wait_s: m.consumer_wait.as_secs_f64(),
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
    ("consumer waited", false),
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
    if exceeds_workers(row) {
        speedup.push('*');
    }
    [
        workload,
        row.executor.clone(),
        wall,
        format!("{:.0}%", row.wall_spread * 100.0),
        speedup,
        percent(Some(row.efficiency)),
        percent(row.efficiency_vs_sequential),
        percent(row.cpu_utilisation),
        format_duration(Duration::from_secs_f64(row.consumer_wait_s)),
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

/// A speedup above the worker count: the sequential baseline was slower than ideal.
fn exceeds_workers(row: &Row) -> bool {
    row.speedup.is_some_and(|s| s > row.workers as f64 * 1.05)
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

/// The rows as a Markdown table, columns aligned, ready for a terminal or a README, then the
/// notes its figures need and a conclusion: the fastest executor per workload. The compact
/// view (`wide == false`) shows the fastest configuration of each executor family and the
/// main columns.
pub fn table(rows: &[Row], wide: bool) -> String {
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
    let mut out = markdown(&headers, &body, |column| columns[column] >= 2);
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

/// The footnote for speedups above the worker count, and the conclusion: per workload, the
/// fastest executor and by how much it beats the runner-up and the sequential run.
fn notes(rows: &[Row], visible: &[&Row]) -> String {
    let mut out = String::new();
    if visible.iter().any(|r| exceeds_workers(r)) {
        out.push_str(
            "\n* above the worker count: the sequential run of that workload took longer than \
             its ideal (its own eff. (ideal) is under 100%: per-item overheads, or the machine's \
             load), or the consumer's thread helped as well, so a ratio to it overstates the \
             gain; eff. (ideal) does not.\n",
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
        }
        if best.wall_spread > 0.1 {
            let _ = write!(
                line,
                " (its runs spread by {:.0}%: rerun with more --runs to be sure)",
                best.wall_spread * 100.0
            );
        }
        let _ = writeln!(out, "{line}");
    }
    out
}

/// The whole report as JSON: the machine, the command's settings and the rows.
pub fn json(rows: &[Row], cores: usize, load: Option<f64>, interrupted: bool) -> String {
    #[derive(Serialize)]
    struct Report<'r> {
        cores: usize,
        load_average_1m: Option<f64>,
        interrupted: bool,
        rows: &'r [Row],
    }
    serde_json::to_string_pretty(&Report {
        cores,
        load_average_1m: load,
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
                consumer_wait: Duration::from_millis(wall_ms / 2),
                items: 100,
                index_sum: data.index_sum(),
                interrupted: false,
            },
            spread: 0.05,
        }
    }

    #[test]
    fn derived_figures() {
        let outcomes = [
            outcome(Kind::Sequential, 1, 1000, 1000),
            outcome(Kind::Threaded, 2, 500, 1000),
            outcome(Kind::Rayon, 2, 400, 800),
        ];
        let rows = rows(&outcomes);
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
        let rows = rows(&[
            outcome(Kind::Sequential, 1, 1000, 1000),
            outcome(Kind::Threaded, 2, 400, 800),
            outcome(Kind::Threaded, 8, 450, 900),
            outcome(Kind::Rayon, 2, 420, 800),
        ]);
        let compact = table(&rows, false);
        assert!(!compact.contains("threads=8"), "{compact}");
        assert!(!compact.contains("vs rayon"), "{compact}");
        assert!(compact.contains("2.50×*"), "{compact}");
        assert!(compact.contains("* above the worker count"), "{compact}");
        assert!(
            compact.contains(
                "- spin 100×10ms: ThreadedEx(threads=2), 1.05× as fast as the best other \
                 family (rayon+channel(threads=2)), 2.50× the sequential run"
            ),
            "{compact}"
        );
        let wide = table(&rows, true);
        assert!(
            wide.contains("threads=8") && wide.contains("vs rayon"),
            "{wide}"
        );
    }

    #[test]
    fn auto_is_compared_with_the_best_hand_picked_executor() {
        let rows = rows(&[
            outcome(Kind::Sequential, 1, 1000, 1000),
            outcome(Kind::Auto, 2, 420, 840),
            outcome(Kind::Threaded, 2, 400, 800),
            outcome(Kind::TaskPool, 2, 500, 1000),
            outcome(Kind::Rayon, 2, 300, 600),
        ]);
        let auto = rows[1].vs_best_picked.expect("a hand-picked row");
        assert!((auto - 1.05).abs() < 1e-9, "not against rayon: {auto}");
        assert_eq!(rows[2].vs_best_picked, Some(1.0));
        assert!(table(&rows, false).contains("| vs best picked |"));
    }

    #[test]
    fn a_short_count_is_incomplete() {
        let mut o = outcome(Kind::Sequential, 1, 1000, 1000);
        o.measurement.items = 99;
        let rows = rows(&[o]);
        assert!(!rows[0].complete);
        assert!(table(&rows, true).contains("(incomplete)"));
    }

    #[test]
    fn table_json_and_csv_agree() {
        let rows = rows(&[
            outcome(Kind::Sequential, 1, 1000, 1000),
            outcome(Kind::TaskPoolBackground, 2, 520, 1040),
        ]);
        let table = table(&rows, true);
        let lines: Vec<&str> = table.lines().take_while(|l| l.starts_with('|')).collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].starts_with("| workload"));
        assert!(lines[3].contains("TaskPoolEx(ntasks=2, background)"));
        assert!(lines[3].contains("1.92×"));
        let widths: Vec<usize> = lines.iter().map(|l| l.chars().count()).collect();
        assert!(widths.windows(2).all(|w| w[0] == w[1]), "{table}");

        let json: serde_json::Value =
            serde_json::from_str(&json(&rows, 2, Some(0.5), false)).unwrap();
        assert_eq!(json["rows"][1]["kind"], "taskpool-bg");
        assert_eq!(json["rows"][1]["workers"], 2);

        let csv = csv(&rows);
        assert_eq!(csv.lines().count(), 3);
        assert!(csv.contains("\"TaskPoolEx(ntasks=2, background)\""));
    }
}
