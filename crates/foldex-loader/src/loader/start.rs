//! Starting an epoch: the checks before it, then its channel, its producers and its iterator.

use super::mode::PoolHook;
use super::{Iter, Loader};
use crate::byte_gate::{ByteGate, Measure};
use crate::channel::{Channel, Inbox, MAX_BATCHES, MAX_BUFFER};
use crate::elastic::{Deal, Remainder};
use crate::epoch::{spawn_driver, Epoch, ItemPlan, Plan};
use crate::error::IterError;
use crate::error::ResumeError;
use crate::loadable::Loadable;
use crate::order::{Batches, EpochOrder};
use crate::produce::Produce;
use crate::stall::{LoadAt, Naming};
use crate::state::{LoaderState, Received, Schedule};
use crate::stats::{BufferOrigin, EpochTally, Recorder};
use crate::transport::Transport;
use foldex_dataset::Shard;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl<D: Loadable, C, M> Loader<D, C, M> {
    /// The state at the start of epoch `epoch` (nothing received yet).
    pub(crate) fn initial_state(&self, epoch: u64) -> LoaderState {
        self.dealt_state(epoch, self.own_shard(), None)
    }

    /// This loader's shard, `(0, 1)` when it is not sharded.
    pub(super) fn own_shard(&self) -> (usize, usize) {
        self.settings.shard.unwrap_or((0, 1))
    }

    /// The positions of a whole epoch, before sharding.
    pub(super) fn sampler_len(&self) -> usize {
        self.settings.sampler.0.len(self.dataset.input_len())
    }

    /// The state at the start of epoch `epoch` of rank `shard` (a valid one, not necessarily
    /// this loader's) with this loader's settings, whose part is its shard of `remainder` (of
    /// the whole epoch when `None`).
    pub(super) fn dealt_state(
        &self,
        epoch: u64,
        shard: (usize, usize),
        remainder: Option<&Remainder>,
    ) -> LoaderState {
        LoaderState {
            seed: self.settings.sampler.0.seed(),
            epoch,
            next_batch: 0,
            received_above: Vec::new(),
            batch_size: self.settings.batch_size.get(),
            len: self.batches_of(shard, remainder).len,
            shard: Some(shard),
            sampler: Some(self.settings.sampler.0.name().to_owned()),
            remainder: remainder.cloned(),
            epoch_len: Some(self.sampler_len()),
        }
    }

    /// The batches of rank `shard` (a valid one) when its part is its shard of `remainder`.
    pub(super) fn batches_of(
        &self,
        shard: (usize, usize),
        remainder: Option<&Remainder>,
    ) -> Batches {
        let sharding = (shard != (0, 1)).then(|| Shard::new(shard.0, shard.1, self.settings.tail));
        Batches {
            len: Deal::len(sharding, remainder, self.sampler_len()),
            ..self.batches()
        }
    }

    /// Refuses an epoch whose batches the channel cannot number, or whose buffer it cannot
    /// make: the places of an epoch's buffer are made when it starts, as many as the buffer
    /// or the epoch's batches, whichever is fewer.
    fn check_size(&self) -> Result<(), IterError> {
        let batches = self.batches().count();
        if batches > MAX_BATCHES {
            return Err(IterError::TooManyBatches {
                batches,
                batch_size: self.settings.batch_size.get(),
            });
        }
        let buffer = self.buffer_size();
        if buffer.min(batches) > MAX_BUFFER {
            return Err(IterError::BufferTooLarge { buffer, batches });
        }
        Ok(())
    }

    /// Claims the next epoch and starts it with `start`, or refuses, before the epoch number is
    /// taken, on a worker thread of the loader's own executor (that thread would wait for
    /// batches that the pool, with one worker fewer, may never compute) or for an epoch too
    /// large ([`Loader::check_size`]); or refuses when no epoch number is left.
    pub(super) fn begin_next_epoch<B>(
        &self,
        start: impl FnOnce(&LoaderState, EpochOrder) -> Iter<B>,
    ) -> Result<Iter<B>, IterError> {
        if self.executor.is_worker_thread() {
            return Err(IterError::InsideExecutorPool);
        }
        self.check_size()?;
        // The order is checked before its epoch number is taken, so that a refused order
        // leaves the number to the next try; if another thread took it meanwhile, the next
        // number's order is made instead.
        let (epoch, order) = loop {
            let epoch = self.next_epoch.load(Ordering::Relaxed);
            let next = epoch.checked_add(1).ok_or(IterError::LastEpoch)?;
            let order = self.checked_order(epoch)?;
            if self
                .next_epoch
                .compare_exchange(epoch, next, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                break (epoch, order);
            }
        };
        Ok(start(&self.initial_state(epoch), order))
    }

    /// Checks `state`, claims its epoch (the next one is the epoch after it) and starts it
    /// with `start`.
    ///
    /// # Panics
    /// On a worker thread of the loader's own executor, or for an epoch too large (see
    /// [`Loader::try_iter`]).
    #[track_caller]
    pub(super) fn resumed_epoch<B>(
        &self,
        state: &LoaderState,
        start: impl FnOnce(&LoaderState, EpochOrder) -> Iter<B>,
    ) -> Result<Iter<B>, ResumeError> {
        if let Err(e) = self.check_size() {
            panic!("{e}");
        }
        if self.executor.is_worker_thread() {
            panic!("{}", IterError::InsideExecutorPool);
        }
        let own = self.own_shard();
        if let Some(remainder) = &state.remainder {
            remainder.check(self.sampler_len())?;
        }
        // A state of a whole epoch (unsharded, or merged from a world's states) that has
        // received nothing of it is dealt to this loader's shard (see `elastic.rs`).
        let dealt;
        let whole =
            state.shard == Some((0, 1)) && state.next_batch == 0 && state.received_above.is_empty();
        let state = if whole && own != (0, 1) {
            state.check(&self.dealt_state(state.epoch, (0, 1), state.remainder.as_ref()))?;
            dealt = self.dealt_state(state.epoch, own, state.remainder.as_ref());
            &dealt
        } else {
            state
        };
        state.check(&self.dealt_state(state.epoch, own, state.remainder.as_ref()))?;
        Schedule::after(
            state,
            self.batches_of(own, state.remainder.as_ref()).count(),
        )?;
        let order = self
            .checked_order(state.epoch)
            .unwrap_or_else(|e| panic!("{e}"));
        // `check` refused `u64::MAX`.
        self.next_epoch.store(state.epoch + 1, Ordering::Relaxed);
        Ok(start(state, order))
    }

    /// Starts epoch `state.epoch` after what `state` says was received, making batches with
    /// `producer` and measuring them with `measure` for the byte cap, if one is set. The caller
    /// has checked that this thread may iterate.
    pub(super) fn start<P: Produce + 'static>(
        &self,
        state: &LoaderState,
        order: EpochOrder,
        measure: Option<Measure<P::Out>>,
        producer: impl FnOnce(usize, Option<&Arc<ByteGate>>) -> (P, Option<Arc<dyn PoolHook>>),
    ) -> Iter<P::Out>
    where
        P::Out: 'static,
    {
        let batches = self.batches_of(self.own_shard(), state.remainder.as_ref());
        let schedule = Schedule::after(state, batches.count())
            .expect("a checked state names batches of the epoch");
        let total = schedule.count(batches.count());
        let (buffer, origin) = self.planned_buffer();
        let bytes = self
            .settings
            .max_buffer_bytes
            .zip(measure)
            .map(|(cap, measure)| {
                let gate = ByteGate::new(cap.get(), self.settings.ordered);
                (Arc::new(gate), measure)
            });
        let Transport { parcel, cheap } = self.cost.plan::<P>(buffer, bytes.is_some());
        // No more places than the epoch has parcels: a place beyond them would never be used.
        let tickets = total.div_ceil(parcel);
        let places = (buffer / parcel).min(tickets).max(1);
        let channel = Arc::new(
            Channel::with_parcels(places, parcel, self.settings.ordered, tickets).patient(cheap),
        );
        // What this epoch's buffer can hold, in batches.
        let capacity = buffer.min(total).max(1);
        let workers = self.executor.workers();
        let recorder = Arc::new(Recorder::new(workers.saturating_add(2)));
        let received = Received::new(&schedule);
        // Producers hold one buffer each, at most: the executor's workers (no more of them than
        // there are batches), the driver thread and the helping consumer.
        let gate = bytes.as_ref().map(|(gate, _)| gate);
        let (producer, pool) = producer(capacity + workers.min(total) + 2, gate);
        // A stream loader's window loads items of the stream's epoch.
        let items_epoch = self.settings.window.map_or(state.epoch, |(epoch, _)| epoch);
        let driver = (total > 0).then(|| {
            let plan = Plan {
                order,
                deal: Deal {
                    shard: self.sharding(),
                    remainder: state.remainder.clone().map(Arc::new),
                },
                batches,
                schedule,
                parcel,
                cost: Arc::clone(&self.cost),
                timing: self.settings.diagnostics,
                items: ItemPlan {
                    epoch: items_epoch,
                    offset: self.settings.window.map_or(0, |(_, offset)| offset),
                    seed: self.item_seed(),
                    init: self.worker_init.clone(),
                    watch: self.settings.watch.as_ref().map(|watch| {
                        let named = match self.settings.window {
                            Some(_) => LoadAt::Position,
                            None => LoadAt::Index,
                        };
                        (Arc::clone(&watch.in_flight), named as Naming)
                    }),
                },
                bytes: bytes.clone(),
            };
            let producers = Epoch::new(producer, plan, Arc::clone(&channel), Arc::clone(&recorder));
            spawn_driver(Arc::new(producers), Arc::clone(&self.executor))
        });
        Iter {
            channel,
            inbox: Inbox::with_capacity(parcel),
            driver,
            executor: Arc::clone(&self.executor),
            pool,
            remaining: total,
            total,
            watch: self
                .settings
                .watch
                .clone()
                .map(|watch| (watch, items_epoch)),
            stall: None,
            abandoned: 0,
            finished: false,
            failed_index: None,
            received,
            fresh: self.dealt_state(state.epoch, self.own_shard(), state.remainder.as_ref()),
            tally: EpochTally::new(
                recorder,
                (capacity, origin),
                parcel,
                self.settings.diagnostics,
            )
            .with_bytes(bytes.as_ref().map(|(gate, _)| Arc::clone(gate))),
            // Only the default buffer is tuned, and only from an epoch that starts with it whole.
            tuner: (origin != BufferOrigin::Set
                && total == batches.count()
                && state.remainder.is_none())
            .then(|| (Arc::clone(&self.tuner), self.default_buffer())),
            bytes,
        }
    }
}
