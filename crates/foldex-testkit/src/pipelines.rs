//! The pipeline suite: every adapter, transform and reduction of `foldex-pipeline` on the
//! executor under test, against the same chain on `std::iter`, over lengths 0, 1, primes and up
//! to a few thousand, with random cut points, targets and panics.

use crate::{basesizes, quietly, run_property, Boom};
use foldex_core::{Basesize, Executor};
use foldex_pipeline::IntoPipeline;
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow::{Break, Continue};

/// Lengths worth testing: 0, 1, small primes, and anything up to 3000 (crates/foldex-pipeline's
/// own differential tests add 10^5 on the built-in executors).
fn lengths() -> impl Strategy<Value = usize> {
    prop_oneof![
        1 => prop::sample::select(vec![0usize, 1, 2, 3, 5, 7, 13, 31, 97, 1009, 4099]),
        3 => 0usize..=3000,
    ]
}

/// Fixed pseudo-random items in `0..1024`, with many repeats (ties for `min`/`max`).
fn items(len: usize) -> Vec<u64> {
    (0..len as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54)
        .collect()
}

/// Index-preserving adapters (`enumerate`, `zip`, `skip`/`take`, `step_by`, `rev`, `chain`,
/// `chunks`, `windows`) give `std`'s items in `std`'s order.
pub fn check_pipeline_adapters<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_pipeline_adapters_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_pipeline_adapters`] through `&dyn Executor`, compiled once.
fn check_pipeline_adapters_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (lengths(), basesizes(), 0usize..3100, 1usize..40);
    run_property("pipeline adapters", cases, |(len, bs, cut, size)| {
        let ex = make(bs);
        let data = items(len);
        let got: Vec<(usize, u64)> = data.pipe().copied().enumerate().collect(&ex);
        prop_assert_eq!(got, data.iter().copied().enumerate().collect::<Vec<_>>());
        let other = items(cut);
        let got: Vec<u64> = data
            .pipe()
            .zip(&other)
            .map(|(a, b)| a * 1024 + b)
            .collect(&ex);
        let want: Vec<u64> = data.iter().zip(&other).map(|(a, b)| a * 1024 + b).collect();
        prop_assert_eq!(got, want);
        let got: Vec<u64> = data.pipe().skip(cut).take(size * 7).copied().collect(&ex);
        let want: Vec<u64> = data.iter().skip(cut).take(size * 7).copied().collect();
        prop_assert_eq!(got, want);
        let got: Vec<u64> = data
            .pipe()
            .step_by(size)
            .rev()
            .chain(&other)
            .copied()
            .collect(&ex);
        let mut want: Vec<u64> = data.iter().step_by(size).copied().collect();
        want.reverse();
        want.extend(&other);
        prop_assert_eq!(got, want);
        let got: Vec<u64> = data
            .pipe()
            .chunks(size)
            .map(|c| c.iter().sum())
            .collect(&ex);
        let want: Vec<u64> = data.chunks(size).map(|c| c.iter().sum()).collect();
        prop_assert_eq!(got, want);
        let got: Vec<u64> = data
            .pipe()
            .windows(size)
            .map(|w| w[0] ^ w[size - 1])
            .collect(&ex);
        let want: Vec<u64> = data.windows(size).map(|w| w[0] ^ w[size - 1]).collect();
        prop_assert_eq!(got, want);
        Ok(())
    });
}

/// Transforms (`filter`, `filter_map`, `flat_map`, `take_while`, `map_while`, `map_init`) give
/// `std`'s items, with the cut of `take_while`/`map_while` at a random item.
pub fn check_pipeline_transforms<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_pipeline_transforms_dyn(&|basesize| -> Box<dyn Executor + 'e> {
        Box::new(make(basesize))
    });
}

/// [`check_pipeline_transforms`] through `&dyn Executor`, compiled once.
fn check_pipeline_transforms_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (lengths(), basesizes(), 0u64..1100, 1u64..6);
    run_property("pipeline transforms", cases, |(len, bs, limit, m)| {
        let ex = make(bs);
        let data = items(len);
        let got: Vec<u64> = data
            .pipe()
            .copied()
            .filter(|x| x % m == 0)
            .map(|x| x + 1)
            .collect(&ex);
        let want: Vec<u64> = data
            .iter()
            .copied()
            .filter(|x| x % m == 0)
            .map(|x| x + 1)
            .collect();
        prop_assert_eq!(got, want);
        let got: Vec<u64> = data
            .pipe()
            .filter_map(|&x| (x % m != 0).then_some(x))
            .collect(&ex);
        let want: Vec<u64> = data
            .iter()
            .filter_map(|&x| (x % m != 0).then_some(x))
            .collect();
        prop_assert_eq!(got, want);
        let got: Vec<u64> = data.pipe().flat_map(|&x| 0..x % (m + 2)).collect(&ex);
        let want: Vec<u64> = data.iter().flat_map(|&x| 0..x % (m + 2)).collect();
        prop_assert_eq!(got, want);
        let got: Vec<u64> = data.pipe().copied().take_while(|&x| x < limit).collect(&ex);
        let want: Vec<u64> = data.iter().copied().take_while(|&x| x < limit).collect();
        prop_assert_eq!(got, want);
        let got: u64 = data
            .pipe()
            .map_while(|&x| (x < limit).then_some(x))
            .sum(&ex);
        let want: u64 = data.iter().map_while(|&x| (x < limit).then_some(x)).sum();
        prop_assert_eq!(got, want);
        let got: Vec<u64> = data
            .pipe()
            .map_init(Vec::new, |scratch: &mut Vec<u64>, &x| {
                scratch.clear();
                scratch.extend([x, m]);
                scratch.iter().sum()
            })
            .collect(&ex);
        prop_assert_eq!(got, data.iter().map(|&x| x + m).collect::<Vec<_>>());
        Ok(())
    });
}

/// Named reductions equal `std`'s: `count`, `sum`, `min`/`max` (ties as `std`), the `_by_key`
/// forms, `reduce_with`, `any`/`all`, `find_first`/`find_last`, `position_first`/`_last`, and a
/// `try_fold` with a `Break` at a random item.
pub fn check_pipeline_reductions<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_pipeline_reductions_dyn(&|basesize| -> Box<dyn Executor + 'e> {
        Box::new(make(basesize))
    });
}

/// [`check_pipeline_reductions`] through `&dyn Executor`, compiled once.
fn check_pipeline_reductions_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (lengths(), basesizes(), 0u64..1100, 2u64..9);
    run_property("pipeline reductions", cases, |(len, bs, target, m)| {
        let ex = make(bs);
        let data = items(len);
        let all = || data.iter().copied();
        let p = data.pipe().copied();
        prop_assert_eq!(
            p.filter(|x| x % m == 0).count(&ex),
            all().filter(|x| x % m == 0).count()
        );
        prop_assert_eq!(p.sum::<u64>(&ex), all().sum::<u64>());
        prop_assert_eq!(p.min(&ex), all().min());
        prop_assert_eq!(p.max(&ex), all().max());
        let keyed = p.enumerate();
        prop_assert_eq!(
            keyed.min_by_key(&ex, |(_, x)| x % m),
            all().enumerate().min_by_key(|(_, x)| x % m)
        );
        prop_assert_eq!(
            keyed.max_by_key(&ex, |(_, x)| x % m),
            all().enumerate().max_by_key(|(_, x)| x % m)
        );
        prop_assert_eq!(p.reduce_with(&ex, |a, b| a ^ b), all().reduce(|a, b| a ^ b));
        prop_assert_eq!(p.any(&ex, |x| x == target), all().any(|x| x == target));
        prop_assert_eq!(p.all(&ex, |x| x != target), all().all(|x| x != target));
        let hit = |x: &(usize, u64)| x.1 == target;
        prop_assert_eq!(keyed.find_first(&ex, hit), all().enumerate().find(hit));
        prop_assert_eq!(keyed.find_last(&ex, hit), all().enumerate().rfind(hit));
        let some = p.filter(|x| x % m != 0);
        let std_some: Vec<u64> = all().filter(|x| x % m != 0).collect();
        prop_assert_eq!(
            some.position_first(&ex, |x| x > target),
            std_some.iter().position(|&x| x > target)
        );
        prop_assert_eq!(
            some.position_last(&ex, |x| x > target),
            std_some.iter().rposition(|&x| x > target)
        );
        let step = |acc: u64, x: u64| {
            if x == target {
                Break(acc)
            } else {
                Continue(acc + x)
            }
        };
        prop_assert_eq!(
            p.try_fold(&ex, || 0, step, |a, b| a + b),
            all().try_fold(0, step)
        );
        Ok(())
    });
}

/// `collect` into a `Vec`, a `String`, a `HashMap` (the later value of a repeated key wins) and
/// a `Result` that stops at the first `Err` by index.
pub fn check_pipeline_collect<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_pipeline_collect_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_pipeline_collect`] through `&dyn Executor`, compiled once.
fn check_pipeline_collect_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (lengths(), basesizes(), 0u64..1100);
    run_property("pipeline collect", cases, |(len, bs, bad)| {
        let ex = make(bs);
        let data = items(len);
        let all = || data.iter().copied();
        let p = data.pipe().copied();
        let got: HashMap<u64, usize> = p.enumerate().map(|(i, x)| (x, i)).collect(&ex);
        prop_assert_eq!(
            got,
            all()
                .enumerate()
                .map(|(i, x)| (x, i))
                .collect::<HashMap<_, _>>()
        );
        let letter = |x: u64| char::from(b'a' + (x % 26) as u8);
        let got: String = p.map(letter).collect(&ex);
        prop_assert_eq!(got, all().map(letter).collect::<String>());
        let parse = |x: u64| if x == bad { Err(x) } else { Ok(x) };
        let got: Result<Vec<u64>, u64> = p.map(parse).collect(&ex);
        prop_assert_eq!(got, all().map(parse).collect::<Result<Vec<_>, _>>());
        Ok(())
    });
}

/// A panic in a pipeline's closure reaches the caller with its original payload; a panic at an
/// item after a `take_while` cut is never reached, as sequentially; the executor works after.
pub fn check_pipeline_panics<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_pipeline_panics_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_pipeline_panics`] through `&dyn Executor`, compiled once.
fn check_pipeline_panics_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (1usize..=3000, 0usize..3000, 0usize..3000, basesizes());
    run_property("pipeline panics", cases, |(len, at, cut, bs)| {
        let (at, cut) = (at % len, cut % len);
        let ex = make(bs);
        let raised = quietly(|| {
            (0..len)
                .pipe()
                .filter(|&i| {
                    if i == at {
                        std::panic::panic_any(Boom(i));
                    }
                    i % 2 == 0
                })
                .count(&ex)
        });
        let payload = raised.expect_err("a panic in a pipeline reaches the caller");
        prop_assert_eq!(payload.downcast_ref::<Boom>(), Some(&Boom(at)));
        // Sequentially the item after the cut stops the fold, and the ones after it (which
        // panic) are never reached.
        let cut_first = quietly(|| {
            (0..len)
                .pipe()
                .map(|i| {
                    if i > cut + 1 {
                        std::panic::panic_any(Boom(i))
                    } else {
                        i
                    }
                })
                .take_while(|&i| i <= cut)
                .sum::<usize>(&ex)
        });
        let want = (0..=cut).sum::<usize>();
        prop_assert_eq!(cut_first.ok(), Some(want));
        prop_assert_eq!((0..len).pipe().count(&ex), len);
        Ok(())
    });
}

/// Stateful stages (`dedup`, `unique`, `skip_while`) give `std`'s items wherever the
/// executor cuts, alone and between other stages (a `take_while` after them cuts at a random
/// item); `scan` with a non-commutative `op` gives `std`'s prefixes.
pub fn check_pipeline_stateful<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_pipeline_stateful_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_pipeline_stateful`] through `&dyn Executor`, compiled once.
fn check_pipeline_stateful_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (lengths(), basesizes(), 1u64..40, 0u64..1100);
    run_property(
        "pipeline stateful stages",
        cases,
        |(len, bs, modulus, limit)| {
            let ex = make(bs);
            let data: Vec<u64> = items(len).into_iter().map(|x| x % modulus).collect();
            let all = || data.iter().copied();
            let p = data.pipe().copied();
            let mut want: Vec<u64> = all().collect();
            want.dedup();
            prop_assert_eq!(p.dedup().collect::<Vec<_>>(&ex), want);
            let mut want: Vec<u64> = all().filter(|x| x % 3 != 0).collect();
            want.dedup();
            let want: Vec<u64> = want.into_iter().take_while(|&x| x * 30 < limit).collect();
            let got: Vec<u64> = p
                .filter(|x| x % 3 != 0)
                .dedup()
                .take_while(|&x| x * 30 < limit)
                .collect(&ex);
            prop_assert_eq!(got, want);
            let mut seen = HashSet::new();
            let want: Vec<u64> = all().filter(|&x| seen.insert(x)).collect();
            prop_assert_eq!(p.unique().collect::<Vec<_>>(&ex), want.clone());
            let want_first = want.iter().position(|&x| x * 30 >= limit);
            prop_assert_eq!(
                p.unique().position_first(&ex, |x| x * 30 >= limit),
                want_first
            );
            let skip = |x: &u64| x * 30 < limit;
            let want: Vec<u64> = all().skip_while(skip).collect();
            prop_assert_eq!(p.skip_while(skip).collect::<Vec<_>>(&ex), want);
            let mut want: Vec<u64> = all().skip_while(skip).collect();
            want.dedup();
            prop_assert_eq!(p.skip_while(skip).dedup().collect::<Vec<_>>(&ex), want);
            // Affine maps `x -> a * x + b`, composed left to right: associative, not commutative.
            let compose = |f: &(u64, u64), g: &(u64, u64)| {
                (
                    g.0.wrapping_mul(f.0),
                    g.0.wrapping_mul(f.1).wrapping_add(g.1),
                )
            };
            let maps = p.map(|x| (x | 1, x + modulus));
            let want: Vec<(u64, u64)> = all()
                .map(|x| (x | 1, x + modulus))
                .scan((1, 0), |acc, f| {
                    *acc = compose(acc, &f);
                    Some(*acc)
                })
                .collect();
            prop_assert_eq!(maps.scan(&ex, (1, 0), compose), want);
            Ok(())
        },
    );
}

/// In-place work: `for_each` over `&mut [T]`, `chunks_mut`, a map written into an output
/// slice, and a `Vec` by value give what the same loops give sequentially.
pub fn check_pipeline_in_place<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_pipeline_in_place_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_pipeline_in_place`] through `&dyn Executor`, compiled once.
fn check_pipeline_in_place_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (lengths(), basesizes(), 1usize..40);
    run_property("pipeline in place", cases, |(len, bs, size)| {
        let ex = make(bs);
        let data = items(len);
        let mut got = data.clone();
        (&mut got).pipe().for_each(&ex, |x| *x = *x * 3 + 1);
        let mut want = data.clone();
        want.iter_mut().for_each(|x| *x = *x * 3 + 1);
        prop_assert_eq!(&got, &want);
        (&mut got)
            .pipe()
            .chunks_mut(size)
            .enumerate()
            .for_each(&ex, |(i, c)| c.iter_mut().for_each(|x| *x ^= i as u64));
        want.chunks_mut(size)
            .enumerate()
            .for_each(|(i, c)| c.iter_mut().for_each(|x| *x ^= i as u64));
        prop_assert_eq!(&got, &want);
        let mut out = vec![0; len];
        data.pipe().zip(&mut out).for_each(&ex, |(x, o)| *o = x + 1);
        prop_assert_eq!(out, data.iter().map(|x| x + 1).collect::<Vec<_>>());
        let owned: Vec<String> = data.iter().map(u64::to_string).collect();
        let got: Vec<String> = foldex_pipeline::from_vec(owned.clone())
            .filter(|s| s.len() > 2)
            .collect(&ex);
        let want: Vec<String> = owned.into_iter().filter(|s| s.len() > 2).collect();
        prop_assert_eq!(got, want);
        Ok(())
    });
}

/// Every pipeline check, in turn.
pub fn check_pipelines<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_pipelines_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_pipelines`] through `&dyn Executor`, compiled once.
fn check_pipelines_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    check_pipeline_adapters_dyn(make);
    check_pipeline_transforms_dyn(make);
    check_pipeline_reductions_dyn(make);
    check_pipeline_collect_dyn(make);
    check_pipeline_stateful_dyn(make);
    check_pipeline_in_place_dyn(make);
    check_pipeline_panics_dyn(make);
}
