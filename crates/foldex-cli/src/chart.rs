//! The results as an SVG chart: per variant, the speedup of each executor on each workload,
//! as grouped bars, each with a black tick at its ideal (the worker count); the legend has a
//! column of its own beside the plot, so that it covers no bar.
//!
//! The axis stops at [`AXIS_IDEALS`] times the largest ideal (or the tallest bar, if lower), so
//! that one speedup blown up by a slowed sequential run does not squash every bar and tick at
//! the bottom: a bar beyond the axis is cut at its end, with its value written above it. The
//! colours are Okabe and Ito's colour-blind-safe palette, without its yellow (faint on white)
//! and its black (the ideal ticks').

use crate::parse::format_duration;
use crate::report::Row;
use crate::workload::Variant;
use plotters::prelude::*;
use std::path::Path;
use std::time::Duration;

const PANEL_HEIGHT: u32 = 360;
const WIDTH: u32 = 1200;

/// The width of the legend's column, right of each panel's plot.
const LEGEND_WIDTH: u32 = 300;

/// The bars' colours, in order: Okabe and Ito's orange, sky blue, bluish green, blue,
/// vermillion and reddish purple, then a grey; all readable on white.
const PALETTE: [RGBColor; 7] = [
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0x77, 0x77, 0x77),
];

/// Headroom above the axis's end, for the labels of the bars it cuts.
const HEADROOM: f64 = 1.15;

/// Draws `rows` into an SVG file at `path`.
pub fn draw(rows: &[Row], path: &Path) -> Result<(), String> {
    let variants: Vec<Variant> = Variant::ALL
        .into_iter()
        .filter(|v| rows.iter().any(|r| r.variant == *v))
        .collect();
    if variants.is_empty() {
        return Err("no finished rows to draw".to_owned());
    }
    let height = PANEL_HEIGHT * variants.len() as u32;
    let root = SVGBackend::new(path, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let panels = root.split_evenly((variants.len(), 1));
    for (panel, &variant) in panels.iter().zip(&variants) {
        let rows: Vec<&Row> = rows.iter().filter(|r| r.variant == variant).collect();
        draw_panel(panel, variant, &rows).map_err(|e| e.to_string())?;
    }
    root.present()
        .map_err(|e| format!("could not write {}: {e}", path.display()))
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    variant: Variant,
    rows: &[&Row],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let workloads = unique(rows.iter().map(|r| (r.n, r.t_s.to_bits())));
    let executors = unique(rows.iter().map(|r| r.executor.clone()));
    let top = axis_top(rows);
    let end = top / HEADROOM;
    let (plot, legend) = area.split_horizontally(WIDTH - LEGEND_WIDTH);
    let title = format!(
        "{} ({}): speedup against SequentialEx",
        variant.name(),
        match variant {
            Variant::Sleep => "I/O-bound",
            Variant::Spin => "CPU-bound",
        }
    );
    let labels: Vec<String> = workloads
        .iter()
        .map(|&(n, t)| {
            format!(
                "{n}×{}",
                format_duration(Duration::from_secs_f64(f64::from_bits(t)))
            )
        })
        .collect();
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..workloads.len() as f64, 0.0..top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(workloads.len() * 2 + 1)
        .x_label_formatter(&|x| {
            // Labels sit at the middle of each group.
            let group = x.floor();
            if (x - group - 0.5).abs() < 1e-6 {
                labels.get(group as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_desc("speedup (×)")
        .draw()?;

    let group_width = 0.8;
    let bar = group_width / executors.len().max(1) as f64;
    let mut entries = Vec::new();
    for (e, executor) in executors.iter().enumerate() {
        let color = PALETTE[e % PALETTE.len()];
        let placed: Vec<(f64, &Row)> = workloads
            .iter()
            .enumerate()
            .filter_map(|(w, &(n, t))| {
                let row = rows
                    .iter()
                    .find(|r| r.n == n && r.t_s.to_bits() == t && &r.executor == executor)?;
                Some((w as f64 + (1.0 - group_width) / 2.0 + e as f64 * bar, *row))
            })
            .collect();
        chart.draw_series(placed.iter().map(|&(x0, row)| {
            Rectangle::new(
                [
                    (x0, 0.0),
                    (x0 + bar * 0.9, row.speedup.unwrap_or(0.0).min(end)),
                ],
                color.filled(),
            )
        }))?;
        // A bar the axis cuts: its value above its end.
        chart.draw_series(
            placed
                .iter()
                .filter_map(|&(x0, row)| Some((x0, row.speedup.filter(|&s| s > end)?)))
                .map(|(x0, speedup)| {
                    Text::new(
                        format!("{speedup:.1}×"),
                        (x0, top * 0.99),
                        ("sans-serif", 12),
                    )
                }),
        )?;
        // The ideal speedup of this bar: as many times faster as it has workers.
        chart.draw_series(placed.iter().map(|&(x0, row)| {
            PathElement::new(
                vec![
                    (x0, row.workers as f64),
                    (x0 + bar * 0.9, row.workers as f64),
                ],
                BLACK.stroke_width(2),
            )
        }))?;
        entries.push((executor.clone(), color));
    }
    // The legend, in its own column: a swatch and a name per executor, then the ideal tick.
    let line = 22;
    for (i, (name, color)) in entries.iter().enumerate() {
        let y = 40 + i as i32 * line;
        legend.draw(&Rectangle::new([(10, y - 6), (24, y + 6)], color.filled()))?;
        legend.draw(&Text::new(name.clone(), (32, y - 7), ("sans-serif", 14)))?;
    }
    let y = 40 + entries.len() as i32 * line;
    legend.draw(&PathElement::new(
        vec![(10, y), (24, y)],
        BLACK.stroke_width(2),
    ))?;
    legend.draw(&Text::new(
        "ideal (= workers)",
        (32, y - 7),
        ("sans-serif", 14),
    ))?;
    if rows.iter().any(|r| r.speedup.is_some_and(|s| s > end)) {
        legend.draw(&Text::new(
            format!("N.N×: a bar cut at {end:.1}×, {AXIS_IDEALS}× the largest ideal"),
            (10, y + line - 7),
            ("sans-serif", 12),
        ))?;
    }
    Ok(())
}

/// How many times the largest ideal the axis may reach.
pub const AXIS_IDEALS: f64 = 2.0;

/// The top of a panel's axis: its tallest bar or tick, but no higher than [`AXIS_IDEALS`] times
/// its largest ideal; then [`HEADROOM`].
fn axis_top(rows: &[&Row]) -> f64 {
    let ideal = rows
        .iter()
        .map(|r| r.workers as f64)
        .fold(1.0_f64, f64::max);
    let tallest = rows.iter().filter_map(|r| r.speedup).fold(ideal, f64::max);
    tallest.min(AXIS_IDEALS * ideal) * HEADROOM
}

/// The distinct values, in order of first appearance.
fn unique<T: PartialEq>(values: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executors::{Choice, Kind};
    use crate::measure::Measurement;
    use crate::report::{rows, Outcome};
    use crate::workload::TimeDataset;

    /// A spin workload on which the sequential run was slowed 44-fold by the machine's load.
    fn loaded_rows() -> Vec<Row> {
        let data = TimeDataset {
            n: 100,
            t: Duration::from_millis(10),
            variant: Variant::Spin,
        };
        let outcome = |kind, workers, wall_ms| Outcome {
            data,
            choice: Choice {
                kind,
                workers,
                basesize: None,
            },
            measurement: Measurement {
                wall: Duration::from_millis(wall_ms),
                cpu: None,
                consumer_cpu: None,
                items: 100,
                index_sum: data.index_sum(),
                interrupted: false,
            },
            spread: None,
            runs: 1,
        };
        rows(
            &[
                outcome(Kind::Sequential, 1, 44_000),
                outcome(Kind::Threaded, 2, 500),
                outcome(Kind::Rayon, 2, 520),
            ],
            2,
        )
    }

    #[test]
    fn the_axis_keeps_the_ideal_readable_and_bars_beyond_it_are_cut_and_labelled() {
        let rows = loaded_rows();
        let panel: Vec<&Row> = rows.iter().collect();
        // The ideal is 2; the worst bar 88×: the axis stops at twice the ideal, plus room for
        // the labels of the bars it cuts.
        assert!((axis_top(&panel) - 2.0 * AXIS_IDEALS * 1.15).abs() < 1e-9);
        let path = std::env::temp_dir().join(format!("foldex-chart-{}.svg", std::process::id()));
        draw(&rows, &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        // The axis's labels end at 4.5 (4 and the headroom), not at 100.
        assert!(svg.contains("\n4.5\n") && !svg.contains("\n100\n"), "{svg}");
        assert!(
            svg.contains("88.0×") && svg.contains("84.6×"),
            "the cut bars' values"
        );
        assert!(
            svg.contains("a bar cut at 4.0×, 2× the largest ideal"),
            "the legend says what a value above a bar means"
        );
        // Okabe-Ito's first colours, and neither yellow nor lime.
        for colour in ["#E69F00", "#56B4E9", "#009E73"] {
            assert!(svg.contains(colour), "{colour}");
        }
        for hard_to_read in ["#FFE119", "#D2F53C", "#F0E442"] {
            assert!(!svg.contains(hard_to_read), "{hard_to_read}");
        }
    }

    #[test]
    fn without_outliers_the_axis_follows_the_bars() {
        let mut rows = loaded_rows();
        rows[1].speedup = Some(1.8);
        rows[2].speedup = Some(2.6);
        let panel: Vec<&Row> = rows.iter().skip(1).collect();
        assert!((axis_top(&panel) - 2.6 * 1.15).abs() < 1e-9);
    }
}
