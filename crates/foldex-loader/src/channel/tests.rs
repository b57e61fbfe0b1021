//! Unit tests of the channel's protocol, one behaviour each; `tests/loom.rs` model-checks it.

use super::*;
use std::sync::Arc;
use std::thread;

fn drain<T>(ch: &Channel<T>) -> Vec<T> {
    drain_with(ch, &mut Inbox::default())
}

#[test]
fn ordered_delivers_in_sequence_whatever_the_push_order() {
    let ch = Channel::new(4, true, 4);
    for seq in [3, 1, 0, 2] {
        ch.push(seq, seq, true).unwrap();
    }
    assert_eq!(drain(&ch), vec![0, 1, 2, 3]);
}

#[test]
fn unordered_is_first_in_first_out() {
    let ch = Channel::new(3, false, 3);
    for seq in [2, 0, 1] {
        ch.push(seq, seq, true).unwrap();
    }
    assert_eq!(drain(&ch), vec![2, 0, 1]);
}

#[test]
fn empty_epoch_is_finished_at_once() {
    let ch = Channel::<u8>::new(1, true, 0);
    let mut inbox = Inbox::default();
    assert!(matches!(ch.try_recv(&mut inbox), Recv::Finished));
}

#[test]
fn a_full_channel_makes_producers_wait_until_the_consumer_takes() {
    let ch = Arc::new(Channel::new(2, false, 100));
    let producer = {
        let ch = Arc::clone(&ch);
        thread::spawn(move || (0..100).for_each(|i| ch.push(i, i, true).unwrap()))
    };
    let got = drain(&ch);
    producer.join().unwrap();
    assert_eq!(got, (0..100).collect::<Vec<_>>());
}

#[test]
fn ordered_window_holds_back_batches_beyond_it() {
    let ch = Arc::new(Channel::new(1, true, 2));
    let mut inbox = Inbox::default();
    let ahead = {
        let ch = Arc::clone(&ch);
        thread::spawn(move || ch.push(1, 1, true))
    };
    // Batch 1 is outside the window of one until batch 0 is taken.
    thread::sleep(std::time::Duration::from_millis(20));
    assert!(matches!(ch.try_recv(&mut inbox), Recv::Empty));
    ch.push(0, 0, true).unwrap();
    assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(0)));
    ahead.join().unwrap().unwrap();
    assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(1)));
    assert!(matches!(ch.recv(&mut inbox, || false), Recv::Finished));
}

#[test]
fn cancel_wakes_waiting_producers_and_hands_back_their_batches() {
    let ch = Arc::new(Channel::new(1, false, 10));
    ch.push(0, 0, true).unwrap();
    let blocked = {
        let ch = Arc::clone(&ch);
        thread::spawn(move || ch.push(1, 1, true))
    };
    thread::sleep(std::time::Duration::from_millis(20));
    ch.cancel();
    assert_eq!(blocked.join().unwrap(), Err(1));
    assert_eq!(ch.push(2, 2, true), Err(2));
    assert!(ch.is_stopped());
}

#[test]
fn a_failure_reaches_the_consumer_first() {
    let ch = Channel::new(4, false, 4);
    let mut inbox = Inbox::default();
    ch.push(0, 0, true).unwrap();
    ch.fail(Failure::anywhere(Box::new("boom")));
    match ch.recv(&mut inbox, || false) {
        Recv::Failed(f) => assert_eq!(f.payload.downcast_ref::<&str>(), Some(&"boom")),
        _ => panic!("expected the failure"),
    }
}

/// The payload of `received`, which must be a failure.
fn failed_with(received: Recv<usize>) -> &'static str {
    match received {
        Recv::Failed(f) => f.payload.downcast_ref::<&str>().expect("a &str payload"),
        other => panic!("expected the failure, got {other:?}"),
    }
}

#[test]
fn ordered_a_failure_comes_after_every_batch_below_its_cut() {
    let ch = Arc::new(Channel::new(2, true, 6));
    let mut inbox = Inbox::default();
    ch.push(0, 0, true).unwrap();
    // Batch 3 waits for room; the failure at 2 ends its wait and hands it back.
    let beyond = {
        let ch = Arc::clone(&ch);
        thread::spawn(move || ch.push(3, 3, true))
    };
    thread::sleep(std::time::Duration::from_millis(20));
    ch.fail_from(2, 2, Failure::anywhere(Box::new("two")));
    assert_eq!(beyond.join().unwrap(), Err(3));
    assert!(ch.is_stopping() && !ch.is_stopped());
    assert!(ch.drops(2) && !ch.drops(1));
    assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(0)));
    // Batch 1 is still to come, and comes.
    assert!(matches!(ch.try_recv(&mut inbox), Recv::Empty));
    ch.push(1, 1, true).unwrap();
    assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(1)));
    assert_eq!(failed_with(ch.recv(&mut inbox, || false)), "two");
}

#[test]
fn unordered_a_failure_comes_once_the_producers_are_done_and_every_batch_is_taken() {
    let ch = Channel::new(4, false, 6);
    let mut inbox = Inbox::default();
    ch.push(3, 3, true).unwrap();
    ch.fail_from(2, 2, Failure::anywhere(Box::new("two")));
    assert_eq!(ch.push(4, 4, true), Err(4));
    ch.push(1, 1, true).unwrap();
    assert!(matches!(ch.try_recv(&mut inbox), Recv::Item(3)));
    assert!(matches!(ch.try_recv(&mut inbox), Recv::Item(1)));
    // Batch 0 may still come until the producers are done.
    assert!(matches!(ch.try_recv(&mut inbox), Recv::Empty));
    ch.push(0, 0, true).unwrap();
    ch.close();
    assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(0)));
    assert_eq!(failed_with(ch.recv(&mut inbox, || false)), "two");
}

#[test]
fn the_earliest_failing_batch_wins_whatever_the_order_of_the_failures() {
    let ch = Channel::new(4, true, 6);
    let mut inbox = Inbox::default();
    // Parcels of one batch: rank and cut agree, except that a later batch of a parcel shares
    // its cut with the next parcel's first batch.
    ch.fail_from(3, 4, Failure::anywhere(Box::new("rank four")));
    ch.fail_from(3, 3, Failure::anywhere(Box::new("rank three")));
    ch.fail_from(3, 5, Failure::anywhere(Box::new("rank five")));
    ch.fail_from(4, 6, Failure::anywhere(Box::new("rank six")));
    for seq in 0..3 {
        ch.push(seq, seq, true).unwrap();
    }
    assert_eq!(
        drain_until_failure(&ch, &mut inbox),
        ([0, 1, 2].into(), "rank three")
    );
    // Taken once; a later failure is dropped.
    ch.fail_from(0, 0, Failure::anywhere(Box::new("after")));
    assert!(matches!(ch.try_recv(&mut inbox), Recv::Empty));
}

fn drain_until_failure(
    ch: &Channel<usize>,
    inbox: &mut Inbox<usize>,
) -> (Vec<usize>, &'static str) {
    let mut out = Vec::new();
    loop {
        match ch.recv(inbox, || false) {
            Recv::Item(x) => out.push(x),
            other => return (out, failed_with(other)),
        }
    }
}

#[test]
fn closing_early_is_reported_as_incomplete() {
    let ch = Channel::new(4, true, 3);
    let mut inbox = Inbox::default();
    ch.push(0, 0, true).unwrap();
    ch.close();
    assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(0)));
    assert!(matches!(ch.recv(&mut inbox, || false), Recv::Incomplete));
}

#[test]
fn batches_the_consumer_makes_never_wait() {
    let ch = Channel::new(1, true, 3);
    let mut inbox = Inbox::default();
    let mut pushed = false;
    let got = ch.recv(&mut inbox, || {
        if pushed {
            return false;
        }
        pushed = true;
        // No room for batch 1, but nothing beside the ring yet: the consumer may make it.
        assert!(!ch.should_skip(1, Maker::Consumer));
        // Batch 1 is beyond the window of one, yet the consumer's own push does not wait.
        ch.push(1, 1, false).unwrap();
        // Now it keeps one beyond the window: it leaves batch 2 for later.
        assert!(ch.should_skip(2, Maker::Consumer));
        ch.push(0, 0, false).unwrap();
        true
    });
    assert!(matches!(got, Recv::Item(0)));
    assert!(matches!(ch.try_recv(&mut inbox), Recv::Item(1)));
    // Batch 2's place is free again once batch 1 left the overflow.
    ch.push(2, 2, true).unwrap();
    assert!(matches!(ch.try_recv(&mut inbox), Recv::Item(2)));
    assert!(matches!(ch.try_recv(&mut inbox), Recv::Finished));
}
#[test]
fn a_parcel_arrives_batch_by_batch_in_order_and_holds_its_place_until_emptied() {
    let ch = Arc::new(Channel::with_parcels(1, 3, true, 2));
    let mut inbox = Inbox::with_capacity(3);
    ch.push_all(0, [10, 11, 12].into_iter(), true).unwrap();
    let next = {
        let ch = Arc::clone(&ch);
        thread::spawn(move || ch.push_all(1, [13, 14].into_iter(), true).unwrap())
    };
    assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(10)));
    assert!(matches!(ch.try_recv(&mut inbox), Recv::Item(11)));
    // The place is still the first parcel's: the second cannot be in it yet.
    thread::sleep(std::time::Duration::from_millis(20));
    assert!(!ch.ring.holds(1));
    assert!(matches!(ch.try_recv(&mut inbox), Recv::Item(12)));
    next.join().unwrap();
    assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(13)));
    assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(14)));
    assert!(matches!(ch.recv(&mut inbox, || false), Recv::Finished));
}

#[test]
fn a_parcel_the_consumer_put_aside_keeps_its_order() {
    let ch = Channel::with_parcels(1, 2, true, 3);
    let mut inbox = Inbox::with_capacity(2);
    // Parcel 0 waits in the ring; parcels 2 and 1, made on the consumer's thread without
    // room, go beside it.
    ch.push_all(0, [0, 1].into_iter(), true).unwrap();
    ch.push_all(2, [4, 5].into_iter(), false).unwrap();
    ch.push_all(1, [2, 3].into_iter(), false).unwrap();
    assert_eq!(drain_with(&ch, &mut inbox), vec![0, 1, 2, 3, 4, 5]);
}

#[test]
fn a_stop_drops_the_parcels_in_the_ring() {
    let token = Arc::new(());
    let ch = Channel::with_parcels(2, 2, false, 4);
    let mut inbox = Inbox::with_capacity(2);
    let parcel = || [Arc::clone(&token), Arc::clone(&token)].into_iter();
    ch.push_all(0, parcel(), true).unwrap();
    ch.push_all(1, parcel(), true).unwrap();
    assert!(matches!(ch.try_recv(&mut inbox), Recv::Item(_)));
    ch.cancel();
    assert!(ch.push_all(2, parcel(), true).is_err());
    // The consumer's inbox holds the rest of its parcel; nothing else is left.
    drop(inbox);
    assert_eq!(Arc::strong_count(&token), 1);
}

fn drain_with<T>(ch: &Channel<T>, inbox: &mut Inbox<T>) -> Vec<T> {
    let mut out = Vec::new();
    loop {
        match ch.recv(inbox, || false) {
            Recv::Item(x) => out.push(x),
            Recv::Finished => return out,
            _ => panic!("unexpected end"),
        }
    }
}

#[test]
fn a_timed_receive_gives_up_at_its_deadline_and_takes_what_comes_before_it() {
    use std::time::{Duration, Instant};
    let ch = Arc::new(Channel::new(2, true, 2));
    let mut inbox = Inbox::default();
    let wait = Duration::from_millis(40);
    let asked = Instant::now();
    assert!(ch.recv_until(&mut inbox, Some(asked + wait)).is_none());
    assert!(asked.elapsed() >= wait, "not before the deadline");
    // A batch pushed while the consumer sleeps wakes it before the deadline.
    let late = {
        let ch = Arc::clone(&ch);
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            ch.push(0, 0, true).unwrap();
        })
    };
    let far = Instant::now() + Duration::from_secs(60);
    assert!(matches!(
        ch.recv_until(&mut inbox, Some(far)),
        Some(Recv::Item(0))
    ));
    late.join().unwrap();
    // Without a deadline it waits as long as it takes: here, until the producers are done.
    let close = {
        let ch = Arc::clone(&ch);
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            ch.close();
        })
    };
    assert!(matches!(
        ch.recv_until(&mut inbox, None),
        Some(Recv::Incomplete)
    ));
    close.join().unwrap();
}
