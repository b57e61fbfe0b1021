//! The results as an SVG chart: per variant, the speedup of each executor on each workload,
//! as grouped bars.

use crate::parse::format_duration;
use crate::report::Row;
use crate::workload::Variant;
use plotters::prelude::*;
use std::path::Path;
use std::time::Duration;

const PANEL_HEIGHT: u32 = 360;
const WIDTH: u32 = 960;

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
        .filter_map(|r| r.speedup)
        .fold(1.0_f64, f64::max)
        * 1.15;
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
    let mut chart = ChartBuilder::on(area)
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
    for (e, executor) in executors.iter().enumerate() {
        let color = Palette99::pick(e).to_rgba();
        let bars = workloads.iter().enumerate().filter_map(|(w, &(n, t))| {
            let row = rows
                .iter()
                .find(|r| r.n == n && r.t_s.to_bits() == t && &r.executor == executor)?;
            let x0 = w as f64 + (1.0 - group_width) / 2.0 + e as f64 * bar;
            Some(Rectangle::new(
                [(x0, 0.0), (x0 + bar * 0.9, row.speedup.unwrap_or(0.0))],
                color.filled(),
            ))
        });
        chart
            .draw_series(bars)?
            .label(executor.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
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
