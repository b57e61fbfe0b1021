//! The reductions and collections rayon names beyond the basic ones (`find_map_*`,
//! `position_any`, `sum`/`product` into `Result`/`Option`, every std collection, nested
//! `unzip`, `partition_map`, `par_extend`, comparisons, `min`/`max` of `Option`s and floats)
//! against the same chain on `std::iter`, on every executor configuration through
//! `&dyn Executor`, over lengths 0, 1, primes and 10^5; with the early stops they promise
//! (over a range far too long to run) and panics with their payloads.

use crate::common::executors;

use foldex_core::Executor;
use foldex_pipeline::{Either, IntoPipeline, ParallelExtend};
use foldex_testkit::{watchdog, Boom};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::num::Wrapping;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

const LENGTHS: [usize; 9] = [0, 1, 2, 3, 7, 31, 97, 1009, 100_000];

/// Far too many items to run: a reduction over them ends only where it stops early.
const HUGE: usize = 1 << 40;

/// Runs `check` for every executor of the shared list and every length of [`LENGTHS`].
fn each_case(name: &str, check: impl Fn(&dyn Executor, &[u64], &str)) {
    crate::common::each_case(name, &LENGTHS, 58, check)
}

/// The payload of the panic `run` raises.
fn payload(run: impl FnOnce()) -> usize {
    let caught = panic::catch_unwind(AssertUnwindSafe(run)).expect_err("a panic");
    caught
        .downcast_ref::<Boom>()
        .expect("the closure's payload")
        .0
}

#[test]
fn find_maps_and_position_any_match_std() {
    each_case("find_map", |ex, data, what| {
        for wanted in [0, 7, 63, 64] {
            let f = |x: u64| (x == wanted).then_some(x * 10 + 1);
            let want = data.iter().copied().find_map(f);
            let p = data.pipe().copied();
            assert_eq!(p.find_map_first(ex, f), want, "first {wanted}: {what}");
            assert_eq!(p.find_map_any(ex, f), want, "any {wanted}: {what}");
            let last = data.iter().copied().filter_map(f).next_back();
            assert_eq!(p.find_map_last(ex, f), last, "last {wanted}: {what}");
            let pos = data.iter().position(|&x| x == wanted);
            assert_eq!(
                p.position_any(ex, |x| x == wanted),
                pos,
                "position {wanted}: {what}"
            );

            // After a stage that changes the number of items, and one that holds items at a
            // piece's edge (the lent stages take every route).
            let odd = p.filter(|x| x % 2 == 1);
            let std_odd = || data.iter().copied().filter(|x| x % 2 == 1);
            assert_eq!(odd.find_map_first(ex, f), std_odd().find_map(f), "{what}");
            assert_eq!(
                odd.find_map_last(ex, f),
                std_odd().filter_map(f).next_back(),
                "{what}"
            );
            let runs = p.dedup();
            let mut std_runs = data.to_vec();
            std_runs.dedup();
            let g = |x: u64| (x > wanted / 2).then_some(x);
            let std_runs = std_runs.into_iter();
            assert_eq!(
                runs.find_map_last(ex, g),
                std_runs.clone().filter_map(g).next_back(),
                "dedup last {wanted}: {what}"
            );
            assert_eq!(
                runs.find_map_first(ex, g),
                std_runs.clone().find_map(g),
                "{what}"
            );
            let upto = p.take_while(|&x| x != wanted);
            let std_upto = data.iter().copied().take_while(|&x| x != wanted);
            assert_eq!(
                upto.find_map_last(ex, |x| Some(x + 1)),
                std_upto.map(|x| x + 1).last(),
                "take_while last {wanted}: {what}"
            );
        }
    });
}

#[test]
fn find_map_first_and_position_any_stop_at_the_hit() {
    watchdog("find_map stops", || {
        for (name, ex) in executors() {
            let calls = AtomicUsize::new(0);
            let found = (0..HUGE).pipe().find_map_first(&*ex, |i| {
                calls.fetch_add(1, Relaxed);
                (i == 1000).then_some(i * 2)
            });
            assert_eq!(found, Some(2000), "{name}");
            let calls = calls.into_inner();
            assert!(calls < 1 << 30, "{name}: {calls} calls");
            if name == "SequentialEx" {
                assert_eq!(calls, 1001, "{name}: as many calls as std makes");
            }
            let found = (0..HUGE)
                .pipe()
                .find_map_any(&*ex, |i| (i == 77).then_some(i));
            assert_eq!(found, Some(77), "{name}");
            assert_eq!(
                (0..HUGE).pipe().position_any(&*ex, |i| i == 5),
                Some(5),
                "{name}"
            );
        }
    });
}

#[test]
fn find_maps_raise_the_first_panic_before_the_hit_and_none_after() {
    for (name, ex) in executors() {
        let f = |i: usize| {
            if i == 300 || i == 700 {
                panic::panic_any(Boom(i));
            }
            (i == 500).then_some(i)
        };
        assert_eq!(
            payload(|| {
                let _ = (0..1000usize).pipe().find_map_first(&*ex, f);
            }),
            300,
            "{name}"
        );
        let after = |i: usize| {
            if i == 700 {
                panic::panic_any(Boom(i));
            }
            (i == 500).then_some(i)
        };
        assert_eq!(
            (0..1000usize).pipe().find_map_first(&*ex, after),
            Some(500),
            "{name}"
        );
        // find_map_last searches from the right, as `rev().find_map(f)`: 700 is met first.
        assert_eq!(
            payload(|| {
                let _ = (0..1000usize).pipe().find_map_last(&*ex, f);
            }),
            700,
            "{name}"
        );
    }
}

#[test]
fn sum_and_product_into_result_and_option_match_std() {
    each_case("sum", |ex, data, what| {
        let p = data.pipe().copied();
        assert_eq!(p.sum::<u64>(ex), data.iter().sum::<u64>(), "sum: {what}");
        assert_eq!(
            p.map(|x| x as f64).sum::<f64>(ex),
            data.iter().map(|&x| x as f64).sum::<f64>(),
            "{what}"
        );
        let wrapping = |x: u64| Wrapping(x | 1);
        assert_eq!(
            p.map(wrapping).product::<Wrapping<u64>>(ex),
            data.iter().map(|&x| wrapping(x)).product::<Wrapping<u64>>(),
            "product: {what}"
        );
        for bad in [0, 5, 63, 64] {
            let checked = |x: u64| if x == bad { Err(x) } else { Ok(x) };
            let want: Result<u64, u64> = data.iter().map(|&x| checked(x)).sum();
            assert_eq!(
                p.map(checked).sum::<Result<u64, u64>>(ex),
                want,
                "Result {bad}: {what}"
            );
            let want: Result<Wrapping<u64>, u64> =
                data.iter().map(|&x| checked(x).map(wrapping)).product();
            let got: Result<Wrapping<u64>, u64> = p.map(|x| checked(x).map(wrapping)).product(ex);
            assert_eq!(got, want, "Result product {bad}: {what}");

            let some = |x: u64| (x != bad).then_some(x);
            let want: Option<u64> = data.iter().map(|&x| some(x)).sum();
            assert_eq!(
                p.map(some).sum::<Option<u64>>(ex),
                want,
                "Option {bad}: {what}"
            );
            let want: Option<u64> = data.iter().map(|&x| some(x % 3)).product();
            let got = p.map(|x| some(x % 3)).product::<Option<u64>>(ex);
            assert_eq!(got, want, "Option product {bad}: {what}");

            // Nested: an `Option` of `Result`s, and through a filter.
            let nested = |x: u64| (x != bad + 1).then_some(checked(x));
            let want: Option<Result<u64, u64>> = data.iter().map(|&x| nested(x)).sum();
            assert_eq!(
                p.map(nested).sum::<Option<Result<u64, u64>>>(ex),
                want,
                "{what}"
            );
            let odd = p.filter(|x| x % 2 == 1).map(checked);
            let want: Result<u64, u64> = data
                .iter()
                .filter(|&&x| x % 2 == 1)
                .map(|&x| checked(x))
                .sum();
            assert_eq!(
                odd.sum::<Result<u64, u64>>(ex),
                want,
                "filtered {bad}: {what}"
            );
        }
    });
}

#[test]
fn sum_into_result_stops_at_the_first_err_and_raises_no_panic_after_it() {
    watchdog("sum stops", || {
        for (name, ex) in executors() {
            let calls = AtomicUsize::new(0);
            let items = (0..HUGE).pipe().map(|i| {
                calls.fetch_add(1, Relaxed);
                if i == 1000 {
                    Err(i)
                } else {
                    Ok(i)
                }
            });
            assert_eq!(items.sum::<Result<usize, usize>>(&*ex), Err(1000), "{name}");
            let calls = calls.into_inner();
            assert!(calls < 1 << 30, "{name}: {calls} calls");
            if name == "SequentialEx" {
                assert_eq!(calls, 1001, "{name}: as many calls as std makes");
            }
            let none_at = |i: usize| (i != 3).then_some(i);
            assert_eq!(
                (0..HUGE).pipe().map(none_at).product::<Option<usize>>(&*ex),
                None
            );

            // A panic before the first `Err` is raised; one after it never happens.
            let panicky = |i: usize| match i {
                400 => panic::panic_any(Boom(i)),
                500 => Err(i),
                _ => Ok(i),
            };
            let caught = payload(|| {
                let _ = (0..1000usize)
                    .pipe()
                    .map(panicky)
                    .sum::<Result<usize, usize>>(&*ex);
            });
            assert_eq!(caught, 400, "{name}");
            let got = (0..1000usize)
                .pipe()
                .filter(|&i| i != 400)
                .map(panicky)
                .sum::<Result<usize, usize>>(&*ex);
            assert_eq!(got, Err(500), "{name}");
        }
    });
}

#[test]
fn collections_match_std() {
    each_case("collect", |ex, data, what| {
        let p = data.pipe().copied();
        let odd = p.filter(|x| x % 2 == 1);
        let std_odd = || data.iter().copied().filter(|x| x % 2 == 1);
        assert_eq!(
            p.collect::<VecDeque<u64>>(ex),
            data.iter().copied().collect::<VecDeque<_>>(),
            "{what}"
        );
        assert_eq!(
            odd.collect::<VecDeque<u64>>(ex),
            std_odd().collect::<VecDeque<_>>(),
            "{what}"
        );
        // The heap's layout, not only its order: std heapifies the collected vector too.
        let heap: BinaryHeap<u64> = odd.collect(ex);
        assert_eq!(
            heap.into_vec(),
            std_odd().collect::<BinaryHeap<_>>().into_vec(),
            "{what}"
        );
        let heap: BinaryHeap<u64> = p.collect(ex);
        assert_eq!(
            heap.into_vec(),
            data.iter().copied().collect::<BinaryHeap<_>>().into_vec(),
            "{what}"
        );
        assert_eq!(
            odd.collect::<LinkedList<u64>>(ex),
            std_odd().collect::<LinkedList<_>>(),
            "{what}"
        );
        assert_eq!(
            p.collect::<LinkedList<u64>>(ex),
            data.iter().copied().collect::<LinkedList<_>>(),
            "{what}"
        );
        assert_eq!(*p.collect::<Box<[u64]>>(ex), *data, "{what}");
        assert_eq!(
            *odd.collect::<Rc<[u64]>>(ex),
            *std_odd().collect::<Rc<[u64]>>(),
            "{what}"
        );
        assert_eq!(*p.collect::<Arc<[u64]>>(ex), *data, "{what}");
        let cow: Cow<'_, [u64]> = odd.collect(ex);
        assert_eq!(cow, std_odd().collect::<Cow<'_, [u64]>>(), "{what}");

        let letter = |x: u64| char::from(b'a' + x as u8 % 26);
        let letters: Vec<char> = data.iter().map(|&x| letter(x)).collect();
        let want: String = letters.iter().collect();
        assert_eq!(letters.pipe().collect::<String>(ex), want, "&char: {what}");
        let boxed = |x: u64| Box::<str>::from(x.to_string());
        assert_eq!(
            p.map(boxed).collect::<String>(ex),
            data.iter().map(|&x| boxed(x)).collect::<String>(),
            "{what}"
        );
        let cow = |x: u64| {
            if x.is_multiple_of(2) {
                Cow::Borrowed("e")
            } else {
                Cow::Owned(x.to_string())
            }
        };
        assert_eq!(
            p.map(cow).collect::<String>(ex),
            data.iter().map(|&x| cow(x)).collect::<String>(),
            "{what}"
        );
        assert_eq!(
            p.map(letter).collect::<Box<str>>(ex),
            data.iter().map(|&x| letter(x)).collect::<Box<str>>(),
            "{what}"
        );
        assert_eq!(
            odd.map(cow).collect::<Cow<'_, str>>(ex),
            Cow::<str>::Owned(std_odd().map(cow).collect::<String>()),
            "{what}"
        );

        // `()` inside `Result`: the items are consumed, the first `Err` by index kept.
        for bad in [0, 9, 64] {
            let check = |x: u64| if x >= bad { Err(x) } else { Ok(()) };
            #[allow(clippy::map_collect_result_unit)] // std's `collect` is what is checked
            let want: Result<(), u64> = data.iter().map(|&x| check(x)).collect();
            assert_eq!(
                p.map(check).collect::<Result<(), u64>>(ex),
                want,
                "Result<()> {bad}: {what}"
            );
        }
        let () = p.map(drop).collect(ex);
    });
}

#[test]
fn nested_unzip_and_partition_map_match_std() {
    each_case("unzip", |ex, data, what| {
        let p = data.pipe().copied();
        let triple = |x: u64| (x, (x * 2, x.to_string()));
        type Three = (Vec<u64>, (VecDeque<u64>, Vec<String>));
        let want: Three = data.iter().map(|&x| triple(x)).unzip();
        let got: Three = p.map(triple).unzip(ex);
        assert_eq!(got, want, "nested unzip: {what}");
        let got: Three = p.map(triple).collect(ex);
        assert_eq!(got, want, "collect into a pair: {what}");
        let odd = p.filter(|x| x % 2 == 1).map(triple);
        let want: Three = data
            .iter()
            .copied()
            .filter(|x| x % 2 == 1)
            .map(triple)
            .unzip();
        assert_eq!(
            odd.unzip::<_, _, Vec<u64>, (VecDeque<u64>, Vec<String>)>(ex),
            want,
            "{what}"
        );

        let side = |x: u64| {
            if x.is_multiple_of(3) {
                Either::Left(x)
            } else {
                Either::Right(x.to_string())
            }
        };
        let mut want = (Vec::new(), Vec::new());
        for &x in data {
            match side(x) {
                Either::Left(l) => want.0.push(l),
                Either::Right(r) => want.1.push(r),
            }
        }
        let got: (Vec<u64>, Vec<String>) = p.partition_map(ex, side);
        assert_eq!(got, want, "partition_map: {what}");
        let got: (BTreeSet<u64>, String) = p.partition_map(ex, side);
        assert_eq!(got.0, want.0.iter().copied().collect(), "{what}");
        assert_eq!(got.1, want.1.concat(), "{what}");
    });
}

#[test]
fn par_extend_matches_extend() {
    each_case("par_extend", |ex, data, what| {
        let p = data.pipe().copied();
        let odd = || p.filter(|x| x % 2 == 1);
        let std_odd = || data.iter().copied().filter(|x| x % 2 == 1);

        let (mut got, mut want) = (vec![7u64, 8], vec![7u64, 8]);
        got.par_extend(ex, odd());
        want.extend(std_odd());
        assert_eq!(got, want, "Vec: {what}");
        let (mut got, mut want) = (VecDeque::from([1u64]), VecDeque::from([1u64]));
        got.par_extend(ex, p);
        want.extend(data.iter().copied());
        assert_eq!(got, want, "VecDeque: {what}");
        let (mut got, mut want) = (LinkedList::from([3u64]), LinkedList::from([3u64]));
        got.par_extend(ex, odd());
        want.extend(std_odd());
        assert_eq!(got, want, "LinkedList: {what}");
        let (mut got, mut want) = (BinaryHeap::from([5u64]), BinaryHeap::from([5u64]));
        got.par_extend(ex, p);
        want.extend(data.iter().copied());
        assert_eq!(
            got.into_sorted_vec(),
            want.into_sorted_vec(),
            "BinaryHeap: {what}"
        );
        let (mut got, mut want) = (String::from(">"), String::from(">"));
        got.par_extend(ex, p.map(|x| x.to_string()));
        want.extend(data.iter().map(|x| x.to_string()));
        assert_eq!(got, want, "String: {what}");

        // Maps keep the later value of a repeated key, as `Extend` does.
        let pair = |(i, x): (usize, u64)| (x, i);
        let (mut got, mut want) = (HashMap::from([(0, 99)]), HashMap::from([(0, 99)]));
        got.par_extend(ex, p.enumerate().map(pair));
        want.extend(data.iter().copied().enumerate().map(pair));
        assert_eq!(got, want, "HashMap: {what}");
        let (mut got, mut want) = (BTreeMap::from([(1, 99)]), BTreeMap::from([(1, 99)]));
        got.par_extend(ex, p.enumerate().map(pair));
        want.extend(data.iter().copied().enumerate().map(pair));
        assert_eq!(got, want, "BTreeMap: {what}");
        let (mut got, mut want) = (HashSet::from([100u64]), HashSet::from([100u64]));
        got.par_extend(ex, odd());
        want.extend(std_odd());
        assert_eq!(got, want, "HashSet: {what}");
        let (mut got, mut want) = (BTreeSet::from([100u64]), BTreeSet::from([100u64]));
        got.par_extend(ex, p);
        want.extend(data.iter().copied());
        assert_eq!(got, want, "BTreeSet: {what}");

        // From references, as `Extend<&T>`: indexable, after a transform, and pairs.
        let refs = || data.pipe();
        let odd_refs = || data.pipe().filter(|x| **x % 2 == 1);
        let (mut got, mut want) = (vec![7u64], vec![7u64]);
        got.par_extend(ex, refs());
        want.extend(data);
        got.par_extend(ex, odd_refs());
        want.extend(data.iter().filter(|x| **x % 2 == 1));
        assert_eq!(got, want, "Vec from &u64: {what}");
        let (mut got, mut want) = (VecDeque::from([1u64]), VecDeque::from([1u64]));
        got.par_extend(ex, odd_refs());
        want.extend(data.iter().filter(|x| **x % 2 == 1));
        assert_eq!(got, want, "VecDeque from &u64: {what}");
        let (mut got, mut want) = (LinkedList::<u64>::new(), LinkedList::new());
        got.par_extend(ex, refs());
        want.extend(data);
        assert_eq!(got, want, "LinkedList from &u64: {what}");
        let (mut got, mut want) = (BinaryHeap::<u64>::new(), BinaryHeap::new());
        got.par_extend(ex, refs());
        want.extend(data);
        assert_eq!(
            got.into_sorted_vec(),
            want.into_sorted_vec(),
            "BinaryHeap from &u64: {what}"
        );
        let (mut got, mut want) = (HashSet::<u64>::new(), HashSet::new());
        got.par_extend(ex, odd_refs());
        want.extend(data.iter().filter(|x| **x % 2 == 1));
        assert_eq!(got, want, "HashSet from &u64: {what}");
        let (mut got, mut want) = (BTreeSet::<u64>::new(), BTreeSet::new());
        got.par_extend(ex, refs());
        want.extend(data);
        assert_eq!(got, want, "BTreeSet from &u64: {what}");
        let indices: Vec<usize> = (0..data.len()).collect();
        let (mut got, mut want) = (HashMap::from([(0u64, 99usize)]), HashMap::from([(0, 99)]));
        got.par_extend(ex, data.pipe().zip(&indices));
        want.extend(data.iter().zip(&indices));
        assert_eq!(got, want, "HashMap from (&u64, &usize): {what}");
        let (mut got, mut want) = (BTreeMap::from([(1u64, 99usize)]), BTreeMap::from([(1, 99)]));
        got.par_extend(ex, data.pipe().zip(&indices).filter(|(x, _)| **x > 3));
        want.extend(data.iter().zip(&indices).filter(|(x, _)| **x > 3));
        assert_eq!(got, want, "BTreeMap from (&u64, &usize): {what}");
    });
}

#[test]
fn a_panic_in_par_extend_leaves_the_collection_as_it_was() {
    for (name, ex) in executors() {
        let mut v = vec![1, 2, 3];
        let boom = |i: usize| {
            if i == 40 {
                panic::panic_any(Boom(i));
            }
            i
        };
        assert_eq!(
            payload(|| v.par_extend(&*ex, (0..100usize).pipe().map(boom))),
            40,
            "{name}"
        );
        assert_eq!(v, [1, 2, 3], "{name}");
    }
}

#[test]
fn comparisons_match_std() {
    each_case("compare", |ex, data, what| {
        let n = data.len();
        let mut others: Vec<Vec<u64>> = vec![data.to_vec(), Vec::new()];
        for cut in [0, n / 2, n.saturating_sub(1)] {
            others.push(data[..cut.min(n)].to_vec());
            let mut longer = data.to_vec();
            longer.insert(cut.min(n), 64);
            others.push(longer);
            if cut < n {
                let mut changed = data.to_vec();
                changed[cut] ^= 1;
                others.push(changed);
            }
        }
        for other in &others {
            let (a, b) = (data.pipe(), other.pipe());
            let (x, y) = (data.iter(), other.iter());
            let case = format!("{what}, other of len {}", other.len());
            assert_eq!(a.cmp(ex, b), x.clone().cmp(y.clone()), "cmp: {case}");
            assert_eq!(
                a.partial_cmp(ex, b),
                x.clone().partial_cmp(y.clone()),
                "{case}"
            );
            assert_eq!(a.eq(ex, b), x.clone().eq(y.clone()), "eq: {case}");
            if n > 1009 {
                continue; // The rest are `partial_cmp` and `eq` read differently.
            }
            assert_eq!(a.ne(ex, b), x.clone().ne(y.clone()), "ne: {case}");
            assert_eq!(a.lt(ex, b), x.clone().lt(y.clone()), "lt: {case}");
            assert_eq!(a.le(ex, b), x.clone().le(y.clone()), "le: {case}");
            assert_eq!(a.gt(ex, b), x.clone().gt(y.clone()), "gt: {case}");
            assert_eq!(a.ge(ex, b), x.clone().ge(y.clone()), "ge: {case}");
        }
        // Floats, where a NaN makes the first unequal pair unordered.
        if n > 0 {
            let floats: Vec<f64> = data.iter().map(|&x| x as f64).collect();
            let mut nan = floats.clone();
            nan[n / 2] = f64::NAN;
            for other in [&floats, &nan] {
                let (a, b) = (floats.pipe(), other.pipe());
                let (x, y) = (floats.iter(), other.iter());
                assert_eq!(
                    a.partial_cmp(ex, b),
                    x.clone().partial_cmp(y.clone()),
                    "{what}"
                );
                assert_eq!(a.eq(ex, b), x.clone().eq(y.clone()), "{what}");
                assert_eq!(a.le(ex, b), x.clone().le(y.clone()), "{what}");
                assert_eq!(b.ge(ex, a), y.clone().ge(x.clone()), "{what}");
            }
        }
    });
}

#[test]
fn comparisons_stop_at_the_first_difference_and_make_the_items_std_makes() {
    watchdog("comparisons stop", || {
        for (name, ex) in executors() {
            let calls = AtomicUsize::new(0);
            let counted = (0..HUGE).pipe().map(|i| {
                calls.fetch_add(1, Relaxed);
                i
            });
            let other = || (0..HUGE).pipe().map(|i| if i == 1000 { 0 } else { i });
            assert_eq!(counted.cmp(&*ex, other()), Ordering::Greater, "{name}");
            assert!(!counted.eq(&*ex, other()), "{name}");
            assert!(calls.load(Relaxed) < 1 << 30, "{name}");

            // With an equal prefix, std makes the longer side's next item too.
            for (a, b) in [(5usize, 3usize), (3, 5), (4, 4)] {
                let made = AtomicUsize::new(0);
                let left = (0..a).pipe().map(|i| {
                    made.fetch_add(1, Relaxed);
                    i
                });
                let std_made = AtomicUsize::new(0);
                let std_left = (0..a).inspect(|_| {
                    std_made.fetch_add(1, Relaxed);
                });
                assert_eq!(left.cmp(&*ex, 0..b), std_left.cmp(0..b), "{name}");
                assert_eq!(
                    made.into_inner(),
                    std_made.into_inner(),
                    "{name}, {a} vs {b}"
                );
            }
            // A panic in the common prefix is raised, with its payload.
            let boom = |i: usize| {
                if i == 700 {
                    panic::panic_any(Boom(i));
                }
                i
            };
            assert_eq!(
                payload(|| {
                    let _ = (0..1000usize).pipe().map(boom).cmp(&*ex, 0..1000usize);
                }),
                700
            );
            assert!(
                (0..1000usize).pipe().map(boom).lt(&*ex, 1..1000usize),
                "{name}"
            );
        }
    });
}

#[test]
fn min_and_max_of_options_and_floats_match_std() {
    each_case("min max", |ex, data, what| {
        let some = |x: u64| (!x.is_multiple_of(5)).then_some(x);
        let p = data.pipe().copied();
        assert_eq!(
            p.map(some).min(ex),
            data.iter().map(|&x| some(x)).min(),
            "{what}"
        );
        assert_eq!(
            p.map(some).max(ex),
            data.iter().map(|&x| some(x)).max(),
            "{what}"
        );
        let float = |x: u64| if x == 13 { -0.0 } else { x as f64 / 4.0 - 4.0 };
        let floats = || data.iter().map(|&x| float(x));
        let got = p.map(float).min_by(ex, f64::total_cmp);
        assert_eq!(
            got.map(f64::to_bits),
            floats().min_by(f64::total_cmp).map(f64::to_bits),
            "{what}"
        );
        let got = p.map(float).max_by(ex, |a, b| a.partial_cmp(b).unwrap());
        let want = floats().max_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits), "{what}");
        // Ties: the first least key and the last greatest, by index.
        let keyed = data.pipe().enumerate();
        let key = |&(_, x): &(usize, &u64)| x % 4;
        assert_eq!(
            keyed.min_by_key(ex, key),
            data.iter().enumerate().min_by_key(key),
            "{what}"
        );
        assert_eq!(
            keyed.max_by_key(ex, key),
            data.iter().enumerate().max_by_key(key),
            "{what}"
        );
    });
}
