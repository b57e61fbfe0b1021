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
    /// Wall time, in seconds.
    pub wall_s: f64,
    /// Sequential wall time over this wall time (`None` without a sequential row).
    pub speedup: Option<f64>,
    /// Ideal time (`n × t / workers`) over wall time.
    pub efficiency: f64,
    /// Process CPU time, in seconds.
    pub cpu_s: Option<f64>,
    /// Process CPU time over wall time (1.0 is one core kept busy).
    pub cpu_utilisation: Option<f64>,
    /// Time the consumer spent in `next()`, in seconds.
    pub consumer_wait_s: f64,
    /// This wall time over the rayon reference's at the same worker count (`None` without a
    /// reference row): above 1 is slower than the reference.
    pub vs_rayon: Option<f64>,
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
    let ideal = data.serial_cost().as_secs_f64() / choice.workers as f64;
    let complete = !m.interrupted && m.items == data.n && m.index_sum == data.index_sum();
    Row {
        variant: data.variant,
        n: data.n,
        t_s: data.t.as_secs_f64(),
        executor: choice.to_string(),
        kind: choice.kind,
        workers: choice.workers,
        basesize: choice.basesize,
        wall_s: wall,
        speedup: sequential.map(|s| s.measurement.wall.as_secs_f64() / wall),
        efficiency: ideal / wall,
        cpu_s: m.cpu.map(|c| c.as_secs_f64()),
        cpu_utilisation: m.cpu.map(|c| c.as_secs_f64() / wall),
        consumer_wait_s: m.consumer_wait.as_secs_f64(),
        vs_rayon: reference.map(|r| wall / r.measurement.wall.as_secs_f64()),
        items: m.items,
        complete,
    }
}

const HEADERS: [&str; 8] = [
    "workload",
    "executor",
    "wall",
    "speedup",
    "efficiency",
    "CPU",
    "consumer waited",
    "vs rayon",
];

fn cells(row: &Row) -> [String; 8] {
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
    [
        workload,
        row.executor.clone(),
        wall,
        ratio(row.speedup),
        percent(Some(row.efficiency)),
        percent(row.cpu_utilisation),
        format_duration(Duration::from_secs_f64(row.consumer_wait_s)),
        ratio(row.vs_rayon),
    ]
}

/// The rows as a Markdown table, columns aligned, ready for a terminal or a README.
pub fn table(rows: &[Row]) -> String {
    let body: Vec<[String; 8]> = rows.iter().map(cells).collect();
    let mut widths = HEADERS.map(|h| h.chars().count());
    for line in &body {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    // Text columns left, figures right.
    let right_aligned = |column: usize| column >= 2;
    let mut out = String::new();
    let mut write_line = |cells: &[String]| {
        out.push('|');
        for (column, (cell, &width)) in cells.iter().zip(&widths).enumerate() {
            let pad = width - cell.chars().count();
            if right_aligned(column) {
                let _ = write!(out, " {}{cell} |", " ".repeat(pad));
            } else {
                let _ = write!(out, " {cell}{} |", " ".repeat(pad));
            }
        }
        out.push('\n');
    };
    write_line(&HEADERS.map(str::to_owned));
    let rule: Vec<String> = widths
        .iter()
        .enumerate()
        .map(|(column, &w)| {
            if right_aligned(column) {
                format!("{}:", "-".repeat(w - 1))
            } else {
                "-".repeat(w)
            }
        })
        .collect();
    write_line(&rule);
    for line in &body {
        write_line(line);
    }
    out
}

/// The machine's load average over the last minute (from `/proc/loadavg`): on a shared
/// machine, a load above the core count means the figures were taken while others computed.
pub fn load_average() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
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

/// The rows as CSV with a header line; missing figures are empty fields.
pub fn csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "variant,n,t_s,executor,kind,workers,basesize,wall_s,speedup,efficiency,cpu_s,\
         cpu_utilisation,consumer_wait_s,vs_rayon,items,complete\n",
    );
    let opt = |v: Option<f64>| v.map_or_else(String::new, |v| v.to_string());
    for r in rows {
        let kind = serde_json::to_value(r.kind).expect("kind serialises");
        let fields = [
            r.variant.name().to_owned(),
            r.n.to_string(),
            r.t_s.to_string(),
            quote(&r.executor),
            kind.as_str().unwrap_or_default().to_owned(),
            r.workers.to_string(),
            r.basesize.map_or_else(String::new, |b| b.to_string()),
            r.wall_s.to_string(),
            opt(r.speedup),
            r.efficiency.to_string(),
            opt(r.cpu_s),
            opt(r.cpu_utilisation),
            r.consumer_wait_s.to_string(),
            opt(r.vs_rayon),
            r.items.to_string(),
            r.complete.to_string(),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// A CSV field, quoted when it holds a comma or a quote.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
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
    fn a_short_count_is_incomplete() {
        let mut o = outcome(Kind::Sequential, 1, 1000, 1000);
        o.measurement.items = 99;
        let rows = rows(&[o]);
        assert!(!rows[0].complete);
        assert!(table(&rows).contains("(incomplete)"));
    }

    #[test]
    fn table_json_and_csv_agree() {
        let rows = rows(&[
            outcome(Kind::Sequential, 1, 1000, 1000),
            outcome(Kind::TaskPoolBackground, 2, 520, 1040),
        ]);
        let table = table(&rows);
        let lines: Vec<&str> = table.lines().collect();
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
