//! The results as an SVG chart: per variant, the speedup of each executor on each workload,
//! as grouped bars, each with a black tick at its ideal (the worker count); the legend has a
//! column of its own beside the plot, so that it covers no bar.

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
    let top = rows
        .iter()
        .flat_map(|r| [r.speedup.unwrap_or(0.0), r.workers as f64])
        .fold(1.0_f64, f64::max)
        * 1.15;
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
        let color = Palette99::pick(e).to_rgba();
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
                [(x0, 0.0), (x0 + bar * 0.9, row.speedup.unwrap_or(0.0))],
                color.filled(),
            )
        }))?;
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
    Ok(())
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
