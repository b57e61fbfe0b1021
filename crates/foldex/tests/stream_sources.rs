//! Folds over the streams a user reaches for: lines of a file, a directory walk, a channel.

use foldex::pipeline::from_stream;
use foldex::prelude::*;
use foldex::protocol::Stream;
use std::io::{BufRead, BufReader, Write};
use std::ops::ControlFlow::{Break, Continue};
use std::path::PathBuf;

/// A fresh directory under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("foldex-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn executors() -> Vec<Box<dyn Executor>> {
    vec![
        Box::new(SequentialEx),
        Box::new(ThreadedEx::new()),
        Box::new(TaskPoolEx::new().ntasks(3)),
        Box::new(AutoEx::new()),
    ]
}

#[test]
fn lines_of_a_file_are_counted_as_a_sequential_loop_counts_them() {
    let dir = TempDir::new("lines");
    let path = dir.0.join("words.txt");
    let mut file = std::fs::File::create(&path).unwrap();
    for i in 0..20_000 {
        writeln!(file, "line {i} has {} words", i % 5).unwrap();
    }
    drop(file);
    let lines = || BufReader::new(std::fs::File::open(&path).unwrap()).lines();
    let want: usize = lines().map(|l| l.unwrap().split_whitespace().count()).sum();
    let want_long = lines().position(|l| l.unwrap().len() > 21);
    assert_eq!(want_long, Some(10_000));
    for ex in executors() {
        let got = ex.map_reduce(
            Stream::new(lines()),
            |l| l.unwrap().split_whitespace().count(),
            || 0,
            |a, b| a + b,
        );
        assert_eq!(got, want);
        // The first line that fails a check, by position, as `Iterator::try_fold` finds it.
        let first_long = ex.try_fold(
            Stream::new(lines().enumerate()),
            || None,
            |_, (i, l)| match l.unwrap().len() > 21 {
                true => Break(Some(i)),
                false => Continue(None),
            },
            |a, b| a.or(b),
        );
        assert_eq!(first_long, Break(want_long));
    }
}

#[test]
fn a_directory_walk_is_folded_with_walkdir() {
    let dir = TempDir::new("walk");
    let mut want = 0u64;
    for d in 0..5 {
        let sub = dir.0.join(format!("class{d}"));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..(d * 7 + 3) {
            let bytes = vec![b'x'; f * 10 + d];
            std::fs::write(sub.join(format!("{f}.bin")), &bytes).unwrap();
            want += bytes.len() as u64;
        }
    }
    for ex in executors() {
        let bytes: u64 = from_stream(Stream::new(walkdir::WalkDir::new(&dir.0)))
            .map(|entry| entry.unwrap())
            .filter(|entry| entry.file_type().is_file())
            .map(|entry| std::fs::metadata(entry.path()).unwrap().len())
            .sum(&*ex);
        assert_eq!(bytes, want);
    }
}

#[test]
fn records_from_a_channel_are_folded_until_every_sender_is_gone() {
    for ex in executors() {
        let (send, receive) = crossbeam_channel::bounded::<u64>(16);
        let sender = std::thread::spawn(move || {
            for i in 0..10_000 {
                send.send(i).unwrap();
            }
        });
        let got: Vec<u64> = ex.collect_vec(Stream::new(receive));
        sender.join().unwrap();
        assert_eq!(got, (0..10_000).collect::<Vec<_>>());
    }
}

/// Spins for `micros` µs of CPU, without sleeping.
fn spin(micros: u64) {
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_micros(micros) {
        std::hint::spin_loop();
    }
}

/// A fold whose pieces cost far more than its items (an `init` of 500 µs, 20 000 items that cost
/// nothing) makes few accumulators: the batches grow until `init` is a small part of what a
/// batch costs. Sized by the items alone, every batch was one item, and as many accumulators as
/// batches that could not be folded on into their predecessors'.
#[test]
fn costly_accumulators_are_made_a_few_times_not_once_per_batch() {
    const N: usize = 20_000;
    for threads in [1, 2, 3] {
        let ex = ThreadedEx::new().threads(threads);
        let inits = std::sync::atomic::AtomicUsize::new(0);
        let init = || {
            inits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            spin(500);
            Vec::new()
        };
        let got = ex.fold(
            Stream::new(0..N),
            init,
            |mut v, i| {
                v.push(i);
                v
            },
            |mut a, mut b| {
                a.append(&mut b);
                a
            },
        );
        assert_eq!(got, (0..N).collect::<Vec<_>>());
        let inits = inits.into_inner();
        assert!(
            inits <= 64,
            "{threads} threads: {inits} accumulators for {N} items"
        );
    }
}

/// With automatic batches sized from what `init` and `combine` cost, a fold whose `combine` is
/// not commutative (concatenation) still gives `std::iter`'s result, on 1, 2 and 3 threads, for
/// costly and for cheap accumulators, on a stream long enough that the batches grow.
#[test]
fn automatic_batches_keep_the_order_of_a_non_commutative_combine() {
    const N: usize = 30_000;
    let want: String = (0..N).map(|i| format!("{i},")).collect();
    for threads in [1, 2, 3] {
        let ex = ThreadedEx::new().threads(threads);
        for init_micros in [0, 50] {
            let got = ex.fold(
                Stream::new((0..N).map(|i| format!("{i},"))),
                || {
                    spin(init_micros);
                    String::new()
                },
                |s, w| s + &w,
                |a, b| a + &b,
            );
            assert_eq!(got, want, "{threads} threads, init of {init_micros} µs");
        }
    }
}
