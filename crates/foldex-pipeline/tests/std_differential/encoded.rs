//! Encoded reductions against `std::iter`: through bytes (every partial encoded and decoded,
//! as between processes) and on executors of this process, which ignore the codec.

use foldex_core::codec::Postcard;

use foldex_core::Executor;
use foldex_pipeline::{from_stream, IntoPipeline};
use foldex_seq::SequentialEx;
use foldex_testkit::{watchdog, ThroughBytes};
use foldex_threaded::ThreadedEx;
use std::ops::ControlFlow::{Break, Continue};
use std::panic::{self, AssertUnwindSafe};

const LENGTHS: [usize; 8] = [0, 1, 2, 3, 7, 97, 1009, 100_000];

fn executors() -> Vec<(String, Box<dyn Executor>)> {
    let mut all: Vec<(String, Box<dyn Executor>)> = (1..=4)
        .map(|pieces| {
            let ex: Box<dyn Executor> = Box::new(ThroughBytes { pieces });
            (format!("ThroughBytes({pieces})"), ex)
        })
        .collect();
    all.push(("SequentialEx".into(), Box::new(SequentialEx)));
    all.push((
        "ThreadedEx(2)".into(),
        Box::new(ThreadedEx::new().threads(2)),
    ));
    all
}

#[test]
fn encoded_reductions_match_std() {
    watchdog("encoded reductions", || {
        for len in LENGTHS {
            let data: Vec<u64> = (0..len as u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54)
                .collect();
            let odd = data.pipe().copied().filter(|x| x % 2 == 1).map(|x| x * 3);
            let std_odd = || data.iter().copied().filter(|x| x % 2 == 1).map(|x| x * 3);
            let e = odd.encoded(Postcard);
            for (name, ex) in executors() {
                let what = format!("{name}, len {len}");
                let ex = &*ex;
                assert_eq!(e.count(ex), std_odd().count(), "count: {what}");
                assert_eq!(e.sum::<u64>(ex), std_odd().sum::<u64>(), "sum: {what}");
                assert_eq!(e.min(ex), std_odd().min(), "min: {what}");
                assert_eq!(e.max(ex), std_odd().max(), "max: {what}");
                assert_eq!(
                    e.min_by_key(ex, |x| x % 7),
                    std_odd().min_by_key(|x| x % 7),
                    "min_by_key: {what}"
                );
                assert_eq!(
                    e.max_by_key(ex, |x| x % 7),
                    std_odd().max_by_key(|x| x % 7),
                    "max_by_key: {what}"
                );
                assert_eq!(
                    e.reduce(ex, || 0, |a, b| a ^ b),
                    std_odd().fold(0, |a, b| a ^ b),
                    "reduce: {what}"
                );
                assert_eq!(
                    e.reduce_with(ex, |a, _| a),
                    std_odd().reduce(|a, _| a),
                    "reduce_with: {what}"
                );
                assert_eq!(
                    e.any(ex, |x| x > 2000),
                    std_odd().any(|x| x > 2000),
                    "any: {what}"
                );
                assert_eq!(
                    e.all(ex, |x| x < 3000),
                    std_odd().all(|x| x < 3000),
                    "all: {what}"
                );
                assert_eq!(
                    e.find_first(ex, |&x| x > 1500),
                    std_odd().find(|&x| x > 1500),
                    "find_first: {what}"
                );
                assert_eq!(
                    e.position_first(ex, |x| x > 1500),
                    std_odd().position(|x| x > 1500),
                    "position_first: {what}"
                );
                assert_eq!(
                    e.collect::<Vec<_>>(ex),
                    std_odd().collect::<Vec<_>>(),
                    "collect: {what}"
                );
                let words = e.fold(ex, String::new, |s, x| s + &x.to_string(), |a, b| a + &b);
                assert_eq!(
                    words,
                    std_odd().map(|x| x.to_string()).collect::<String>(),
                    "fold: {what}"
                );
                let until = |acc: u64, x: u64| {
                    if x > 1500 {
                        Break(acc)
                    } else {
                        Continue(acc + x)
                    }
                };
                assert_eq!(
                    e.try_fold(ex, || 0, until, |a, b| a + b),
                    std_odd().try_fold(0, until),
                    "try_fold: {what}"
                );
                // A stage with scratch state and one that breaks travel too.
                let scratch = data.pipe().map_init(Vec::<u64>::new, |v, &x| {
                    v.clear();
                    v.push(x);
                    v[0]
                });
                assert_eq!(
                    scratch.encoded(Postcard).sum::<u64>(ex),
                    data.iter().sum::<u64>(),
                    "map_init: {what}"
                );
                let head = data.pipe().copied().take_while(|&x| x < 1000);
                assert_eq!(
                    head.encoded(Postcard).collect::<Vec<_>>(ex),
                    data.iter()
                        .copied()
                        .take_while(|&x| x < 1000)
                        .collect::<Vec<_>>(),
                    "take_while: {what}"
                );
            }
        }
    });
}

#[test]
fn a_panic_through_bytes_keeps_its_message() {
    let data: Vec<u64> = (0..1000).collect();
    let caught = panic::catch_unwind(AssertUnwindSafe(|| {
        let bad = data.pipe().map(|&x| {
            if x == 700 {
                panic!("item {x} is bad")
            } else {
                x
            }
        });
        bad.encoded(Postcard)
            .sum::<u64>(&ThroughBytes { pieces: 4 })
    }));
    assert_eq!(
        foldex_core::exec::message(&*caught.unwrap_err()),
        "item 700 is bad"
    );
}

#[test]
fn what_cannot_leave_the_process_says_why() {
    let message = |f: &dyn Fn()| {
        foldex_core::exec::message(&*panic::catch_unwind(AssertUnwindSafe(f)).unwrap_err())
    };
    let data = [1u64, 1, 2, 3, 3];
    let m = message(&|| {
        data.pipe()
            .copied()
            .dedup()
            .encoded(Postcard)
            .count(&ThroughBytes { pieces: 2 });
    });
    assert!(m.contains("dedup, unique or skip_while"), "{m}");
    let m = message(&|| {
        from_stream(foldex_core::Stream::new(data.iter().copied()))
            .encoded(Postcard)
            .count(&ThroughBytes { pieces: 2 });
    });
    assert!(m.contains("over a stream"), "{m}");
    // Without a codec, an executor of other processes is told so.
    let m = message(&|| {
        data.pipe().count(&ThroughBytes { pieces: 2 });
    });
    assert!(m.contains("no codec"), "{m}");
}
