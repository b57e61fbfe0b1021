//! The command: parsing, the benchmark run with its progress and Ctrl-C, and the advice.

pub use crate::across::Across;
use crate::cli::{AdviseArgs, BenchArgs, Cli, Command};
use crate::matrix::{self, Event, Plan};
use crate::{advise, chart, load, parse, report, workload};
use clap::{CommandFactory, Parser};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// After Ctrl-C, how long the run may take to wind down (finish the items in progress) before
/// the command prints what it has and exits anyway.
const WIND_DOWN: Duration = Duration::from_secs(3);

/// The exit code for a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
const INTERRUPTED: u8 = 130;

/// Runs the `foldex` command on the process's arguments; the exit code to leave with.
pub fn run() -> ExitCode {
    run_in(None)
}

/// [`run`] in one rank of an MPI job: `foldex bench --executors mpi` folds each row across the
/// ranks of `across`, and only rank 0 prints. Every rank must be given the same arguments.
pub fn run_across(across: Arc<dyn Across>) -> ExitCode {
    run_in(Some(across))
}

fn run_in(across: Option<Arc<dyn Across>>) -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Bench(args) => bench(&args, across),
        Command::Advise(args) => advise(&args),
    }
}

/// Reports a problem with the input the way clap does, and exits with code 2.
fn usage_error(message: impl std::fmt::Display) -> ! {
    Cli::command()
        .error(clap::error::ErrorKind::ValueValidation, message)
        .exit()
}

fn bench(args: &BenchArgs, across: Option<Arc<dyn Across>>) -> ExitCode {
    let cores = foldex::protocol::available_parallelism();
    let ranks = across.as_ref().map(|a| a.size());
    let plan = Plan::from_args(args, cores, ranks).unwrap_or_else(|e| usage_error(e));
    // In an MPI job every rank runs the rows; rank 0 alone reports.
    let root = across.as_ref().is_none_or(|a| a.rank() == 0);
    if let Some(path) = args.svg.as_ref().filter(|_| root) {
        // Found out now, not after the whole run.
        let writable = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path);
        if let Err(e) = writable {
            usage_error(format!("--svg {} cannot be written: {e}", path.display()));
        }
    }
    // The runner's events and Ctrl-C come on channels of their own: the runner holds the only
    // sender of `events`, so the main thread sees it disconnect if the runner ends without
    // reporting `Done` (it panicked). `interrupt` is held here as well as by the Ctrl-C
    // handler, so `interrupts` never disconnects, even when no handler could be installed.
    let (report, events) = crossbeam_channel::unbounded::<Event>();
    let (interrupt, interrupts) = crossbeam_channel::bounded::<()>(1);

    let stop = Arc::new(AtomicBool::new(false));
    let signals = AtomicUsize::new(0);
    let on_interrupt = {
        let (stop, interrupt) = (Arc::clone(&stop), interrupt.clone());
        move || {
            // A second Ctrl-C means "now": leave without waiting for anything.
            if signals.fetch_add(1, Ordering::SeqCst) > 0 {
                std::process::exit(i32::from(INTERRUPTED));
            }
            stop.store(true, Ordering::SeqCst);
            let _ = interrupt.try_send(());
        }
    };
    if let Err(e) = ctrlc::set_handler(on_interrupt) {
        eprintln!("warning: Ctrl-C will not stop the run cleanly: {e}");
    }

    let progress = progress_bar(&plan, args.no_progress || !root);
    let log_rows = progress.is_hidden() && root;
    let runner = {
        let (plan, stop, progress) = (plan.clone(), Arc::clone(&stop), progress.clone());
        std::thread::Builder::new()
            .name("foldex-bench".to_owned())
            .spawn(move || {
                let on_item = || progress.inc(1);
                matrix::run(&plan, across.as_deref(), &stop, &on_item, &mut |event| {
                    let _ = report.send(event);
                });
            })
    };
    let runner = match runner {
        Ok(runner) => runner,
        Err(e) => {
            progress.finish_and_clear();
            eprintln!("error: could not start the benchmark thread: {e}");
            return ExitCode::FAILURE;
        }
    };

    let mut outcomes = Vec::new();
    let mut failures = 0;
    let mut interrupted = false;
    loop {
        let event = if interrupted {
            match events.recv_timeout(WIND_DOWN) {
                Ok(event) => event,
                // The items in progress did not finish in time (leave them), or the runner is
                // gone.
                Err(_) => break,
            }
        } else {
            crossbeam_channel::select! {
                recv(interrupts) -> _ => {
                    interrupted = true;
                    continue;
                }
                recv(events) -> event => match event {
                    Ok(event) => event,
                    // The runner ended without `Done`: it panicked, which joining it reports.
                    Err(_) => break,
                },
            }
        };
        match event {
            Event::Started(index) => {
                let (data, choice) = plan.cases[index];
                progress.set_message(format!("{data}  {choice}"));
            }
            Event::Finished(outcome) => {
                if log_rows {
                    eprintln!(
                        "finished: {}  {}  {:.3}s",
                        outcome.data,
                        outcome.choice,
                        outcome.measurement.wall.as_secs_f64()
                    );
                }
                outcomes.push(outcome);
            }
            Event::Failed(reason) => {
                failures += 1;
                if root {
                    progress.suspend(|| eprintln!("error: {reason}"));
                }
            }
            Event::Done => break,
        }
    }
    progress.finish_and_clear();

    let rows = report::rows(&outcomes, cores);
    let mut code = if failures > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    };
    if !root {
        // The other ranks ran the same rows, each its own block of every fold; rank 0 reports.
        if interrupted {
            std::process::exit(i32::from(INTERRUPTED));
        }
        return match runner.join() {
            Ok(()) => code,
            Err(_) => ExitCode::FAILURE,
        };
    }
    let machine = report::Machine {
        cores,
        load: load::load_average(),
    };
    if args.json || args.csv {
        // The table carries this line itself; JSON and CSV have no place for prose.
        if let Some(line) = report::machine_line(&rows, &machine) {
            eprintln!("{line}");
        }
    }
    if args.json {
        println!("{}", report::json(&rows, &machine, interrupted));
    } else if args.csv {
        print!("{}", report::csv(&rows));
    } else {
        print!("{}", report::table(&rows, args.wide, &machine));
    }
    if let Some(path) = &args.svg
        && let Err(e) = chart::draw(&rows, path)
    {
        eprintln!("error: could not draw {}: {e}", path.display());
        code = ExitCode::FAILURE;
    }
    if interrupted {
        eprintln!(
            "interrupted: {} of {} rows finished",
            outcomes.len(),
            plan.cases.len()
        );
        // Rows in progress may still be winding down; the results are out, so leave now.
        std::process::exit(i32::from(INTERRUPTED));
    }
    if runner.join().is_err() {
        eprintln!("error: the benchmark thread panicked");
        return ExitCode::FAILURE;
    }
    code
}

fn progress_bar(plan: &Plan, disabled: bool) -> ProgressBar {
    let target = if disabled || !std::io::stderr().is_terminal() {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    };
    let bar = ProgressBar::with_draw_target(Some(plan.total_items()), target);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {percent:>3}% {elapsed_precise}  {wide_msg}")
            .expect("a valid progress template"),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

fn advise(args: &AdviseArgs) -> ExitCode {
    let cores = args
        .cores
        .unwrap_or_else(foldex::protocol::available_parallelism);
    if args.cost.is_some() && args.t.is_some() {
        usage_error(
            "--t is the item time of a --workload to calibrate; with --cost it would be ignored",
        );
    }
    let (cost, io) = match (args.cost, args.workload, args.t) {
        (Some(cost), _, _) => (cost, args.io),
        (None, Some(variant), Some(t)) => {
            let data = workload::TimeDataset {
                n: args.n,
                t,
                variant,
            };
            if t > advise::CALIBRATION_BUDGET {
                eprintln!(
                    "not calibrated: one item takes {}, longer than the {} calibration may \
                     take; using that nominal cost",
                    parse::format_duration(t),
                    parse::format_duration(advise::CALIBRATION_BUDGET)
                );
                (t, args.io || variant == workload::Variant::Sleep)
            } else {
                eprintln!(
                    "calibrating: timing up to 50 {} items of {} on this thread (at most {})...",
                    variant.name(),
                    parse::format_duration(t),
                    parse::format_duration(advise::CALIBRATION_BUDGET)
                );
                // The load is this machine's, whatever --cores plans for.
                let here = foldex::protocol::available_parallelism();
                let calibration = advise::calibrate(&data, here);
                print!("{}", calibration.render(variant));
                (
                    calibration.cost,
                    args.io || advise::is_io(&calibration, variant),
                )
            }
        }
        _ => usage_error("give --cost, or --workload and --t to calibrate a built-in workload"),
    };
    let workload = advise::Workload {
        n: args.n,
        cost,
        io,
        uneven: args.uneven,
        busy_consumer: args.busy_consumer,
        cores,
    };
    print!("{}", advise::render(&workload, &advise::advise(&workload)));
    ExitCode::SUCCESS
}
