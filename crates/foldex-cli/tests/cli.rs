//! Drives the `foldex` binary: a tiny benchmark in every output format, advice, bad input, and
//! Ctrl-C in the middle of a run.

use foldex_testkit::watchdog;
use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const EXECUTORS: [&str; 6] = [
    "SequentialEx",
    "AutoEx",
    "ThreadedEx(threads=2)",
    "TaskPoolEx(ntasks=2)",
    "TaskPoolEx(ntasks=2, background)",
    "rayon+channel(threads=2)",
];

fn foldex(args: &[&str]) -> Output {
    watchdog(&format!("foldex {}", args.join(" ")), || {
        Command::new(env!("CARGO_BIN_EXE_foldex"))
            .args(args)
            .output()
            .expect("running foldex")
    })
}

fn tiny_bench(extra: &[&str]) -> Output {
    let mut args = vec!["bench", "--n", "20", "--t", "1ms", "--threads", "2"];
    args.extend_from_slice(extra);
    let out = foldex(&args);
    assert!(
        out.status.success(),
        "foldex {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn the_table_has_a_row_per_executor_and_variant() {
    let out = tiny_bench(&["--wide"]);
    let table = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert!(lines[0].starts_with("| workload"), "{table}");
    // The machine's load is part of the report, before the table, where it is known.
    if cfg!(target_os = "linux") {
        let first = table.lines().next().unwrap();
        assert!(
            first.contains("cores; load average over the last minute: "),
            "{table}"
        );
    }
    for column in [
        "executor",
        "wall",
        "±",
        "speedup",
        "eff. (ideal)",
        "eff. (seq.)",
        "CPU",
        "consumer CPU",
        "vs rayon",
        "vs best picked",
    ] {
        assert!(lines[0].contains(column), "no {column} column: {table}");
    }
    // Header, rule, and six executors on each of the two variants.
    assert_eq!(lines.len(), 2 + 2 * EXECUTORS.len(), "{table}");
    for variant in ["sleep 20×1ms", "spin 20×1ms"] {
        for executor in EXECUTORS {
            assert!(
                lines
                    .iter()
                    .any(|l| l.contains(variant) && l.contains(&format!(" {executor} "))),
                "no row for {executor} on {variant}: {table}"
            );
        }
    }
    assert!(!table.contains("incomplete"), "{table}");
    assert!(
        table.contains("Fastest per workload:\n- sleep 20×1ms: "),
        "{table}"
    );
    let sequential = lines.iter().find(|l| l.contains("SequentialEx")).unwrap();
    assert!(
        sequential.contains("1.00×"),
        "sequential is its own baseline: {sequential}"
    );
}

#[test]
fn one_run_says_it_has_no_spread() {
    let out = tiny_bench(&["--runs", "1", "--variant", "spin", "-e", "seq,threaded"]);
    let table = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| spin")).collect();
    assert_eq!(rows.len(), 2, "{table}");
    for row in rows {
        assert!(row.contains(" n/a "), "{table}");
        assert!(!row.contains(" 0% "), "{table}");
    }
    assert!(table.contains("one run has no spread"), "{table}");
}

#[test]
fn json_gives_every_figure_for_every_row() {
    let out = tiny_bench(&["--json", "--variant", "spin"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["interrupted"], false);
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), EXECUTORS.len());
    for (row, executor) in rows.iter().zip(EXECUTORS) {
        assert_eq!(row["executor"], executor);
        assert_eq!(row["variant"], "spin");
        assert_eq!(row["n"], 20);
        assert_eq!(row["items"], 20);
        assert_eq!(row["complete"], true);
        let wall = row["wall_s"].as_f64().unwrap();
        // 20 items of 1ms cannot finish faster than 20ms over 2 workers.
        assert!(wall >= 0.01, "{row}");
        assert!(row["speedup"].as_f64().unwrap() > 0.0);
        let efficiency = row["efficiency"].as_f64().unwrap();
        assert!(efficiency > 0.0 && efficiency <= 1.05, "{row}");
        if let Some(consumer) = row["consumer_cpu_utilisation"].as_f64() {
            assert!((0.0..=1.05).contains(&consumer), "{row}");
        }
        assert_eq!(row["runs"], 3);
        assert!(row.get("cpu_utilisation").is_some());
    }
    assert!(rows[5]["vs_rayon"].as_f64().unwrap() == 1.0);
    assert!(
        rows[1]["vs_best_picked"].as_f64().unwrap() > 0.0,
        "AutoEx's row"
    );
}

#[test]
fn csv_and_svg() {
    let dir = std::env::temp_dir().join(format!("foldex-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("bench.svg");
    let out = tiny_bench(&[
        "--csv",
        "--variant",
        "sleep",
        "-e",
        "seq,threaded",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    let csv = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("variant,n,t_s,executor,kind,workers"));
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[2].starts_with("sleep,20,0.001,ThreadedEx(threads=2),threaded,2,"));
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.contains("<svg") && drawn.contains("ThreadedEx(threads=2)"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_exits_with_2_and_says_why() {
    let cases: [(&[&str], &str); 16] = [
        (&["bench", "--executors", "fastest"], "fastest"),
        (&["bench", "--n", "0"], "at least 1, got 0"),
        (&["bench", "--n", "-5"], "at least 1, got -5"),
        (&["bench", "--threads", "0"], "at least 1, got 0"),
        (&["bench", "--t", "10"], "no unit"),
        (&["bench", "--t", "fast"], "expected a duration"),
        (&["bench", "--t", "-1ms"], "greater than zero"),
        (
            &["bench", "--n", "1,2,3", "--t", "1ms,2ms"],
            "--n has 3 values",
        ),
        (
            &["advise", "--cost", "1xs", "--n", "10"],
            "expected a duration",
        ),
        (&["advise", "--n", "10"], "--cost"),
        (
            &["bench", "--svg", "/nonexistent/dir/x.svg"],
            "--svg /nonexistent/dir/x.svg cannot be written",
        ),
        (&["bench", "--threads", "100000"], "over the cap of"),
        (
            &["bench", "--ntasks", "4", "-e", "rayon"],
            "--ntasks applies to none of the executors chosen (rayon)",
        ),
        (
            &["bench", "--basesize", "4", "-e", "sequential"],
            "--basesize applies to none",
        ),
        (
            &["advise", "--cost", "1s", "--t", "1ms", "--n", "10"],
            "--t is the item time of a --workload",
        ),
        (
            &["bench", "-e", "mpi"],
            "--executors mpi runs in an MPI job",
        ),
    ];
    for (args, expected) in cases {
        let out = foldex(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "foldex {args:?}: {stderr}");
        assert!(stderr.contains(expected), "foldex {args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "foldex {args:?}: {stderr}");
    }
}

#[test]
fn the_advise_usage_line_shows_that_a_workload_needs_its_t() {
    let help = foldex(&["advise", "--help"]);
    assert!(help.status.success());
    let help = String::from_utf8(help.stdout).unwrap();
    let usage: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Usage:"))
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(
        usage
            .iter()
            .any(|l| l.contains("--cost <COST>") && !l.contains("--workload")),
        "{help}"
    );
    assert!(
        usage
            .iter()
            .any(|l| l.contains("--workload <WORKLOAD> --t <T>") && !l.contains("--cost")),
        "{help}"
    );
    // The same usage where the input falls short.
    for args in [
        &["advise", "--n", "10"][..],
        &["advise", "--n", "10", "--workload", "spin"],
    ] {
        let out = foldex(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("--workload <WORKLOAD> --t <T>"),
            "foldex {args:?}: {stderr}"
        );
    }
}

#[test]
fn advice_follows_the_workload() {
    let text = |args: &[&str]| {
        let out = foldex(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let cpu = text(&["advise", "--cost", "100us", "--n", "10000", "--cores", "2"]);
    assert!(
        cpu.contains("use:      ThreadedEx::new().threads(2).basesize(1)"),
        "{cpu}"
    );
    assert!(cpu.contains("why:"), "{cpu}");
    let io = text(&[
        "advise", "--cost", "1ms", "--n", "10000", "--io", "--cores", "2",
    ]);
    assert!(
        io.contains("TaskPoolEx::new().ntasks(8).basesize(1).background(true)"),
        "{io}"
    );
    let tiny = text(&["advise", "--cost", "1us", "--n", "100"]);
    assert!(tiny.contains("use:      SequentialEx"), "{tiny}");
    let calibrated = text(&[
        "advise",
        "--workload",
        "sleep",
        "--t",
        "2ms",
        "--n",
        "1000",
        "--cores",
        "2",
    ]);
    assert!(calibrated.contains("calibrated:"), "{calibrated}");
    assert!(
        calibrated.contains("TaskPoolEx::new().ntasks(8)"),
        "{calibrated}"
    );
}

#[test]
fn ctrl_c_stops_the_run_and_prints_what_finished() {
    watchdog("foldex bench interrupted by SIGINT", || {
        // The second row would take 1000 s: only an interrupt ends it in time.
        let mut child = Command::new(env!("CARGO_BIN_EXE_foldex"))
            .args([
                "bench",
                "--variant",
                "sleep",
                "-e",
                "seq",
                "--n",
                "10,100000",
                "--t",
                "1ms,10ms",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        while !line.starts_with("finished:") {
            line.clear();
            assert!(stderr.read_line(&mut line).unwrap() > 0, "no row finished");
        }
        let sent = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let out = child.wait_with_output().unwrap();
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
        assert_eq!(out.status.code(), Some(130), "{rest}");
        assert!(rest.contains("interrupted: 1 of 2 rows finished"), "{rest}");
        let table = String::from_utf8(out.stdout).unwrap();
        assert!(table.contains("sleep 10×1ms"), "{table}");
        assert!(!table.contains("100000"), "{table}");
    });
}

/// Runs `foldex args` with its address space capped at `cap_kib` (`ulimit -v`), and kills it if
/// it has not ended after `deadline`: an error then, with what it wrote to stderr.
#[cfg(target_os = "linux")]
fn foldex_capped(cap_kib: u64, args: &[&str], deadline: Duration) -> Result<Output, String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {cap_kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_foldex"))
        .args(args)
        // A backtrace would be resolved under the cap, for nothing.
        .env("RUST_BACKTRACE", "0")
        // As in `foldex_testkit::spawn_failure`: heap room for each spawn's small allocations,
        // so that a stack's mapping is what fails, not a `malloc` (which aborts).
        .env("MALLOC_TOP_PAD_", (16u32 << 20).to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running foldex under sh");
    let read = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    match status {
        Some(status) => Ok(Output {
            status,
            stdout,
            stderr,
        }),
        None => Err(String::from_utf8_lossy(&stderr).into_owned()),
    }
}

/// With room for a few dozen worker stacks and not for 1000, a row whose pool cannot start its
/// threads (foldex's pools, and the rayon reference's) fails with the operating system's error
/// and the setting named, and the command ends at once with code 1.
#[cfg(target_os = "linux")]
#[test]
fn a_pool_that_cannot_start_its_threads_fails_its_row_and_the_run_ends() {
    use foldex_testkit::spawn_failure;
    const CAP_KIB: u64 = 1 << 20; // 1 GiB of address space; 1000 stacks take 2 GiB
    const DEADLINE: Duration = Duration::from_secs(60);
    for (executor, setting) in [
        ("threaded", "threads"),
        ("taskpool", "ntasks"),
        ("taskpool-bg", "ntasks"),
        ("rayon", "threads"),
    ] {
        let args = [
            "bench",
            "-e",
            executor,
            &format!("--{setting}"),
            "1000",
            "--variant",
            "spin",
            "--n",
            "10",
            "--t",
            "10us",
            "--no-progress",
        ];
        let run = |cap_kib| {
            foldex_capped(cap_kib, &args, DEADLINE).unwrap_or_else(|stderr| {
                panic!("foldex {args:?} was still running after {DEADLINE:?}: {stderr}")
            })
        };
        // The pools start one worker at a time (`exec::spawn_running`), so the address space
        // runs out at a stack, which is the spawn's error. Only if the last stack that fitted
        // left less than a signal stack does the standard library abort, whatever the pool
        // does: then once more with more room, as `spawn_failure::in_child` does.
        let mut out = run(CAP_KIB);
        if String::from_utf8_lossy(&out.stderr).contains(spawn_failure::NO_SIGNAL_STACK) {
            out = run(CAP_KIB + spawn_failure::RETRY_ROOM / 1024);
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "foldex {args:?}: {stderr}");
        let named = match executor {
            "rayon" => stderr.contains(
                "rayon+channel(threads=1000): could not start a rayon pool of 1000 threads: ",
            ),
            _ => {
                stderr.contains("could not start worker")
                    && stderr.contains(&format!(" of 1000 ({setting} = 1000): "))
            }
        };
        assert!(named, "foldex {args:?}: {stderr}");
    }
}
