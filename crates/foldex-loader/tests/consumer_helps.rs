//! With `TaskPoolEx` in foreground mode, the consumer that finds its buffer empty loads items
//! itself: the loader's driver thread only stands in for it, so the caller's slot of each fold
//! goes to the consumer, not to the driver. In background mode the consumer loads nothing.
//! Either way every item arrives exactly once, and a single task never hangs.

use foldex_core::Basesize;
use foldex_dataset::from_fn;
use foldex_loader::Loader;
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};
use std::time::Duration;

const ITEMS: usize = 120;

/// Where one `get` ran.
struct Load {
    index: usize,
    thread: ThreadId,
    name: Option<String>,
}

/// What one epoch showed: the items in the order delivered, and where each `get` ran.
struct Epoch {
    consumer: ThreadId,
    delivered: Vec<usize>,
    loads: Vec<Load>,
}

impl Epoch {
    fn on_consumer(&self) -> usize {
        self.loads
            .iter()
            .filter(|l| l.thread == self.consumer)
            .count()
    }

    /// `get`s on the loader's own driver thread (named `foldex-loader`).
    fn on_driver(&self) -> usize {
        self.loads
            .iter()
            .filter(|l| l.thread != self.consumer && l.name.as_deref() == Some("foldex-loader"))
            .count()
    }

    /// Every index delivered once, and loaded once.
    fn assert_exactly_once(&self, what: &str, ordered: bool) {
        let all: Vec<usize> = (0..ITEMS).collect();
        let mut delivered = self.delivered.clone();
        if ordered {
            assert_eq!(delivered, all, "{what}: ordered delivery");
        }
        delivered.sort_unstable();
        assert_eq!(delivered, all, "{what}: every item delivered exactly once");
        let mut loaded: Vec<usize> = self.loads.iter().map(|l| l.index).collect();
        loaded.sort_unstable();
        assert_eq!(loaded, all, "{what}: every item loaded exactly once");
    }
}

/// One epoch of `ITEMS` items that sleep about 1 ms each, consumed as fast as they come.
fn one_epoch(pool: TaskPoolEx, ordered: bool) -> Epoch {
    let loads = Arc::new(Mutex::new(Vec::with_capacity(ITEMS)));
    let record = Arc::clone(&loads);
    let loader = Loader::new(
        from_fn(ITEMS, move |index| {
            thread::sleep(Duration::from_millis(1));
            let me = thread::current();
            record.lock().unwrap().push(Load {
                index,
                thread: me.id(),
                name: me.name().map(str::to_owned),
            });
            index
        }),
        pool,
    )
    .ordered(ordered);
    let delivered = loader.iter().flatten().collect();
    let loads = std::mem::take(&mut *loads.lock().unwrap());
    Epoch {
        consumer: thread::current().id(),
        delivered,
        loads,
    }
}

#[test]
fn in_foreground_mode_the_consumer_loads_items_and_the_driver_none() {
    watchdog("consumer helps", || {
        // Automatic chunks (of one slot, when the caller stands in), and fixed ones: a help
        // takes one chunk, so with chunks of 8 slots the consumer has fewer to take.
        let fixed = |n| Basesize::Fixed(NonZeroUsize::new(n).unwrap());
        for basesize in [Basesize::Auto, fixed(1), fixed(8)] {
            for ordered in [true, false] {
                let pool = TaskPoolEx::new()
                    .ntasks(2)
                    .with_basesize(basesize)
                    .background(false);
                let epoch = one_epoch(pool, ordered);
                let what = format!("foreground, basesize {basesize}, ordered = {ordered}");
                epoch.assert_exactly_once(&what, ordered);
                assert!(
                    epoch.on_consumer() > 0,
                    "{what}: the consumer found its buffer empty yet never loaded an item"
                );
                // The driver stands in for the consumer: it runs a fold's chunks only when
                // the fold has a single one (a last round with one chunk's batches left),
                // never the bulk.
                let one_chunk = match basesize {
                    Basesize::Auto => 1,
                    Basesize::Fixed(n) => n.get(),
                };
                assert!(
                    epoch.on_driver() <= one_chunk,
                    "{what}: the driver thread loaded {} items, taking the consumer's slot",
                    epoch.on_driver()
                );
            }
        }
    });
}

#[test]
fn in_background_mode_the_consumer_loads_nothing() {
    watchdog("background", || {
        for ordered in [true, false] {
            let epoch = one_epoch(TaskPoolEx::new().ntasks(2).background(true), ordered);
            let what = format!("background, ordered = {ordered}");
            epoch.assert_exactly_once(&what, ordered);
            assert_eq!(
                epoch.on_consumer(),
                0,
                "{what}: an item loaded on the consumer"
            );
            assert_eq!(epoch.on_driver(), 0, "{what}: an item loaded on the driver");
        }
    });
}

#[test]
fn a_single_foreground_task_does_not_hang() {
    // With one task there is no worker slot to fall back on: the driver runs chunks itself
    // (the consumer runs some beside it while it waits), so the epoch never waits for the
    // consumer to help.
    watchdog("ntasks = 1", || {
        for ordered in [true, false] {
            let pool = TaskPoolEx::new().ntasks(1).background(false);
            let epoch = one_epoch(pool.clone(), ordered);
            epoch.assert_exactly_once(&format!("ntasks = 1, ordered = {ordered}"), ordered);
            // A second epoch on the same pool, cut short: dropping the iterator mid-epoch
            // must return too.
            let loader = Loader::new(
                from_fn(ITEMS, |i| {
                    thread::sleep(Duration::from_millis(1));
                    i
                }),
                pool,
            )
            .ordered(ordered);
            let first: Vec<usize> = loader.iter().flatten().take(10).collect();
            assert_eq!(first.len(), 10);
        }
    });
}

#[test]
fn many_short_epochs_with_small_buffers_deliver_everything() {
    // Small buffers make the pool's worker leave batches for a later round while the
    // consumer helps; every round must still end, and every item arrive once.
    watchdog("small buffers", || {
        for ntasks in [1, 2, 3] {
            for buffer in [1, 2, 4] {
                for ordered in [true, false] {
                    let loader = Loader::new(
                        from_fn(300, |i| {
                            if i % 4 == 0 {
                                thread::sleep(Duration::from_micros(200));
                            }
                            i
                        }),
                        TaskPoolEx::new().ntasks(ntasks).basesize(1),
                    )
                    .buffer(buffer)
                    .ordered(ordered);
                    for _epoch in 0..3 {
                        let mut got: Vec<usize> = loader.iter().flatten().collect();
                        if !ordered {
                            got.sort_unstable();
                        }
                        assert_eq!(
                            got,
                            (0..300).collect::<Vec<_>>(),
                            "ntasks = {ntasks}, buffer = {buffer}, ordered = {ordered}"
                        );
                    }
                }
            }
        }
    });
}

/// One ordered epoch of `items` items of `cost` each on a foreground pool: how many items ran
/// on the consumer's thread, what was delivered, and how long the consumer waited in `next()`.
fn helping_epoch(
    items: usize,
    cost: Duration,
    ntasks: usize,
    buffer: usize,
    ordered: bool,
) -> (usize, Vec<usize>, Duration, Duration) {
    let threads = Arc::new(Mutex::new(Vec::with_capacity(items)));
    let record = Arc::clone(&threads);
    let loader = Loader::new(
        from_fn(items, move |i| {
            thread::sleep(cost);
            record.lock().unwrap().push(thread::current().id());
            i
        }),
        TaskPoolEx::new()
            .ntasks(ntasks)
            .basesize(1)
            .background(false),
    )
    .buffer(buffer)
    .ordered(ordered);
    let started = std::time::Instant::now();
    let mut iter = loader.iter();
    let delivered: Vec<usize> = iter.by_ref().flatten().collect();
    let wall = started.elapsed();
    let waited = iter.stats().consumer_waited;
    let me = thread::current().id();
    let on_consumer = threads.lock().unwrap().iter().filter(|&&t| t == me).count();
    (on_consumer, delivered, waited, wall)
}

#[test]
fn a_helping_consumer_helps_with_an_ordered_buffer_of_one() {
    // With an ordered buffer of 1 the place of every batch after the next one is taken until
    // the consumer has the next one, so a consumer that helped only into free places never
    // would. It may make one batch beyond the window instead.
    watchdog("ordered buffer 1 helps", || {
        let (on_consumer, delivered, waited, wall) =
            helping_epoch(200, Duration::from_millis(2), 2, 1, true);
        eprintln!(
            "ntasks 2, buffer 1, ordered: {on_consumer} of 200 items on the consumer, \
             waited {waited:?} of {wall:?}"
        );
        assert_eq!(delivered, (0..200).collect::<Vec<_>>());
        assert!(
            on_consumer > 0,
            "the consumer waited {waited:?} and never loaded an item"
        );
    });
}

#[test]
fn a_helping_consumer_helps_for_every_ntasks_and_buffer() {
    watchdog("every ntasks and buffer", || {
        for ntasks in [1, 2, 3] {
            for buffer in [1, 2, 3, 8] {
                for ordered in [true, false] {
                    let (on_consumer, mut delivered, waited, wall) =
                        helping_epoch(60, Duration::from_millis(2), ntasks, buffer, ordered);
                    let what = format!("ntasks {ntasks}, buffer {buffer}, ordered {ordered}");
                    eprintln!("{what}: {on_consumer} of 60 on the consumer, waited {waited:?} of {wall:?}");
                    if !ordered {
                        delivered.sort_unstable();
                    }
                    assert_eq!(delivered, (0..60).collect::<Vec<_>>(), "{what}");
                    assert!(
                        on_consumer > 0,
                        "{what}: the consumer waited {waited:?} and never loaded an item"
                    );
                }
            }
        }
    });
}
