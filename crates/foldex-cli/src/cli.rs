//! The command line: `foldex bench` and `foldex advise`.

use crate::executors::Kind;
use crate::parse;
use crate::workload::Variant;
use clap::{ArgGroup, Args, Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

/// Compare foldex executors on a workload, and get advice on which to use.
#[derive(Debug, Parser)]
#[command(name = "foldex", version, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the TimeDataset matrix (items that sleep or spin for t) through the loader on every
    /// executor, with rayon + crossbeam-channel as the reference, and print the results.
    Bench(BenchArgs),
    /// Recommend an executor, basesize and ntasks for a workload, with the reason.
    Advise(AdviseArgs),
}

/// `foldex bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Run the seed's sizes (n=100 × 0.1s, n=10000 × 1ms, 100us, 10us): minutes per variant.
    /// Without it, a scaled-down matrix that finishes in under two minutes on two cores.
    #[arg(long)]
    pub full: bool,

    /// Items per workload, comma-separated (paired with --t; one value applies to all).
    #[arg(long, value_delimiter = ',', value_parser = parse::size, allow_hyphen_values = true)]
    pub n: Vec<usize>,

    /// Cost of one item, comma-separated: 100us, 1ms, 0.1s (paired with --n).
    #[arg(long, value_delimiter = ',', value_parser = parse::duration, allow_hyphen_values = true)]
    pub t: Vec<Duration>,

    /// Which variants to run: sleep (I/O-bound), spin (CPU-bound). Default: both.
    #[arg(long, value_delimiter = ',', value_enum)]
    pub variant: Vec<Variant>,

    /// Which executors to run. Default: all but depth-first (which runs when named).
    #[arg(long, short = 'e', value_delimiter = ',', value_enum)]
    pub executors: Vec<Kind>,

    /// Thread counts for ThreadedEx and rayon, comma-separated. Default: the available
    /// parallelism, plus 8 for the sleep variant.
    #[arg(long, value_delimiter = ',', value_parser = parse::size, allow_hyphen_values = true)]
    pub threads: Vec<usize>,

    /// ntasks values for TaskPoolEx, comma-separated. Default: the same as the thread counts.
    #[arg(long, value_delimiter = ',', value_parser = parse::size, allow_hyphen_values = true)]
    pub ntasks: Vec<usize>,

    /// A fixed basesize for ThreadedEx and TaskPoolEx. Default: each executor's own.
    #[arg(long, value_parser = parse::size, allow_hyphen_values = true)]
    pub basesize: Option<usize>,

    /// Items the loader (and the reference's channel) may hold ready. Default: the loader's.
    #[arg(long, value_parser = parse::size, allow_hyphen_values = true)]
    pub buffer: Option<usize>,

    /// Runs per row: the median is reported, with the spread of the runs (max - min, over the
    /// median).
    #[arg(long, alias = "repeat", default_value = "3", value_parser = parse::size, allow_hyphen_values = true)]
    pub runs: usize,

    /// Print every column of the table (the default view fits a terminal).
    #[arg(long)]
    pub wide: bool,

    /// Print JSON instead of the table.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,

    /// Print CSV instead of the table.
    #[arg(long)]
    pub csv: bool,

    /// Also draw the results as an SVG chart into FILE.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Never show the progress bar (it is shown only on a terminal anyway).
    #[arg(long)]
    pub no_progress: bool,
}

/// `foldex advise`: the two ways to describe an item, each on a usage line of its own (clap's
/// generated line would show `--workload` without the `--t` it needs).
#[derive(Debug, Args)]
#[command(
    group(ArgGroup::new("item").required(true).args(["cost", "workload"])),
    override_usage = "foldex advise [OPTIONS] --n <N> --cost <COST>\n       \
                      foldex advise [OPTIONS] --n <N> --workload <WORKLOAD> --t <T>"
)]
pub struct AdviseArgs {
    /// The cost of one item (100us, 1ms...). Without it, the built-in workload given by
    /// --workload and --t is calibrated: a few items are timed here.
    #[arg(long, value_parser = parse::duration, allow_hyphen_values = true)]
    pub cost: Option<Duration>,

    /// The number of items.
    #[arg(long, value_parser = parse::size, allow_hyphen_values = true)]
    pub n: usize,

    /// The items wait on I/O (disk, network) rather than keep a core busy.
    #[arg(long)]
    pub io: bool,

    /// Item costs vary a lot (some items many times dearer than others).
    #[arg(long)]
    pub uneven: bool,

    /// The consumer does heavy work of its own (a training step) and needs its thread.
    #[arg(long)]
    pub busy_consumer: bool,

    /// Cores to plan for. Default: the available parallelism.
    #[arg(long, value_parser = parse::size, allow_hyphen_values = true)]
    pub cores: Option<usize>,

    /// The built-in workload to calibrate when --cost is not given (with --t).
    #[arg(long, value_enum, conflicts_with = "cost", requires = "t")]
    pub workload: Option<Variant>,

    /// The per-item time of the built-in workload to calibrate (required with --workload).
    #[arg(long, value_parser = parse::duration, allow_hyphen_values = true, requires = "workload")]
    pub t: Option<Duration>,
}
