//! The harness of the MPI tests: each test a subprocess under `mpirun` with a timeout.
//!
//! MPI initialises once per process, so each test re-runs its test binary under
//! `mpirun -n N`, filtered to itself, with `FOLDEX_MPI_CHILD` set; the child ranks run the
//! test's body (`ranks!`), each checking its own result, and the parent checks that every rank
//! exited cleanly in time.
#![allow(dead_code)] // each test binary uses its part

use foldex_mpi::MpiEx;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one `mpirun` may take before the test fails as a hang.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Runs `body` on every rank under `mpirun -n` 1, 2 and 3 (or only `body` when this process is
/// a child rank).
#[macro_export]
macro_rules! ranks {
    ($name:ident, $body:expr) => {
        #[test]
        fn $name() {
            if std::env::var_os("FOLDEX_MPI_CHILD").is_some() {
                let body: fn() = $body;
                body();
                $crate::common::mark_done();
            } else {
                for n in 1..=3 {
                    $crate::common::under_mpirun(stringify!($name), n);
                }
            }
        }
    };
}

pub fn under_mpirun(test: &str, ranks: usize) {
    let marks = marks_dir(test, ranks);
    let _ = std::fs::remove_dir_all(&marks);
    std::fs::create_dir_all(&marks).expect("a folder for the marks");
    let (status, stdout, stderr) = run_under_mpirun(test, ranks);
    assert!(
        status.success(),
        "{test} on {ranks} ranks failed ({status}):\n{stdout}\n{stderr}"
    );
    // Each rank ran the test to its end (a filter that matched nothing would pass vacuously).
    let ran = std::fs::read_dir(&marks).map_or(0, Iterator::count);
    let _ = std::fs::remove_dir_all(&marks);
    assert_eq!(
        ran, ranks,
        "{test}: {ran} of {ranks} ranks ran it:\n{stdout}"
    );
}

/// Where each rank of `test` on `ranks` ranks leaves a file once it finished the test's body.
pub fn marks_dir(test: &str, ranks: usize) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "foldex-mpi-marks-{}-{test}-{ranks}",
        std::process::id()
    ))
}

/// Leaves this rank's mark (MPICH's launcher names the rank in `PMI_RANK`).
pub fn mark_done() {
    let dir = std::env::var_os("FOLDEX_MPI_MARKS").expect("set by the parent");
    let rank = std::env::var("PMI_RANK").unwrap_or_else(|_| "0".into());
    std::fs::write(std::path::Path::new(&dir).join(rank), b"done").expect("a mark");
}

/// Runs this binary's test `test` under `mpirun -n ranks`: its exit status and output. Panics
/// if it runs past [`TIMEOUT`] (after killing it).
pub fn run_under_mpirun(test: &str, ranks: usize) -> (std::process::ExitStatus, String, String) {
    use std::io::Read;
    let exe = std::env::current_exe().expect("the test binary");
    let mut child = Command::new("mpirun")
        .args(["-n", &ranks.to_string()])
        .arg(exe)
        .args([test, "--exact", "--nocapture", "--test-threads", "1"])
        .env("FOLDEX_MPI_CHILD", "1")
        .env("FOLDEX_MPI_MARKS", marks_dir(test, ranks))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun (install MPICH: see the README's scale-out section)");
    // Drained as it comes, so that a full pipe never holds the ranks up.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped")));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for mpirun") {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            panic!("{test} on {ranks} ranks did not finish within {TIMEOUT:?}: a hang");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = |reader: std::thread::JoinHandle<String>| reader.join().unwrap_or_default();
    (status, text(stdout), text(stderr))
}

/// MPI for this rank, and the executor over every rank.
pub fn world() -> (foldex_mpi::Mpi, MpiEx) {
    let mpi = foldex_mpi::initialize().expect("MPI initialises once");
    let ex = mpi.executor().expect("the world");
    (mpi, ex)
}
