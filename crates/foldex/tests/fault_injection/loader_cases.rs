//! What the loader groups share: one erased view of owned and reused-buffer loaders, the
//! settings a case draws, a dataset that counts its loads, and the checks of an epoch.

use crate::{payload, ExecSpec, Payload, Rng};
use foldex::dataset::Dataset;
use foldex::dataset::VecCollate;
use foldex::from_fn;
use foldex::loader::Loadable;
use foldex::loader::{reuse::Reuse, reuse::Reused, Iter, LoaderState, ResumeError, Stats};
use foldex::prelude::*;
use foldex_testkit::Boom;
use std::collections::HashMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// An epoch's iterator, whatever its batch type; batches come out as `Vec<usize>`.
pub(crate) trait EpochIter {
    fn next_batch(&mut self) -> Option<Vec<usize>>;
    fn state(&self) -> LoaderState;
    fn failed_index(&self) -> Option<usize>;
    fn stats(&self) -> Stats;
    fn remaining(&self) -> usize;
    fn epoch(&self) -> u64;
}

impl EpochIter for Iter<Vec<usize>> {
    fn next_batch(&mut self) -> Option<Vec<usize>> {
        self.next()
    }
    fn state(&self) -> LoaderState {
        Iter::state(self)
    }
    fn failed_index(&self) -> Option<usize> {
        Iter::failed_index(self)
    }
    fn stats(&self) -> Stats {
        Iter::stats(self)
    }
    fn remaining(&self) -> usize {
        self.len()
    }
    fn epoch(&self) -> u64 {
        Iter::epoch(self)
    }
}

impl EpochIter for Iter<Reused<usize, Vec<usize>>> {
    fn next_batch(&mut self) -> Option<Vec<usize>> {
        self.next().map(|batch| batch.to_vec())
    }
    fn state(&self) -> LoaderState {
        Iter::state(self)
    }
    fn failed_index(&self) -> Option<usize> {
        Iter::failed_index(self)
    }
    fn stats(&self) -> Stats {
        Iter::stats(self)
    }
    fn remaining(&self) -> usize {
        self.len()
    }
    fn epoch(&self) -> u64 {
        Iter::epoch(self)
    }
}

/// A loader of `usize` observations in `Vec` batches, owned or in reused buffers.
pub(crate) trait AnyLoader {
    fn start(&self) -> Box<dyn EpochIter>;
    fn resume(&self, state: &LoaderState) -> Result<Box<dyn EpochIter>, ResumeError>;
    fn order(&self, epoch: u64) -> Vec<usize>;
    fn batches(&self) -> usize;
    fn next_epoch(&self) -> u64;
}

impl<D: Loadable<Item = usize> + 'static> AnyLoader for Loader<D> {
    fn start(&self) -> Box<dyn EpochIter> {
        Box::new(self.iter())
    }
    fn resume(&self, state: &LoaderState) -> Result<Box<dyn EpochIter>, ResumeError> {
        Ok(Box::new(Loader::<D>::resume(self, state)?))
    }
    fn order(&self, epoch: u64) -> Vec<usize> {
        self.epoch_order(epoch).iter().collect()
    }
    fn batches(&self) -> usize {
        self.len()
    }
    fn next_epoch(&self) -> u64 {
        Loader::next_epoch(self)
    }
}

impl<D: Loadable<Item = usize> + 'static> AnyLoader for Loader<D, VecCollate, Reuse> {
    fn start(&self) -> Box<dyn EpochIter> {
        Box::new(self.iter())
    }
    fn resume(&self, state: &LoaderState) -> Result<Box<dyn EpochIter>, ResumeError> {
        Ok(Box::new(Loader::<D, VecCollate, Reuse>::resume(
            self, state,
        )?))
    }
    fn order(&self, epoch: u64) -> Vec<usize> {
        self.epoch_order(epoch).iter().collect()
    }
    fn batches(&self) -> usize {
        self.len()
    }
    fn next_epoch(&self) -> u64 {
        Loader::next_epoch(self)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Buffers {
    Owned,
    Reuse { recycle: bool },
}

/// A loader's settings.
#[derive(Debug, Clone)]
pub(crate) struct LoaderSpec {
    executor: ExecSpec,
    pub(crate) len: usize,
    buffer: usize,
    pub(crate) batch_size: usize,
    pub(crate) ordered: bool,
    pub(crate) shuffle: Option<u64>,
    partial: bool,
    buffers: Buffers,
    /// `get` sleeps this many µs at this index.
    slow: Option<(usize, u64)>,
}

impl LoaderSpec {
    pub(crate) fn draw(rng: &mut Rng, max_len: usize) -> Self {
        let len = match rng.below(20) {
            0 => 0,
            1..=5 => rng.range(1, 10),
            _ => rng.range(11, max_len),
        };
        let buffer = if rng.chance(40) {
            rng.range(1, 4)
        } else {
            rng.range(1, 64)
        };
        let batch_size = rng.range(1, 9);
        let batches = len.div_ceil(batch_size);
        let buffers = match rng.below(10) {
            0..=6 => Buffers::Owned,
            _ => Buffers::Reuse {
                recycle: rng.chance(50),
            },
        };
        Self {
            executor: ExecSpec::draw(rng, batches),
            len,
            buffer,
            batch_size,
            ordered: rng.chance(50),
            shuffle: rng.chance(50).then(|| rng.next() % 1000),
            partial: rng.chance(50),
            buffers,
            slow: (len > 0 && rng.chance(20)).then(|| (rng.below(len), rng.range(20, 300) as u64)),
        }
    }

    pub(crate) fn build<D: Loadable<Item = usize> + 'static>(
        &self,
        dataset: D,
    ) -> Box<dyn AnyLoader> {
        let mut loader = Loader::new(dataset, self.executor.build())
            .buffer(self.buffer)
            .batch_size(self.batch_size)
            .ordered(self.ordered)
            .partial(self.partial);
        if let Some(seed) = self.shuffle {
            loader = loader.shuffle(seed);
        }
        match self.buffers {
            Buffers::Owned => Box::new(loader),
            Buffers::Reuse { recycle } => Box::new(loader.reuse_buffers(recycle)),
        }
    }

    /// The batches of an epoch whose order is `order`.
    pub(crate) fn expected(&self, order: &[usize]) -> Vec<Vec<usize>> {
        order
            .chunks(self.batch_size)
            .filter(|c| self.partial || <[usize]>::len(c) == self.batch_size)
            .map(<[usize]>::to_vec)
            .collect()
    }

    pub(crate) fn pause_if_slow(&self, i: usize) {
        if let Some((at, micros)) = self.slow
            && at == i
        {
            std::thread::sleep(Duration::from_micros(micros));
        }
    }
}

/// How many times `get` ran per index.
pub(crate) type Loads = Arc<Vec<AtomicUsize>>;

pub(crate) fn loads(len: usize) -> Loads {
    Arc::new((0..len).map(|_| AtomicUsize::new(0)).collect())
}

pub(crate) fn snapshot(loads: &Loads) -> Vec<usize> {
    loads.iter().map(|l| l.load(Ordering::SeqCst)).collect()
}

/// A dataset of `0..len` that counts its loads and panics once (`Boom(index)`) at every index
/// armed in `armed`, after sleeping `panic_delay` µs.
pub(crate) fn counted(
    spec: &LoaderSpec,
    loads: &Loads,
    armed: &Arc<Vec<AtomicBool>>,
    panic_delay: Option<u64>,
) -> impl Dataset<Item = usize> + 'static + use<> {
    let (spec, loads, armed) = (spec.clone(), Arc::clone(loads), Arc::clone(armed));
    from_fn(spec.len, move |i| {
        loads[i].fetch_add(1, Ordering::SeqCst);
        spec.pause_if_slow(i);
        if armed[i].swap(false, Ordering::SeqCst) {
            if let Some(micros) = panic_delay {
                std::thread::sleep(Duration::from_micros(micros));
            }
            panic::panic_any(Boom(i));
        }
        i
    })
}

pub(crate) fn unarmed(len: usize) -> Arc<Vec<AtomicBool>> {
    Arc::new((0..len).map(|_| AtomicBool::new(false)).collect())
}

/// What one epoch delivered before it ended, was stopped, or panicked.
pub(crate) struct EpochRun {
    pub(crate) got: Vec<Vec<usize>>,
    /// `next()` returned `None`.
    pub(crate) ended: bool,
    pub(crate) panic: Option<Payload>,
}

/// Takes at most `limit` batches (stops early at `None` or a panic, caught).
pub(crate) fn run_epoch(iter: &mut dyn EpochIter, limit: usize) -> EpochRun {
    let mut run = EpochRun {
        got: Vec::new(),
        ended: false,
        panic: None,
    };
    while run.got.len() < limit {
        match panic::catch_unwind(AssertUnwindSafe(|| iter.next_batch())) {
            Ok(Some(batch)) => run.got.push(batch),
            Ok(None) => {
                run.ended = true;
                break;
            }
            Err(p) => {
                run.panic = Some(payload(p));
                break;
            }
        }
    }
    run
}

/// Checks that `got` is a correct delivery of an epoch whose batches are `expected`: every
/// index at most once (exactly once when `complete`), whole batches of the epoch, each at most
/// once, and a prefix of the epoch when `ordered`.
pub(crate) fn check_delivery(
    expected: &[Vec<usize>],
    got: &[Vec<usize>],
    ordered: bool,
    complete: bool,
) -> Result<(), String> {
    let mut seen: HashMap<usize, usize> = HashMap::new();
    for &i in got.iter().flatten() {
        *seen.entry(i).or_default() += 1;
    }
    let mut dup: Vec<(usize, usize)> = seen
        .iter()
        .filter(|&(_, &c)| c > 1)
        .map(|(&i, &c)| (i, c))
        .collect();
    dup.sort_unstable();
    if !dup.is_empty() {
        return Err(format!(
            "indices delivered more than once (index, times): {dup:?}"
        ));
    }
    let allowed: std::collections::HashSet<usize> = expected.iter().flatten().copied().collect();
    let mut stray: Vec<usize> = seen
        .keys()
        .filter(|i| !allowed.contains(i))
        .copied()
        .collect();
    stray.sort_unstable();
    if !stray.is_empty() {
        return Err(format!(
            "indices delivered that no batch of the epoch holds: {stray:?}"
        ));
    }
    if complete {
        let mut lost: Vec<usize> = allowed
            .iter()
            .filter(|i| !seen.contains_key(i))
            .copied()
            .collect();
        lost.sort_unstable();
        if !lost.is_empty() {
            return Err(format!(
                "the epoch ended without delivering indices {lost:?}"
            ));
        }
    }
    if ordered {
        if let Some(k) = (0..got.len()).find(|&k| expected.get(k) != Some(&got[k])) {
            return Err(format!(
                "ordered delivery differs at batch {k}: got {:?}, the epoch's batch is {:?}",
                got[k],
                expected.get(k)
            ));
        }
    } else {
        let mut left: HashMap<&Vec<usize>, usize> = HashMap::new();
        for b in expected {
            *left.entry(b).or_default() += 1;
        }
        for b in got {
            match left.get_mut(b) {
                Some(n) if *n > 0 => *n -= 1,
                _ => {
                    return Err(format!(
                        "batch {b:?} is not a batch of the epoch (or came twice)"
                    ))
                }
            }
        }
    }
    if complete && got.len() != expected.len() {
        return Err(format!(
            "the epoch ended after {} batches; it has {}",
            got.len(),
            expected.len()
        ));
    }
    Ok(())
}

/// Checks the loads of one epoch (`after - before`): at most one per index, none for an index
/// in no batch (a dropped partial tail), and exactly one per index of the epoch when
/// `complete`.
pub(crate) fn check_loads(
    before: &[usize],
    after: &[usize],
    expected: &[Vec<usize>],
    complete: bool,
) -> Result<(), String> {
    let mut in_epoch = vec![false; before.len()];
    for &i in expected.iter().flatten() {
        in_epoch[i] = true;
    }
    for i in 0..before.len() {
        let n = after[i] - before[i];
        if n > 1 {
            return Err(format!("get({i}) ran {n} times in one epoch"));
        }
        if n == 1 && !in_epoch[i] {
            return Err(format!(
                "get({i}) ran, but index {i} is in no batch of the epoch (a dropped partial tail)"
            ));
        }
        if complete && in_epoch[i] && n == 0 {
            return Err(format!("the epoch ended, but get({i}) never ran"));
        }
    }
    Ok(())
}

pub(crate) fn check_order(spec: &LoaderSpec, order: &[usize]) -> Result<(), String> {
    let mut sorted = order.to_vec();
    sorted.sort_unstable();
    if sorted != (0..spec.len).collect::<Vec<_>>() {
        return Err(format!(
            "epoch_order is not a permutation of 0..{}: {order:?}",
            spec.len
        ));
    }
    if spec.shuffle.is_none() && order != sorted {
        return Err(format!(
            "epoch_order without shuffle is not 0..{}: {order:?}",
            spec.len
        ));
    }
    Ok(())
}
