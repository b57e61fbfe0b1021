//! The sources a rayon user reaches for (std's collections by reference and by value, a
//! `&str`'s parts, a slice's chunks, runs and pieces, a `Vec`'s drain, `repeat_n` / `once` /
//! `empty`) against the same std iterator, on several executors, basesizes 1 and 7 included
//! so that block boundaries fall everywhere.

use foldex_core::{Basesize, Executor};
use foldex_pipeline::sources::{empty, once, repeat_n, IntoOwnedPipeline, PipeDrain, PipeStr};
use foldex_pipeline::IntoPipeline;
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::fmt::Debug;
use std::num::NonZeroUsize;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// With 10_007 elements a slice's blocks hold two elements each.
const LENGTHS: [usize; 7] = [0, 1, 2, 7, 97, 1009, 10_007];

fn executors() -> Vec<(String, Box<dyn Executor>)> {
    let fixed = |n| Basesize::Fixed(NonZeroUsize::new(n).unwrap());
    let mut all: Vec<(String, Box<dyn Executor>)> =
        vec![("SequentialEx".into(), Box::new(SequentialEx))];
    for basesize in [Basesize::Auto, fixed(1), fixed(7)] {
        all.push((
            format!("ThreadedEx(2, {basesize})"),
            Box::new(ThreadedEx::new().threads(2).with_basesize(basesize)),
        ));
    }
    for basesize in [fixed(1), fixed(7)] {
        all.push((
            format!("TaskPoolEx(3, {basesize})"),
            Box::new(TaskPoolEx::new().ntasks(3).with_basesize(basesize)),
        ));
    }
    all.push((
        "TaskPoolEx(2, background)".into(),
        Box::new(TaskPoolEx::new().ntasks(2).basesize(3).background(true)),
    ));
    all
}

fn each_executor(name: &str, check: impl Fn(&dyn Executor, &str)) {
    watchdog(name, || {
        for (ex_name, ex) in &executors() {
            check(&**ex, &format!("{name}, {ex_name}"));
        }
    });
}

fn same<T: PartialEq + Debug>(got: Vec<T>, want: impl IntoIterator<Item = T>, what: &str) {
    let want: Vec<T> = want.into_iter().collect();
    assert_eq!(got, want, "{what}");
}

/// The numbers `0..len`, shuffled but fixed, with repeats (for runs and separators).
fn numbers(len: usize) -> Vec<u64> {
    (0..len as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 61)
        .collect()
}

fn texts() -> Vec<String> {
    let mut texts: Vec<String> = [
        "",
        "a",
        "é",
        "\n",
        "\r\n",
        "\r",
        "a\r",
        "a\r\nb",
        "a\nb\n",
        "a\n\nb\r\n\r\n",
        "\n\n",
        ",",
        ",,",
        "x,y,,z,",
        ",é,ü,,",
        "  héllo \u{3000} wörld\t\n日本語 テキスト\r\n\r\nend ",
        "a\u{a0}b\u{85}c \u{2028}d",
        "ééé,ööö;日日,,;",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // Long enough for blocks of several bytes, with every kind of line ending and separator.
    let parts = [
        "word", "日本", " ", "\n", "\r\n", ",", "é", "  ", "\t", "ö,", "\u{3000}",
    ];
    let long: String = (0..30_000u64)
        .map(|i| parts[(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 60) as usize % parts.len()])
        .collect();
    texts.push(long);
    texts
}

#[test]
fn text_sources_match_std() {
    let texts = texts();
    each_executor("text", |ex, what| {
        for text in &texts {
            let t = text.as_str();
            let what = &format!("{what}, text {:?}", t.chars().take(30).collect::<String>());
            same(
                t.pipe_bytes().collect(ex),
                t.bytes(),
                &format!("bytes: {what}"),
            );
            same(
                t.pipe_chars().collect(ex),
                t.chars(),
                &format!("chars: {what}"),
            );
            same(
                t.pipe_char_indices().collect(ex),
                t.char_indices(),
                &format!("char_indices: {what}"),
            );
            same(
                t.pipe_lines().collect(ex),
                t.lines(),
                &format!("lines: {what}"),
            );
            assert_eq!(
                t.pipe_lines().count(ex),
                t.lines().count(),
                "lines count: {what}"
            );
            same(
                t.pipe_split_whitespace().collect(ex),
                t.split_whitespace(),
                &format!("split_whitespace: {what}"),
            );
            same(
                t.pipe_split_ascii_whitespace().collect(ex),
                t.split_ascii_whitespace(),
                &format!("split_ascii_whitespace: {what}"),
            );
            same(
                t.pipe_split(',').collect(ex),
                t.split(','),
                &format!("split ',': {what}"),
            );
            same(
                t.pipe_split('é').collect(ex),
                t.split('é'),
                &format!("split 'é': {what}"),
            );
            same(
                t.pipe_split('\u{3000}').collect(ex),
                t.split('\u{3000}'),
                &format!("split U+3000: {what}"),
            );
            same(
                t.pipe_split([',', '日']).collect(ex),
                t.split([',', '日']),
                &format!("split [',', '日']: {what}"),
            );
            let seps: &[char] = &[';', 'ö', '\n'];
            same(
                t.pipe_split(seps).collect(ex),
                t.split(seps),
                &format!("split &[..]: {what}"),
            );
            let odd = |c: char| c == 'ö' || c == ' ';
            same(
                t.pipe_split(odd).collect(ex),
                t.split(odd),
                &format!("split closure: {what}"),
            );
            same(
                t.pipe_split_terminator(',').collect(ex),
                t.split_terminator(','),
                &format!("split_terminator: {what}"),
            );
            same(
                t.pipe_split_inclusive('\n').collect(ex),
                t.split_inclusive('\n'),
                &format!("split_inclusive: {what}"),
            );
            same(
                t.pipe_split_inclusive(odd).collect(ex),
                t.split_inclusive(odd),
                &format!("split_inclusive closure: {what}"),
            );
            let first_long = t.pipe_split_whitespace().find_first(ex, |w| w.len() > 5);
            let want = t.split_whitespace().find(|w| w.len() > 5);
            assert_eq!(first_long, want, "find_first word: {what}");
        }
    });
}

#[test]
fn a_panicking_separator_gives_its_payload() {
    each_executor("text panic", |ex, what| {
        let text = "a,b,c!d,e";
        let got = catch_unwind(AssertUnwindSafe(|| {
            text.pipe_split(|c: char| {
                assert!(c != '!', "bang");
                c == ','
            })
            .count(ex)
        }));
        let payload = got.expect_err("the separator panics");
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned());
        assert_eq!(message.as_deref(), Some("bang"), "{what}");
    });
}

#[test]
fn a_panicking_run_predicate_gives_its_payload() {
    let data: Vec<u32> = (0..10_000).collect();
    each_executor("chunk_by panic", |ex, what| {
        let got = catch_unwind(AssertUnwindSafe(|| {
            data.pipe()
                .chunk_by(|a, b| {
                    assert!(*b != 7_777, "bad pair");
                    a / 10 == b / 10
                })
                .count(ex)
        }));
        let payload = got.expect_err("the predicate panics");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"bad pair"), "{what}");
    });
}

#[test]
fn collections_by_reference_match_std() {
    each_executor("collections by reference", |ex, what| {
        for len in LENGTHS {
            let what = &format!("{what}, len {len}");
            let data = numbers(len);
            let map: HashMap<u64, usize> = (0..len as u64).map(|k| (k * 7, k as usize)).collect();
            same(
                map.pipe().collect(ex),
                map.iter(),
                &format!("HashMap: {what}"),
            );
            let set: HashSet<u64> = (0..len as u64).map(|k| k * 3).collect();
            same(
                (&set).pipe().collect(ex),
                set.iter(),
                &format!("HashSet: {what}"),
            );
            let bmap: BTreeMap<u64, usize> = data.iter().map(|&k| (k, len)).collect();
            same(
                bmap.pipe().collect(ex),
                bmap.iter(),
                &format!("BTreeMap: {what}"),
            );
            let bset: BTreeSet<u64> = data.iter().map(|k| k * 1000 + 1).collect();
            same(
                bset.pipe().collect(ex),
                bset.iter(),
                &format!("BTreeSet: {what}"),
            );
            let list: LinkedList<u64> = data.iter().copied().collect();
            same(
                list.pipe().collect(ex),
                list.iter(),
                &format!("LinkedList: {what}"),
            );
            let heap: BinaryHeap<u64> = data.iter().copied().collect();
            same(
                heap.pipe().collect(ex),
                heap.iter(),
                &format!("BinaryHeap: {what}"),
            );

            // Wrapped around its buffer, so its two slices are both in use.
            let mut deque: VecDeque<u64> = VecDeque::with_capacity(len);
            for (i, &x) in data.iter().enumerate() {
                if i % 2 == 0 {
                    deque.push_back(x);
                } else {
                    deque.push_front(x);
                }
            }
            same(
                deque.pipe().collect(ex),
                deque.iter(),
                &format!("VecDeque: {what}"),
            );
            same(
                deque.pipe().enumerate().rev().collect(ex),
                deque.iter().enumerate().rev(),
                &format!("VecDeque enumerate rev: {what}"),
            );
            let mut mutated = deque.clone();
            (&mut mutated).pipe().for_each(ex, |x| *x = *x * 2 + 1);
            same(
                mutated.into_iter().collect(),
                deque.iter().map(|x| x * 2 + 1),
                &format!("&mut VecDeque: {what}"),
            );
            let mut mutated = map.clone();
            (&mut mutated)
                .pipe()
                .for_each(ex, |(k, v)| *v += *k as usize);
            for (k, v) in &map {
                assert_eq!(mutated[k], v + *k as usize, "&mut HashMap: {what}");
            }
            let mut mutated = bmap.clone();
            (&mut mutated).pipe().for_each(ex, |(_, v)| *v += 1);
            same(
                mutated.into_values().collect(),
                bmap.values().map(|v| v + 1),
                &format!("&mut BTreeMap: {what}"),
            );
        }
        let some = Some(5);
        same(
            some.pipe().collect(ex),
            some.iter(),
            &format!("Option: {what}"),
        );
        let none: Option<u8> = None;
        same(
            none.pipe().collect(ex),
            none.iter(),
            &format!("None: {what}"),
        );
        let ok: Result<u8, String> = Ok(3);
        same(ok.pipe().collect(ex), ok.iter(), &format!("Ok: {what}"));
        let err: Result<u8, String> = Err("no".into());
        same(err.pipe().collect(ex), err.iter(), &format!("Err: {what}"));
    });
}

#[test]
fn collections_by_value_match_std() {
    each_executor("collections by value", |ex, what| {
        for len in LENGTHS {
            let what = &format!("{what}, len {len}");
            let strings: Vec<String> = numbers(len).iter().map(|x| x.to_string()).collect();
            let map: HashMap<usize, String> = strings.iter().cloned().enumerate().collect();
            same(
                map.clone().into_pipe().collect(ex),
                map,
                &format!("HashMap: {what}"),
            );
            let set: HashSet<String> = strings.iter().map(|s| s.repeat(2)).collect();
            same(
                set.clone().into_pipe().collect(ex),
                set,
                &format!("HashSet: {what}"),
            );
            let bmap: BTreeMap<String, usize> = strings.iter().cloned().zip(0..).collect();
            same(
                bmap.clone().into_pipe().collect(ex),
                bmap,
                &format!("BTreeMap: {what}"),
            );
            let bset: BTreeSet<String> = strings.iter().cloned().collect();
            same(
                bset.clone().into_pipe().collect(ex),
                bset,
                &format!("BTreeSet: {what}"),
            );
            let list: LinkedList<String> = strings.iter().cloned().collect();
            same(
                list.clone().into_pipe().collect(ex),
                list,
                &format!("LinkedList: {what}"),
            );
            let heap: BinaryHeap<String> = strings.iter().cloned().collect();
            same(
                heap.clone().into_pipe().collect(ex),
                heap,
                &format!("BinaryHeap: {what}"),
            );
            let mut deque: VecDeque<String> = strings.iter().cloned().collect();
            deque.rotate_left(len / 3);
            same(
                deque.clone().into_pipe().collect(ex),
                deque,
                &format!("VecDeque: {what}"),
            );
            same(
                strings.clone().into_pipe().collect(ex),
                strings,
                &format!("Vec: {what}"),
            );
        }
        same(
            Some(7).into_pipe().collect(ex),
            Some(7),
            &format!("Option: {what}"),
        );
        same(
            None::<u8>.into_pipe().collect(ex),
            None,
            &format!("None: {what}"),
        );
        let ok: Result<u8, ()> = Ok(1);
        same(ok.into_pipe().collect(ex), ok, &format!("Ok: {what}"));
        let err: Result<u8, ()> = Err(());
        same(err.into_pipe().collect(ex), err, &format!("Err: {what}"));
    });
}

#[test]
fn slice_sources_match_std() {
    each_executor("slices", |ex, what| {
        for len in LENGTHS {
            let what = &format!("{what}, len {len}");
            let data = numbers(len);
            for size in [1, 2, 3, 7, 1000] {
                let what = &format!("{what}, size {size}");
                same(
                    data.pipe().chunks_exact(size).collect(ex),
                    data.chunks_exact(size),
                    &format!("chunks_exact: {what}"),
                );
                same(
                    data.pipe().rchunks(size).collect(ex),
                    data.rchunks(size),
                    &format!("rchunks: {what}"),
                );
                same(
                    data.pipe().rchunks_exact(size).collect(ex),
                    data.rchunks_exact(size),
                    &format!("rchunks_exact: {what}"),
                );
                same(
                    data.pipe()
                        .rchunks(size)
                        .enumerate()
                        .rev()
                        .skip(1)
                        .collect(ex),
                    data.rchunks(size).enumerate().rev().skip(1),
                    &format!("rchunks enumerate rev skip: {what}"),
                );
            }
            let same_run = |a: &u64, b: &u64| a / 3 == b / 3;
            same(
                data.pipe().chunk_by(same_run).collect(ex),
                data.chunk_by(same_run),
                &format!("chunk_by: {what}"),
            );
            same(
                data.pipe().chunk_by(|_, _| true).collect(ex),
                data.chunk_by(|_, _| true),
                &format!("chunk_by one run: {what}"),
            );
            same(
                data.pipe().chunk_by(|_, _| false).collect(ex),
                data.chunk_by(|_, _| false),
                &format!("chunk_by singletons: {what}"),
            );
            for k in [0, 3, 7] {
                let separator = |x: &u64| *x == k;
                same(
                    data.pipe().split(separator).collect(ex),
                    data.split(separator),
                    &format!("split at {k}: {what}"),
                );
            }
            same(
                data.pipe().split(|_| true).collect(ex),
                data.split(|_| true),
                &format!("split at every item: {what}"),
            );
        }
    });
}

#[test]
fn drain_matches_std() {
    each_executor("drain", |ex, what| {
        for len in LENGTHS {
            let data: Vec<String> = numbers(len).iter().map(|x| x.to_string()).collect();
            let ranges = [
                (0, len),
                (0, 0),
                (len, len),
                (len / 3, len / 2 + len / 3),
                (1.min(len), len),
                (0, len.saturating_sub(1)),
            ];
            for (start, end) in ranges {
                let what = &format!("{what}, len {len}, drain {start}..{end}");
                let (mut ours, mut theirs) = (data.clone(), data.clone());
                let got: Vec<String> = ours.pipe_drain(start..end).collect(ex);
                same(got, theirs.drain(start..end), &format!("drained: {what}"));
                assert_eq!(ours, theirs, "kept: {what}");

                let mut ours: VecDeque<String> = data.iter().cloned().collect();
                ours.rotate_right(len / 2);
                let mut theirs = ours.clone();
                let got: Vec<String> = ours.pipe_drain(start..end).collect(ex);
                same(
                    got,
                    theirs.drain(start..end),
                    &format!("VecDeque drained: {what}"),
                );
                assert_eq!(ours, theirs, "VecDeque kept: {what}");
            }
            let (mut ours, mut theirs) = (data.clone(), data.clone());
            let got: Vec<String> = ours.pipe_drain(..).collect(ex);
            same(
                got,
                theirs.drain(..),
                &format!("drain .., len {len}: {what}"),
            );
            assert!(ours.is_empty());
            if len > 0 {
                let (mut ours, mut theirs) = (data.clone(), data.clone());
                let got: Vec<String> = ours.pipe_drain(..=len - 1).take(1).collect(ex);
                same(
                    got,
                    theirs.drain(..=len - 1).take(1),
                    &format!("drain ..=: {what}"),
                );
                assert_eq!(ours, theirs, "drain ..= kept: {what}");
            }
        }
    });
}

fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("it panics");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .expect("a message")
}

#[test]
fn a_bad_drain_range_is_named() {
    let mut v = vec![1, 2, 3];
    let (start, end) = (2, 1);
    let message = panic_message(|| drop(v.pipe_drain(start..end)));
    assert!(message.contains("starts at 2 but ends at 1"), "{message}");
    let message = panic_message(|| drop(v.pipe_drain(1..=3)));
    assert!(
        message.contains("ends at 4, past the length 3"),
        "{message}"
    );
    assert_eq!(v, [1, 2, 3], "a refused drain keeps every item");
}

#[test]
fn repeat_once_and_empty_match_std() {
    each_executor("repeat", |ex, what| {
        for len in LENGTHS {
            same(
                repeat_n(String::from("ab"), len).collect(ex),
                std::iter::repeat_n(String::from("ab"), len),
                &format!("repeat_n, len {len}: {what}"),
            );
            same(
                repeat_n(3u8, len).enumerate().skip(1).collect(ex),
                std::iter::repeat_n(3u8, len).enumerate().skip(1),
                &format!("repeat_n enumerate skip, len {len}: {what}"),
            );
        }
        same(once(vec![1]).collect(ex), std::iter::once(vec![1]), what);
        same(empty::<String>().collect(ex), std::iter::empty(), what);
    });
}
