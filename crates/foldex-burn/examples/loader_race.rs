//! foldex's loader against burn's own, side by side in one run: rounds in which every loader
//! setting runs one epoch of a training loop and one epoch of a loop that only receives the
//! batches (the order of the settings alternates from round to round), then each cell's
//! median over the rounds, wall and CPU time.
//!
//! ```text
//! cargo run --release --manifest-path crates/foldex-burn/Cargo.toml --example loader_race -- [rounds] [images] [loops]
//! ```
//!
//! `rounds`: 5 by default. `images`: the epoch's PNG images, 1024 by default. `loops`:
//! `train`, `load` or both (`-`, the default). The workload is `benches/shared/race.rs`'s:
//! each item decodes a 64x64 PNG held in memory, crops 56x56 at random, flips at random and
//! scales to `f32`; batches of 32 through `FeatureBatcher`; the training step is a
//! 9408-64-10 MLP's forward, cross-entropy loss, backward and SGD step on burn's ndarray
//! backend with autodiff.
//!
//! The ratio is foldex's median over burn's at its best worker count (the burn setting with
//! the least median wall time in that loop), of the wall time, then of the CPU time of the
//! process's threads (from Linux's `/proc/self/task/*/schedstat`, idle workers' spinning
//! included) against that same burn setting's. The table also gives, per cell, the time the
//! process's threads were ready to run but had no core (the same file's second figure): on a
//! loaded machine, what separates the wall time from the CPU time.
#![forbid(unsafe_code)]

// Shared with benches/loader_vs_burn.rs.
#[path = "../benches/shared/race.rs"]
mod race;

use burn::tensor::Device;
use race::{Contender, Setting, Trainer};
use std::time::Instant;

/// Of this process's threads so far, from Linux's `/proc/self/task/*/schedstat`: the CPU
/// time (s) and the time (s) they were ready to run but waited for a CPU; 0 where that cannot
/// be read.
fn cpu_time() -> (f64, f64) {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return (0.0, 0.0);
    };
    let (cpu, waited) = tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| {
            let mut fields = s.split_whitespace().map(|f| f.parse::<u64>().ok());
            Some((fields.next()??, fields.next()??))
        })
        .fold((0, 0), |(c, w), (cpu, waited)| (c + cpu, w + waited));
    (cpu as f64 * 1e-9, waited as f64 * 1e-9)
}

/// The median of `times`, in ms.
fn median_ms(times: &[f64]) -> f64 {
    let mut t = times.to_vec();
    t.sort_by(f64::total_cmp);
    t.get(t.len() / 2).map_or(f64::NAN, |m| m * 1e3)
}

/// One loop (training or loading only) of one setting: its loader, its model, its times.
struct Cell {
    contender: Contender,
    trainer: Option<Trainer>,
    wall: Vec<f64>,
    cpu: Vec<f64>,
    waited: Vec<f64>,
    batches: usize,
}

impl Cell {
    /// Runs one epoch, timed unless `warm_up`.
    fn run(&mut self, images: usize, warm_up: bool) {
        let (started, cpu) = (Instant::now(), cpu_time());
        self.batches = race::epoch(&*self.contender.loader, self.trainer.as_mut(), images);
        if !warm_up {
            self.wall.push(started.elapsed().as_secs_f64());
            let (cpu_after, waited_after) = cpu_time();
            self.cpu.push(cpu_after - cpu.0);
            self.waited.push(waited_after - cpu.1);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().map_or(5, |a| a.parse().expect("rounds"));
    let images: usize = args.next().map_or(1024, |a| a.parse().expect("images"));
    let loops = args.next().filter(|a| a != "-");
    let device = Device::default().autodiff();
    let data = race::pngs(images);
    let mut table: Vec<(&str, Vec<Cell>)> = ["train", "load"]
        .into_iter()
        .filter(|name| loops.as_deref().is_none_or(|l| l == *name))
        .map(|name| {
            let cells = Setting::ALL
                .into_iter()
                .map(|setting| Cell {
                    contender: Contender::new(setting, &data, &device),
                    trainer: (name == "train").then(|| Trainer::new(&device)),
                    wall: Vec::new(),
                    cpu: Vec::new(),
                    waited: Vec::new(),
                    batches: 0,
                })
                .collect();
            (name, cells)
        })
        .collect();
    for (_, cells) in &mut table {
        for cell in cells {
            cell.run(images, true);
        }
    }
    for round in 0..rounds {
        // Alternate who goes first: forwards in even rounds, backwards in odd ones.
        let mut order: Vec<usize> = (0..Setting::ALL.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        for (_, cells) in &mut table {
            for &i in &order {
                cells[i].run(images, false);
            }
        }
        eprintln!("round {} of {rounds} done", round + 1);
    }
    println!(
        "{images} images of {} bytes (mean PNG), batches of {}, {rounds} rounds",
        data.mean_bytes(),
        race::BATCH
    );
    println!(
        "| loop | loader | epoch wall (ms) | batches/s | epoch CPU (ms) | waited for a CPU (ms) |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for (name, cells) in &table {
        for cell in cells {
            let wall = median_ms(&cell.wall);
            println!(
                "| {name} | {} | {wall:.1} | {:.1} | {:.1} | {:.1} |",
                cell.contender.setting.name(),
                cell.batches as f64 / wall * 1e3,
                median_ms(&cell.cpu),
                median_ms(&cell.waited),
            );
        }
    }
    println!("| loop | foldex setting | burn's best | wall ratio | CPU ratio |");
    println!("| --- | --- | --- | --- | --- |");
    for (name, cells) in &table {
        let is_burn = |c: &&Cell| matches!(c.contender.setting, Setting::Burn(_));
        let best = cells
            .iter()
            .filter(is_burn)
            .min_by(|a, b| median_ms(&a.wall).total_cmp(&median_ms(&b.wall)))
            .expect("burn settings are raced");
        for cell in cells.iter().filter(|c| !is_burn(c)) {
            println!(
                "| {name} | {} | {} | {:.2} | {:.2} |",
                cell.contender.setting.name(),
                best.contender.setting.name(),
                median_ms(&cell.wall) / median_ms(&best.wall),
                median_ms(&cell.cpu) / median_ms(&best.cpu),
            );
        }
    }
    for (name, cells) in &table {
        for cell in cells {
            if let Some(stats) = cell.contender.foldex.as_ref().and_then(|f| f.stats()) {
                println!("{name}, {}: {stats}", cell.contender.setting.name());
            }
        }
    }
}
