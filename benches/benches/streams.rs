//! Folds over a stream (a 200 MB text file read line by line) on ThreadedEx against rayon's
//! `par_bridge` and against a sequential loop, in the same run.
//!
//! `cargo bench -p foldex-benches --bench streams`
//!
//! The file is generated once into the system's temporary directory
//! (`foldex-bench-words-200mb.txt`, lines of 4 to 16 words drawn from 10^4) and read through a
//! `BufReader` each iteration, so that pulling the stream (reading, splitting into `String`s)
//! is part of every measurement, as it is for a user.
//!
//! Groups (ratio = foldex median / reference median within a group):
//! - `streams/word_count_200mb`: words per line, summed; pulling dominates;
//! - `streams/word_hash_200mb`: each word hashed into one of 256 counters, the counters summed
//!   across pieces; hashing costs about as much as pulling;
//! - `streams/fuzzy_match_200mb`: the words within edit distance 2 of a query word, counted (a
//!   fuzzy grep); the per-line work dominates;
//! - `streams/word_map`: a word count into a `HashMap<String, usize>` per piece, merged in
//!   order, over 2·10^5 lines held in memory (`foldex_benches::word_lines`, a vocabulary of 10^4
//!   distinct words) and read with `BufRead::lines`; rayon's `par_bridge` makes one map per
//!   thread, foldex one per piece, so that what a piece costs (making and merging a map of
//!   thousands of words) decides the group.
//!
//! Each group has `rayon_par_bridge`, `ThreadedEx` (default settings: the batch size adapts)
//! and `sequential` (`BufRead::lines` and `Iterator::fold` on the calling thread).
//!
//! And the stream loader against the indexable loader on the same data held in memory (a
//! `Vec` of 20 000 `u64`), both on `ThreadedEx` with basesize 1, batches of 32, the default
//! buffer, ordered; each item costs `t` of CPU (`spin_for`) and becomes its square:
//! `streams/loader_vs_indexable/{1us,20us}` with `Loader` and `StreamLoader` (ratio =
//! `StreamLoader` / `Loader`).
use criterion::{criterion_group, criterion_main, Criterion};
use foldex::loader::StreamLoader;
use foldex::prelude::*;
use foldex::protocol::Stream;
use foldex::{from_fn, Loader};
use foldex_benches::{spin_for, word_lines};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs::File;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

const FILE_BYTES: u64 = 200 << 20;

/// The generated file, written once (a few seconds) and reused by later runs.
fn words_file() -> PathBuf {
    let path = std::env::temp_dir().join("foldex-bench-words-200mb.txt");
    if std::fs::metadata(&path).is_ok_and(|m| m.len() >= FILE_BYTES) {
        return path;
    }
    let vocabulary: Vec<String> = (0..10_000u64)
        .map(|i| {
            let len = 2 + (i * 7919 % 9) as usize;
            (0..len)
                .map(|k| char::from(b'a' + ((i * 31 + k as u64 * 17) % 26) as u8))
                .collect()
        })
        .collect();
    let partial = path.with_extension("partial");
    let mut out = BufWriter::new(File::create(&partial).expect("create the words file"));
    let (mut state, mut written) = (0x2545_f491_4f6c_dd1du64, 0u64);
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    while written < FILE_BYTES {
        let words = 4 + next() % 13;
        let mut line = String::new();
        for w in 0..words {
            if w > 0 {
                line.push(' ');
            }
            // Squared, so that some words are far more common than others.
            let r = next() % 100;
            line.push_str(&vocabulary[(r * r) as usize % vocabulary.len()]);
        }
        line.push('\n');
        out.write_all(line.as_bytes())
            .expect("write the words file");
        written += line.len() as u64;
    }
    out.flush().expect("write the words file");
    drop(out);
    std::fs::rename(&partial, &path).expect("move the words file into place");
    path
}

fn lines(path: &PathBuf) -> impl Iterator<Item = String> + Send + use<> {
    let file = File::open(path).expect("open the words file");
    BufReader::with_capacity(1 << 16, file)
        .lines()
        .map(|line| line.expect("read a line"))
}

fn count_words(line: &str) -> usize {
    line.split_whitespace().count()
}

type Counters = [u64; 256];

fn hash_words(mut counters: Counters, line: &str) -> Counters {
    let hasher = BuildHasherDefault::<DefaultHasher>::default();
    for word in line.split_whitespace() {
        counters[(hasher.hash_one(word) & 0xff) as usize] += 1;
    }
    counters
}

fn add_counters(mut a: Counters, b: Counters) -> Counters {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    a
}

/// The edit distance between `a` and `b` (two rows of the dynamic programme).
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(x != y);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

fn fuzzy_matches(line: &str) -> usize {
    line.split_whitespace()
        .filter(|w| edit_distance(w.as_bytes(), b"foldexes") <= 2)
        .count()
}

fn criterion() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10))
        .sample_size(10)
}

fn word_count(c: &mut Criterion) {
    let path = words_file();
    let ex = ThreadedEx::new();
    let want = lines(&path).map(|l| count_words(&l)).sum::<usize>();
    let mut g = c.benchmark_group("streams/word_count_200mb");
    g.bench_function("rayon_par_bridge", |b| {
        b.iter(|| {
            let got: usize = lines(&path).par_bridge().map(|l| count_words(&l)).sum();
            assert_eq!(got, want);
        })
    });
    g.bench_function("ThreadedEx", |b| {
        b.iter(|| {
            let got = ex.map_reduce(
                Stream::new(lines(&path)),
                |l| count_words(&l),
                || 0,
                |a, b| a + b,
            );
            assert_eq!(got, want);
        })
    });
    g.bench_function("sequential", |b| {
        b.iter(|| {
            let got: usize = lines(&path).map(|l| count_words(&l)).sum();
            assert_eq!(got, want);
        })
    });
    g.finish();
}

fn word_hash(c: &mut Criterion) {
    let path = words_file();
    let ex = ThreadedEx::new();
    let want = lines(&path).fold([0; 256], |acc, l| hash_words(acc, &l));
    let mut g = c.benchmark_group("streams/word_hash_200mb");
    g.bench_function("rayon_par_bridge", |b| {
        b.iter(|| {
            let got = lines(&path)
                .par_bridge()
                .fold(|| [0; 256], |acc, l| hash_words(acc, &l))
                .reduce(|| [0; 256], add_counters);
            assert_eq!(got, want);
        })
    });
    g.bench_function("ThreadedEx", |b| {
        b.iter(|| {
            let got = ex.fold(
                Stream::new(lines(&path)),
                || [0; 256],
                |acc, l| hash_words(acc, &l),
                add_counters,
            );
            assert_eq!(got, want);
        })
    });
    g.bench_function("sequential", |b| {
        b.iter(|| {
            let got = lines(&path).fold([0; 256], |acc, l| hash_words(acc, &l));
            assert_eq!(got, want);
        })
    });
    g.finish();
}

fn fuzzy_match(c: &mut Criterion) {
    let path = words_file();
    let ex = ThreadedEx::new();
    let want = lines(&path).map(|l| fuzzy_matches(&l)).sum::<usize>();
    let mut g = c.benchmark_group("streams/fuzzy_match_200mb");
    g.bench_function("rayon_par_bridge", |b| {
        b.iter(|| {
            let got: usize = lines(&path).par_bridge().map(|l| fuzzy_matches(&l)).sum();
            assert_eq!(got, want);
        })
    });
    g.bench_function("ThreadedEx", |b| {
        b.iter(|| {
            let got = ex.map_reduce(
                Stream::new(lines(&path)),
                |l| fuzzy_matches(&l),
                || 0,
                |a, b| a + b,
            );
            assert_eq!(got, want);
        })
    });
    g.bench_function("sequential", |b| {
        b.iter(|| {
            let got: usize = lines(&path).map(|l| fuzzy_matches(&l)).sum();
            assert_eq!(got, want);
        })
    });
    g.finish();
}

type Counts = HashMap<String, usize>;

fn count_into(mut counts: Counts, line: String) -> Counts {
    for word in line.split_whitespace() {
        *counts.entry(word.to_string()).or_default() += 1;
    }
    counts
}

fn merge_counts(mut a: Counts, b: Counts) -> Counts {
    for (word, n) in b {
        *a.entry(word).or_default() += n;
    }
    a
}

fn word_map(c: &mut Criterion) {
    let text = word_lines(200_000);
    let lines = || {
        std::io::Cursor::new(text.as_bytes())
            .lines()
            .map(|line| line.expect("in memory"))
    };
    let ex = ThreadedEx::new();
    let want = lines().fold(Counts::new(), count_into);
    let mut g = c.benchmark_group("streams/word_map");
    g.warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .sample_size(20);
    g.bench_function("rayon_par_bridge", |b| {
        b.iter(|| {
            let got = lines()
                .par_bridge()
                .fold(Counts::new, count_into)
                .reduce(Counts::new, merge_counts);
            assert_eq!(got, want);
        })
    });
    g.bench_function("ThreadedEx", |b| {
        b.iter(|| {
            let got = ex.fold(Stream::new(lines()), Counts::new, count_into, merge_counts);
            assert_eq!(got, want);
        })
    });
    g.bench_function("sequential", |b| {
        b.iter(|| assert_eq!(lines().fold(Counts::new(), count_into), want))
    });
    g.finish();
}

fn loader_vs_indexable(c: &mut Criterion) {
    const N: usize = 20_000;
    let data: Arc<Vec<u64>> = Arc::new((0..N as u64).collect());
    let want: u64 = data.iter().map(|x| x * x).sum();
    let mut g = c.benchmark_group("streams/loader_vs_indexable");
    g.warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .sample_size(20);
    for (name, nanos) in [("1us", 1_000u64), ("20us", 20_000)] {
        let item = move |x: u64| {
            spin_for(nanos);
            x * x
        };
        let indexed = {
            let data = Arc::clone(&data);
            Loader::new(
                from_fn(N, move |i| item(data[i])),
                ThreadedEx::new().basesize(1),
            )
            .batch_size(32)
        };
        let streamed = {
            let data = Arc::clone(&data);
            StreamLoader::new(
                move || {
                    let data = Arc::clone(&data);
                    (0..data.len()).map(move |i| data[i])
                },
                move |&x: &u64| item(x),
                ThreadedEx::new().basesize(1),
            )
            .batch_size(32)
        };
        g.bench_function(format!("{name}/Loader"), |b| {
            b.iter(|| {
                let got: u64 = indexed.iter().flatten().sum();
                assert_eq!(got, want);
            })
        });
        g.bench_function(format!("{name}/StreamLoader"), |b| {
            b.iter(|| {
                let got: u64 = streamed.iter().flatten().sum();
                assert_eq!(got, want);
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = criterion();
    targets = word_count, word_hash, fuzzy_match, word_map, loader_vs_indexable
}
criterion_main!(benches);
