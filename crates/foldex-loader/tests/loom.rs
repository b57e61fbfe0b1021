//! Model checks of the loader's channel: back pressure, the reorder window, helping, cancellation
//! and failure, over every interleaving.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p foldex-loader --release --test loom`.
//! The channel's producers yield and retry before they sleep; under loom they sleep at once,
//! so that these models check the sleeping protocol (the registration in the word the other
//! side changes) rather than the polling.
#![cfg(loom)]

use foldex_loader::channel::{Channel, Failure, Inbox, Maker, Recv};
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

/// Runs `f` over every interleaving with at most two preemptions (the usual bound: bugs that
/// need more are rare, and the full space of these models is too large to finish), unless
/// `LOOM_MAX_PREEMPTIONS` says otherwise.
fn model(f: impl Fn() + Sync + Send + 'static) {
    model_bounded(2, f);
}

/// Runs `f` over every interleaving with at most `preemptions` preemptions, unless
/// `LOOM_MAX_PREEMPTIONS` says otherwise.
fn model_bounded(preemptions: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(preemptions);
    }
    builder.check(f);
}

fn expect_item<T: std::fmt::Debug + PartialEq>(got: Recv<T>, want: T) {
    match got {
        Recv::Item(x) => assert_eq!(x, want),
        other => panic!("expected item {want:?}, got {other:?}"),
    }
}

/// Two producers finish batches 1 and 0 in any order into a window of one: the consumer gets
/// 0 then 1 then the end, and nobody sleeps through a wake-up.
#[test]
fn ordered_window_of_one_delivers_in_order_without_lost_wakeups() {
    model(|| {
        let ch = Arc::new(Channel::new(1, true, 2));
        let mut inbox = Inbox::default();
        let producers: Vec<_> = [1usize, 0]
            .into_iter()
            .map(|seq| {
                let ch = Arc::clone(&ch);
                thread::spawn(move || ch.push(seq, seq, true).unwrap())
            })
            .collect();
        expect_item(ch.recv(&mut inbox, || false), 0);
        expect_item(ch.recv(&mut inbox, || false), 1);
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Finished));
        for p in producers {
            p.join().unwrap();
        }
    });
}

/// Unordered, capacity one, one producer of three batches: each batch arrives exactly once.
#[test]
fn unordered_back_pressure_delivers_every_batch_once() {
    model(|| {
        let ch = Arc::new(Channel::new(1, false, 3));
        let mut inbox = Inbox::default();
        let producer = {
            let ch = Arc::clone(&ch);
            thread::spawn(move || (0..3).for_each(|i| ch.push(i, i, true).unwrap()))
        };
        for i in 0..3 {
            expect_item(ch.recv(&mut inbox, || false), i);
        }
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Finished));
        producer.join().unwrap();
    });
}

/// A producer waiting for room wakes when the consumer cancels, and gets its batch back.
#[test]
fn cancellation_wakes_a_blocked_producer() {
    model(|| {
        let ch = Arc::new(Channel::new(1, false, 3));
        let producer = {
            let ch = Arc::clone(&ch);
            thread::spawn(move || {
                // Fills the buffer, unless the cancel came first.
                let _ = ch.push(0, 0, true);
                // Waits for room until the cancel, unless the cancel came first.
                ch.push(1, 1, true)
            })
        };
        ch.cancel();
        assert_eq!(producer.join().unwrap(), Err(1));
        assert!(ch.is_stopped());
    });
}

/// While the consumer helps, a producer held back by the window goes on waiting (a helping
/// consumer never waits for it), the consumer's own batch never waits, and the producer wakes
/// once the consumer takes that batch and makes room.
#[test]
fn a_helping_consumer_makes_its_own_batch_and_room() {
    model(|| {
        let ch = Arc::new(Channel::new(1, true, 2));
        let mut inbox = Inbox::default();
        let producer = {
            let ch = Arc::clone(&ch);
            thread::spawn(move || ch.push(1, 1, true).unwrap())
        };
        let mut helped = false;
        let first = ch.recv(&mut inbox, || {
            if helped {
                return false;
            }
            helped = true;
            // The consumer computes batch 0 itself; it must not wait, whatever the window.
            ch.push(0, 0, false).unwrap();
            true
        });
        expect_item(first, 0);
        expect_item(ch.recv(&mut inbox, || false), 1);
        producer.join().unwrap();
    });
}

/// An ordered window of one, a producer with batches 0 and 2: the place of batch 1 frees only
/// once the consumer has batch 0, yet the helping consumer makes batch 1 while it waits (it
/// keeps nothing beside the ring yet), then helps no more while it keeps it; it receives 0, 1,
/// 2 in order, and the producer, waiting for room for 2, wakes when 1 leaves the overflow.
#[test]
fn a_helping_consumer_makes_one_batch_beyond_the_window() {
    model(|| {
        let ch = Arc::new(Channel::new(1, true, 3));
        let mut inbox = Inbox::default();
        let producer = spawn_pushes(&ch, vec![0, 2]);
        let mut calls = 0;
        let mut made = false;
        let first = ch.recv(&mut inbox, || {
            calls += 1;
            assert_eq!(
                calls, 1,
                "helped again while keeping a batch beside the ring"
            );
            // Skipped only when batch 0 is already there.
            if !ch.should_skip(1, Maker::Consumer) {
                ch.push(1, 1, false).unwrap();
                made = true;
                assert!(
                    ch.should_skip(2, Maker::Consumer),
                    "two batches beyond the window"
                );
            }
            true
        });
        expect_item(first, 0);
        if !made {
            // A later round: batch 1 has its place now.
            ch.push(1, 1, false).unwrap();
        }
        expect_item(ch.recv(&mut inbox, || false), 1);
        expect_item(ch.recv(&mut inbox, || false), 2);
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Finished));
        producer.join().unwrap();
    });
}

/// A failure reaches a consumer that is asleep, and wakes a producer that waits for room.
#[test]
fn failure_wakes_the_consumer_and_stops_producers() {
    model(|| {
        let ch = Arc::new(Channel::<usize>::new(1, true, 3));
        let mut inbox = Inbox::default();
        let waiting = {
            let ch = Arc::clone(&ch);
            thread::spawn(move || ch.push(2, 2, true))
        };
        let failing = {
            let ch = Arc::clone(&ch);
            thread::spawn(move || ch.fail(Failure::anywhere(Box::new("boom"))))
        };
        match ch.recv(&mut inbox, || false) {
            Recv::Failed(f) => assert_eq!(f.payload.downcast_ref::<&str>(), Some(&"boom")),
            other => panic!("expected the failure, got {other:?}"),
        }
        failing.join().unwrap();
        let _ = waiting.join().unwrap();
        assert_eq!(ch.push(0, 0, true), Err(0));
    });
}

/// A batch fails while the batch before it is still being pushed and one after it waits for
/// room: the consumer, asleep or not, gets the batch before it and then the failure; the one
/// after it is handed back.
#[test]
fn a_failure_comes_after_the_batches_below_its_cut() {
    model(|| {
        let ch = Arc::new(Channel::<usize>::new(1, true, 3));
        let mut inbox = Inbox::default();
        let producer = {
            let ch = Arc::clone(&ch);
            thread::spawn(move || {
                ch.push(0, 0, true).unwrap();
                ch.push(2, 2, true)
            })
        };
        let failing = {
            let ch = Arc::clone(&ch);
            thread::spawn(move || ch.fail_from(1, 1, Failure::anywhere(Box::new("one"))))
        };
        expect_item(ch.recv(&mut inbox, || false), 0);
        match ch.recv(&mut inbox, || false) {
            Recv::Failed(f) => assert_eq!(f.payload.downcast_ref::<&str>(), Some(&"one")),
            other => panic!("expected the failure, got {other:?}"),
        }
        failing.join().unwrap();
        assert_eq!(producer.join().unwrap(), Err(2));
    });
}

/// Unordered, the failure waits for the producers to finish: a batch below the cut pushed
/// after the failure still arrives before it.
#[test]
fn unordered_a_failure_waits_for_the_close() {
    model(|| {
        let ch = Arc::new(Channel::<usize>::new(1, false, 3));
        let mut inbox = Inbox::default();
        let producer = {
            let ch = Arc::clone(&ch);
            thread::spawn(move || {
                ch.fail_from(1, 1, Failure::anywhere(Box::new("one")));
                ch.push(0, 0, true).unwrap();
                ch.close();
            })
        };
        expect_item(ch.recv(&mut inbox, || false), 0);
        match ch.recv(&mut inbox, || false) {
            Recv::Failed(f) => assert_eq!(f.payload.downcast_ref::<&str>(), Some(&"one")),
            other => panic!("expected the failure, got {other:?}"),
        }
        producer.join().unwrap();
    });
}

/// Unordered, two producers, room for one: a producer takes a position only once there is
/// room, so one may sleep for room while the consumer sleeps for a batch; both batches still
/// arrive exactly once and nobody sleeps through a wake-up.
#[test]
fn unordered_two_producers_room_for_one() {
    model(|| {
        let ch = Arc::new(Channel::new(1, false, 2));
        let producers = [vec![0], vec![1]].map(|batches| spawn_pushes(&ch, batches));
        receive_all_once(&ch, 2, producers);
    });
}

/// A producer thread that pushes `batches` in turn.
fn spawn_pushes(ch: &Arc<Channel<usize>>, batches: Vec<usize>) -> thread::JoinHandle<()> {
    let ch = Arc::clone(ch);
    thread::spawn(move || {
        batches
            .into_iter()
            .for_each(|i| ch.push(i, i, true).unwrap())
    })
}

/// Receives `total` batches and the end, joins the producers, and checks that every batch
/// arrived exactly once.
fn receive_all_once<const N: usize>(
    ch: &Channel<usize>,
    total: usize,
    producers: [thread::JoinHandle<()>; N],
) {
    let mut inbox = Inbox::default();
    let mut got = Vec::new();
    for _ in 0..total {
        match ch.recv(&mut inbox, || false) {
            Recv::Item(x) => got.push(x),
            other => panic!("expected an item, got {other:?}"),
        }
    }
    assert!(matches!(ch.recv(&mut inbox, || false), Recv::Finished));
    for p in producers {
        p.join().unwrap();
    }
    got.sort_unstable();
    assert_eq!(got, (0..total).collect::<Vec<_>>());
}

/// A producer that finds no room for the next batch waits in `should_skip` before taking a
/// batch number (holding no batch, so it may sleep), and wakes once the consumer makes room.
fn producer_waits_for_room_before_its_ticket(ordered: bool) {
    model(move || {
        let ch = Arc::new(Channel::new(1, ordered, 2));
        let mut inbox = Inbox::default();
        ch.push(0, 0, true).unwrap();
        let waiting = {
            let ch = Arc::clone(&ch);
            thread::spawn(move || {
                // Batch 1 has no room until batch 0 is taken.
                assert!(!ch.should_skip(1, Maker::Producer));
                ch.push(1, 1, true).unwrap();
            })
        };
        expect_item(ch.recv(&mut inbox, || false), 0);
        expect_item(ch.recv(&mut inbox, || false), 1);
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Finished));
        waiting.join().unwrap();
    });
}

#[test]
fn ordered_producer_waits_for_room_before_its_ticket() {
    producer_waits_for_room_before_its_ticket(true);
}

#[test]
fn unordered_producer_waits_for_room_before_its_ticket() {
    producer_waits_for_room_before_its_ticket(false);
}

/// A cancel that races a push drops every batch: the buffered ones and one that lands after
/// the slots were emptied. Nothing is left behind in the channel.
#[test]
fn cancel_drops_buffered_and_late_batches() {
    model(|| {
        let token = std::sync::Arc::new(());
        let ch = Arc::new(Channel::new(2, false, 2));
        ch.push(0, std::sync::Arc::clone(&token), true).unwrap();
        let producer = {
            let ch = Arc::clone(&ch);
            let batch = std::sync::Arc::clone(&token);
            thread::spawn(move || drop(ch.push(1, batch, true)))
        };
        ch.cancel();
        producer.join().unwrap();
        assert_eq!(std::sync::Arc::strong_count(&token), 1);
    });
}

/// Unordered, two producers and room for two: producers holding finished batches sleep for a
/// free place, in whichever slot comes next, and every batch arrives once with nobody asleep at
/// the end.
#[test]
fn unordered_producers_sleeping_for_any_place_all_wake() {
    model(|| {
        let ch = Arc::new(Channel::new(2, false, 3));
        let producers = [vec![0, 1], vec![2]].map(|batches| spawn_pushes(&ch, batches));
        receive_all_once(&ch, 3, producers);
    });
}

/// Parcels of two batches, pushed out of order into a window of one place: the second parcel
/// waits until the consumer has taken the last batch of the first (the place is the parcel's
/// until then), and the batches arrive once each, in order.
#[test]
fn a_parcel_holds_its_place_until_its_last_batch_is_taken() {
    model(|| {
        let ch = Arc::new(Channel::with_parcels(1, 2, true, 2));
        let mut inbox = Inbox::with_capacity(2);
        let producers: Vec<_> = [1usize, 0]
            .into_iter()
            .map(|seq| {
                let ch = Arc::clone(&ch);
                thread::spawn(move || {
                    ch.push_all(seq, [2 * seq, 2 * seq + 1].into_iter(), true)
                        .unwrap()
                })
            })
            .collect();
        for want in 0..4 {
            expect_item(ch.recv(&mut inbox, || false), want);
        }
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Finished));
        for p in producers {
            p.join().unwrap();
        }
    });
}

/// Ordered parcels of two and one place, two producers running a slot's loop as `epoch.rs`
/// does: the one with the lead makes its parcel before there is room and sets it beside the
/// ring, then moves it into its place once the place frees, unless the consumer took it from
/// beside the ring first; the other waits for room before it takes a ticket. Every batch
/// arrives once, in order, the lead is given back each time, and both producers return.
///
/// Bounded to one preemption (unless `LOOM_MAX_PREEMPTIONS` says otherwise): at two this model
/// took over a minute of CPU, at one under 2 s. Each way the protocol can fail here is one
/// race between two threads: the lead's move of its parcel from the cell into its place
/// against the consumer's take from the cell (both under the cell's lock, decided by
/// `position`), the other producer's check for room against the consumer freeing the place,
/// a sleeper's registration against the wake; one preemption at the race's point reaches each,
/// and a thread that blocks or spins switches without spending the bound.
#[test]
fn ordered_parcels_the_lead_sets_its_parcel_aside() {
    model_bounded(1, || {
        const TICKETS: usize = 2;
        let ch = Arc::new(Channel::with_parcels(1, 2, true, TICKETS));
        let tickets = Arc::new(AtomicUsize::new(0));
        let producers: Vec<_> = (0..2)
            .map(|_| {
                let (ch, tickets) = (Arc::clone(&ch), Arc::clone(&tickets));
                thread::spawn(move || loop {
                    let next = tickets.load(Ordering::Relaxed);
                    if next >= TICKETS {
                        return;
                    }
                    let lead = ch.lead();
                    if lead.is_none() {
                        assert!(!ch.should_skip(next, Maker::Producer));
                    }
                    let t = tickets.fetch_add(1, Ordering::AcqRel);
                    if t >= TICKETS {
                        return;
                    }
                    let parcel = [2 * t, 2 * t + 1].into_iter();
                    match lead {
                        Some(lead) => ch.push_ahead(t, parcel, lead).unwrap(),
                        None => ch.push_all(t, parcel, true).unwrap(),
                    }
                })
            })
            .collect();
        // As the iterator does: `recv`, which may sleep, only when nothing is there.
        let mut inbox = Inbox::with_capacity(2);
        let mut next = || match ch.try_recv(&mut inbox) {
            Recv::Empty => ch.recv(&mut inbox, || false),
            other => other,
        };
        for want in 0..2 * TICKETS {
            expect_item(next(), want);
        }
        assert!(matches!(next(), Recv::Finished));
        for p in producers {
            p.join().unwrap();
        }
        assert!(ch.lead().is_some(), "the lead was given back");
    });
}

/// Unordered parcels of two, one place, and the place taken: producers make their parcels
/// without waiting first, then wait for the place with the parcel in hand. Every batch arrives
/// once, each parcel whole and in order, and nobody sleeps through the end.
///
/// Bounded to one preemption (unless `LOOM_MAX_PREEMPTIONS` says otherwise), as the ordered
/// model above: at two it took as long as that one (136 s and 135 s wall, one after the
/// other on a loaded machine), at one under 4 s of CPU. A producer sleeping
/// through the place's release, or two producers writing into one place, is one race between
/// a producer's claim of the place (or its registration as a sleeper) and the consumer's
/// release; one preemption there reaches it. Single batches sleeping for any place, with two
/// preemptions, are `unordered_producers_sleeping_for_any_place_all_wake`.
#[test]
fn unordered_parcels_wait_for_a_place_in_hand() {
    model_bounded(1, || {
        let ch = Arc::new(Channel::with_parcels(1, 2, false, 3));
        ch.push_all(0, [0, 1].into_iter(), true).unwrap();
        let producers: Vec<_> = (1..=2)
            .map(|seq| {
                let ch = Arc::clone(&ch);
                thread::spawn(move || {
                    assert!(!ch.should_skip(seq, Maker::Producer));
                    ch.push_all(seq, [2 * seq, 2 * seq + 1].into_iter(), true)
                        .unwrap();
                })
            })
            .collect();
        let mut inbox = Inbox::with_capacity(2);
        let mut got = Vec::new();
        while let Recv::Item(x) = ch.recv(&mut inbox, || false) {
            got.push(x);
        }
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Finished));
        for p in producers {
            p.join().unwrap();
        }
        for pair in got.chunks(2) {
            assert_eq!(pair[1], pair[0] + 1, "a parcel arrives whole: {got:?}");
        }
        got.sort_unstable();
        assert_eq!(got, (0..6).collect::<Vec<_>>());
    });
}
