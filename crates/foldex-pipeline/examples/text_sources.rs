//! The cost of cutting a text into blocks: `pipe_lines`, `pipe_split_whitespace`,
//! `pipe_chars` and `pipe_split(',')` counted on `SequentialEx` against the same count on std's
//! iterator, in CPU time of this thread (so that other load on the machine counts less).
//!
//! `cargo run --release -p foldex-pipeline --example text_sources [megabytes]`

use foldex_pipeline::sources::PipeStr;
use foldex_seq::SequentialEx;
use std::hint::black_box;
use std::time::Duration;

/// A way to count the items of the text.
type Count<'a> = &'a dyn Fn() -> usize;

/// CPU time of this process (it runs one thread).
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
    let ticks: u64 = fields.get(11).and_then(|f| f.parse().ok()).unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

fn best(f: impl Fn() -> usize) -> (usize, Duration) {
    let mut best = Duration::MAX;
    let mut n = 0;
    for _ in 0..5 {
        let t = cpu();
        n = black_box(f());
        best = best.min(cpu() - t);
    }
    (n, best)
}

fn main() {
    let mb: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(64);
    let words = ["fold", "on", "any", "executör", "日本", "x,y", "pipeline"];
    let mut text = String::new();
    let mut i = 0u64;
    while text.len() < mb << 20 {
        i = i
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        text.push_str(words[(i >> 60) as usize % words.len()]);
        text.push(if (i >> 40).is_multiple_of(9) {
            '\n'
        } else {
            ' '
        });
    }
    let t = text.as_str();
    let ex = SequentialEx;
    let cases: [(&str, Count, Count); 4] = [
        ("lines", &|| t.lines().count(), &|| {
            t.pipe_lines().count(&ex)
        }),
        (
            "split_whitespace",
            &|| t.split_whitespace().count(),
            &|| t.pipe_split_whitespace().count(&ex),
        ),
        ("chars", &|| t.chars().count(), &|| {
            t.pipe_chars().count(&ex)
        }),
        ("split(',')", &|| t.split(',').count(), &|| {
            t.pipe_split(',').count(&ex)
        }),
    ];
    println!("{} MB of text; best of 5, CPU time", t.len() >> 20);
    for (name, std_count, pipe_count) in cases {
        let (a, ta) = best(std_count);
        let (b, tb) = best(pipe_count);
        assert_eq!(a, b, "{name}");
        println!("{name:>18}: std {ta:>9.1?}  pipe on SequentialEx {tb:>9.1?}");
    }
}
