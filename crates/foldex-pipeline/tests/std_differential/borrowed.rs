//! `flat_map_ref` (pieces borrowed from each item), `counts` and `group_pairs` against the same
//! chain on `std::iter` (`lines.iter().flat_map(|l| l.split_whitespace())`), on every executor
//! configuration, over slices of lines and over streams of owned lines: empty input, one line,
//! empty lines, early termination, panics in each closure, the transforms before and after, and
//! the pieces copied or cloned out.

use foldex_core::codec::Postcard;
use foldex_core::{Executor, Stream};
use foldex_pipeline::{from_stream, from_vec, group, IntoPipeline};
use foldex_testkit::{watchdog, ThroughBytes};
use foldex_threaded::ThreadedEx;
use std::collections::HashMap;
use std::ops::ControlFlow::{Break, Continue};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::common::executors;

/// `count` lines of 0 to 9 words from a vocabulary of 50 (some lines empty, some with runs of
/// spaces), fixed.
fn lines(count: usize) -> Vec<String> {
    (0..count)
        .map(|i| {
            let words = (i * 7) % 10;
            let mut line = String::new();
            for w in 0..words {
                let pick = (i * 31 + w * 17) % 50;
                line.push_str(&format!("w{pick}"));
                line.push_str(if (i + w) % 5 == 0 { "   " } else { " " });
            }
            line
        })
        .collect()
}

const LINE_COUNTS: [usize; 6] = [0, 1, 2, 7, 97, 2000];

/// Runs `check` for every executor and line count.
fn each_case(name: &str, check: impl Fn(&dyn Executor, &[String], &str)) {
    watchdog(name, || {
        let executors = executors();
        for &count in &LINE_COUNTS {
            let lines = lines(count);
            for (ex_name, ex) in &executors {
                check(&**ex, &lines, &format!("{name}, {ex_name}, {count} lines"));
            }
        }
    });
}

fn std_counts<'a>(words: impl Iterator<Item = &'a str>) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for w in words {
        *counts.entry(w.to_owned()).or_insert(0) += 1;
    }
    counts
}

/// The pipeline over `lines` as a stream of owned `String`s, in batches of `batch` lines.
fn owned(lines: &[String], batch: usize) -> Stream<std::vec::IntoIter<String>> {
    Stream::new(lines.to_vec()).batch_size(batch)
}

#[test]
fn the_words_of_lines_match_std() {
    each_case("words", |ex, lines, what| {
        let words = || lines.iter().flat_map(|l| l.split_whitespace());
        let want: Vec<&str> = words().collect();
        let got: Vec<String> = lines
            .pipe()
            .flat_map_ref(str::split_whitespace)
            .map(str::to_owned)
            .collect(ex);
        assert_eq!(got, want, "collect: {what}");

        let piped = lines.pipe().flat_map_ref(str::split_whitespace);
        assert_eq!(piped.count(ex), want.len(), "count: {what}");
        assert_eq!(piped.counts(ex), std_counts(words()), "counts: {what}");
        let letters = piped.fold(ex, || 0, |n, w| n + w.len(), |a, b| a + b);
        assert_eq!(
            letters,
            words().map(str::len).sum::<usize>(),
            "fold: {what}"
        );
        let seen = AtomicUsize::new(0);
        piped.for_each(ex, |w| {
            seen.fetch_add(w.len(), Ordering::Relaxed);
        });
        assert_eq!(seen.into_inner(), letters, "for_each: {what}");

        let long = |w: &&str| w.len() > 2;
        let got: Vec<String> = piped.filter(long).map(str::to_owned).collect(ex);
        let want_long: Vec<&str> = words().filter(long).collect();
        assert_eq!(got, want_long, "filter: {what}");
        let got = piped.filter(long).filter(|w| w.ends_with('7')).counts(ex);
        let want = std_counts(words().filter(long).filter(|w| w.ends_with('7')));
        assert_eq!(got, want, "two filters: {what}");

        // Over a stream of owned lines, in batches of several sizes.
        for batch in [1, 3, 64] {
            let stream = || from_stream(owned(lines, batch));
            let got = stream().flat_map_ref(str::split_whitespace).counts(ex);
            assert_eq!(
                got,
                std_counts(words()),
                "stream counts, batch {batch}: {what}"
            );
            let got: Vec<usize> = stream()
                .flat_map_ref(str::split_whitespace)
                .map(str::len)
                .collect(ex);
            let want: Vec<usize> = words().map(str::len).collect();
            assert_eq!(got, want, "stream map, batch {batch}: {what}");
        }
    });
}

#[test]
fn transforms_before_the_lending_stage_match_std() {
    each_case("before", |ex, lines, what| {
        let got = lines
            .pipe()
            .filter(|l| l.len() % 3 != 0)
            .flat_map_ref(str::split_whitespace)
            .counts(ex);
        let want = std_counts(
            lines
                .iter()
                .filter(|l| l.len() % 3 != 0)
                .flat_map(|l| l.split_whitespace()),
        );
        assert_eq!(got, want, "filter: {what}");

        // A stage that stops the run (take_while), and one that holds items at a piece's edge
        // (dedup): the borrowed pieces see the same items as `std`.
        let stop = lines.len() / 2;
        let got: Vec<String> = lines
            .pipe()
            .enumerate()
            .take_while(|(i, _)| *i < stop)
            .map(|(_, l)| l)
            .flat_map_ref(str::split_whitespace)
            .map(str::to_owned)
            .collect(ex);
        let want: Vec<&str> = lines[..stop]
            .iter()
            .flat_map(|l| l.split_whitespace())
            .collect();
        assert_eq!(got, want, "take_while: {what}");
        let got = from_stream(owned(lines, 5))
            .map(|l| l.len() % 4)
            .dedup()
            .map(|n| "ab cd ef gh".split_at(n * 3).0.to_owned())
            .flat_map_ref(str::split_whitespace)
            .count(ex);
        let mut lens: Vec<usize> = lines.iter().map(|l| l.len() % 4).collect();
        lens.dedup();
        let want: usize = lens
            .iter()
            .map(|&n| "ab cd ef gh".split_at(n * 3).0.split_whitespace().count())
            .sum();
        assert_eq!(got, want, "dedup: {what}");
    });
}

#[test]
fn early_termination_over_borrowed_words_matches_std() {
    each_case("early", |ex, lines, what| {
        let words = || lines.iter().flat_map(|l| l.split_whitespace());
        let piped = lines.pipe().flat_map_ref(str::split_whitespace);
        for target in ["w0", "w13", "w49", "absent"] {
            let is = |w: &&str| *w == target;
            assert_eq!(
                piped.find_first(ex, is),
                words().find(is).map(str::to_owned),
                "find_first {target}: {what}"
            );
            assert_eq!(
                piped.any(ex, |w| w == target),
                words().any(|w| w == target),
                "any {target}: {what}"
            );
            assert_eq!(
                piped.all(ex, |w| w != target),
                words().all(|w| w != target),
                "all {target}: {what}"
            );
            let stream = from_stream(owned(lines, 4)).flat_map_ref(str::split_whitespace);
            assert_eq!(
                stream.find_first(ex, is),
                words().find(is).map(str::to_owned),
                "stream find_first {target}: {what}"
            );
        }
        // try_fold: the letters before the first word of 3 letters, as `Iterator::try_fold`.
        let step = |n: usize, w: &str| match w.len() {
            3 => Break(n),
            len => Continue(n + len),
        };
        let got = piped.try_fold(ex, || 0, step, |a, b| a + b);
        let want = words().try_fold(0, step);
        assert_eq!(got, want, "try_fold: {what}");
    });
}

#[test]
fn an_endless_line_of_words_stops_at_the_first_match() {
    // One item lends words without end: the fold stops inside it, at the match, as `std`.
    struct Endless(String);
    impl AsRef<Endless> for Endless {
        fn as_ref(&self) -> &Endless {
            self
        }
    }
    fn words(line: &Endless) -> std::iter::Cycle<std::str::Split<'_, char>> {
        line.0.split(' ').cycle()
    }
    let endless = || from_vec(vec![Endless("a b c".into()), Endless("d".into())]);
    let ex = ThreadedEx::new().threads(2).basesize(1);
    let found = endless().flat_map_ref(words).find_first(&ex, |w| *w == "c");
    assert_eq!(found.as_deref(), Some("c"));
    // A match in the first item ends the fold though the second one never ends.
    let seen = AtomicUsize::new(0);
    let found = endless()
        .flat_map_ref(words)
        .filter(|_| seen.fetch_add(1, Ordering::Relaxed) < 1_000_000)
        .any(&ex, |w| w == "b");
    assert!(found);
}

#[test]
fn a_panic_in_each_closure_reaches_the_caller_with_its_payload() {
    fn panicky(line: &str) -> std::str::SplitWhitespace<'_> {
        if line.starts_with("w46") {
            panic::panic_any(46u32);
        }
        line.split_whitespace()
    }
    let lines = lines(2000);
    assert!(lines.iter().any(|l| l.starts_with("w46")));
    let payload = |run: &dyn Fn()| {
        let caught = panic::catch_unwind(AssertUnwindSafe(run)).unwrap_err();
        *caught.downcast_ref::<u32>().expect("the closure's payload")
    };
    for (name, ex) in executors() {
        let ex = &*ex;
        let in_lend = payload(&|| {
            lines.pipe().flat_map_ref(panicky).counts(ex);
        });
        assert_eq!(in_lend, 46, "lend: {name}");
        let in_filter = payload(&|| {
            from_stream(owned(&lines, 3))
                .flat_map_ref(str::split_whitespace)
                .filter(|w| *w != "w47" || panic::panic_any(47u32))
                .count(ex);
        });
        assert_eq!(in_filter, 47, "filter: {name}");
        let in_map = payload(&|| {
            let _: Vec<usize> = lines
                .pipe()
                .flat_map_ref(str::split_whitespace)
                .map(|w| {
                    if w == "w48" {
                        panic::panic_any(48u32)
                    } else {
                        w.len()
                    }
                })
                .collect(ex);
        });
        assert_eq!(in_map, 48, "map: {name}");
        let in_step = payload(&|| {
            lines
                .pipe()
                .flat_map_ref(str::split_whitespace)
                .for_each(ex, |w| assert!(w != "w49" || panic::panic_any(49u32)));
        });
        assert_eq!(in_step, 49, "for_each: {name}");
        // The executor lives on.
        let n = lines.pipe().flat_map_ref(str::split_whitespace).count(ex);
        assert_eq!(n, lines.iter().flat_map(|l| l.split_whitespace()).count());
    }
}

#[test]
fn counts_and_group_pairs_of_owned_items_match_std() {
    each_case("owned keys", |ex, lines, what| {
        let owned_words = || {
            from_stream(owned(lines, 8)).flat_map(|l: String| {
                l.split_whitespace()
                    .map(str::to_owned)
                    .collect::<Vec<String>>()
            })
        };
        let words = || lines.iter().flat_map(|l| l.split_whitespace());
        assert_eq!(
            owned_words().counts(ex),
            std_counts(words()),
            "counts: {what}"
        );

        let got = owned_words().group_pairs(ex, |w| (w, 1u64), group::sum::<u64>());
        let want: HashMap<String, u64> = std_counts(words())
            .into_iter()
            .map(|(w, n)| (w, n as u64))
            .collect();
        assert_eq!(got, want, "group_pairs sum: {what}");

        // Each group's values in index order: the positions of each word's first letter.
        let got = lines.pipe().enumerate().group_pairs(
            ex,
            |(i, l)| (l.len() % 5, i),
            group::fold(
                Vec::new,
                |v: &mut Vec<usize>, i| v.push(i),
                |a, b| a.extend(b),
            ),
        );
        let mut want: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, l) in lines.iter().enumerate() {
            want.entry(l.len() % 5).or_default().push(i);
        }
        assert_eq!(got, want, "group_pairs in order: {what}");
    });
}

#[test]
fn counts_and_group_pairs_never_clone_a_key() {
    /// A key that cannot be cloned: `counts` and `group_pairs` compile for it.
    #[derive(Debug, PartialEq, Eq, Hash)]
    struct Key(u32);
    let ex = ThreadedEx::new().threads(2).basesize(3);
    let keys = || from_stream(Stream::new((0..100u32).map(|i| Key(i % 7))));
    let counts = keys().counts(&ex);
    assert_eq!(
        (counts.len(), counts[&Key(0)], counts[&Key(6)]),
        (7, 15, 14)
    );
    let sums = keys().group_pairs(&ex, |k| (k, 2u32), group::sum::<u32>());
    assert_eq!((sums[&Key(0)], sums[&Key(6)]), (30, 28));
}

#[test]
fn lent_words_cross_processes_with_a_codec() {
    // Each piece's partial goes through bytes (`ThroughBytes`): the lent words' reductions carry
    // the pipeline's codec as every other reduction does.
    let lines = lines(500);
    let words = || lines.iter().flat_map(|l| l.split_whitespace());
    for pieces in 1..=4 {
        let ex = ThroughBytes { pieces };
        let piped = lines
            .pipe()
            .encoded(Postcard)
            .flat_map_ref(str::split_whitespace);
        assert_eq!(piped.counts(&ex), std_counts(words()), "{pieces} pieces");
        assert_eq!(piped.count(&ex), words().count(), "{pieces} pieces");
        let first = piped.find_first(&ex, |w| w.ends_with("13"));
        assert_eq!(first.as_deref(), words().find(|w| w.ends_with("13")));
    }
}

#[test]
fn copied_and_cloned_pieces_match_std() {
    each_case("copied and cloned pieces", |ex, lines, what| {
        // Each line's bytes, lent as `&u8` and copied out.
        let bytes = || lines.pipe().flat_map_ref(<[u8]>::iter);
        let got: Vec<u8> = bytes().copied().collect(ex);
        let want: Vec<u8> = lines.iter().flat_map(|l| l.bytes()).collect();
        assert_eq!(got, want, "copied: {what}");
        let got = bytes()
            .filter(|b| **b != b' ')
            .copied()
            .map(u64::from)
            .sum::<u64>(ex);
        let want: u64 = lines
            .iter()
            .flat_map(|l| l.bytes())
            .filter(|b| *b != b' ')
            .map(u64::from)
            .sum();
        assert_eq!(got, want, "filter, copied, map: {what}");
        let stream = from_stream(owned(lines, 8)).flat_map_ref(<[u8]>::iter);
        let got = stream.copied().find_first(ex, |b| *b == b'7');
        let want = lines.iter().flat_map(|l| l.bytes()).find(|b| *b == b'7');
        assert_eq!(got, want, "stream, copied, find_first: {what}");
        // Each line's words, owned in a row, lent as `&String` and cloned out.
        let rows: Vec<Vec<String>> = lines
            .iter()
            .map(|l| l.split_whitespace().map(str::to_owned).collect())
            .collect();
        let words = || rows.pipe().flat_map_ref(<[String]>::iter);
        let got: Vec<String> = words().cloned().collect(ex);
        let want: Vec<String> = rows.iter().flatten().cloned().collect();
        assert_eq!(got, want, "cloned: {what}");
        let sevens = |w: &&String| w.ends_with('7');
        let got: Vec<String> = words().filter(sevens).cloned().collect(ex);
        let want: Vec<String> = rows.iter().flatten().filter(sevens).cloned().collect();
        assert_eq!(got, want, "filter, cloned: {what}");
        let got = words().cloned().find_last(ex, |w| w.len() == 2);
        let want = rows.iter().flatten().rfind(|w| w.len() == 2).cloned();
        assert_eq!(got, want, "cloned, find_last: {what}");
    });
}
