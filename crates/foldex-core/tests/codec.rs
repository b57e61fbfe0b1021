//! Partials through bytes: an executor that sends every piece's partial through
//! `PartialCodec` before combining gives the sequential answer, Breaks and panics included.

use foldex_core::codec::Encoded;
use foldex_core::{Codec, Executor, ExecutorExt, Job, Partial, StopProbe};
use foldex_seq::SequentialEx;
use foldex_testkit::ThroughBytes;
use proptest::prelude::*;
use std::ops::ControlFlow::{Break, Continue};
use std::panic::{self, AssertUnwindSafe};

/// `Vec<u32>` as little-endian words.
struct Words;

impl Codec<Vec<u32>> for Words {
    fn encode(&self, acc: &Vec<u32>, out: &mut Vec<u8>) -> Result<(), String> {
        acc.iter()
            .for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        Ok(())
    }
    fn decode(&self, bytes: &[u8]) -> Result<Vec<u32>, String> {
        if !bytes.len().is_multiple_of(4) {
            return Err(format!("{} bytes", bytes.len()));
        }
        Ok(bytes
            .chunks(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
            .collect())
    }
}

fn append(mut a: Vec<u32>, b: Vec<u32>) -> Vec<u32> {
    a.extend(b);
    a
}

proptest! {
    #[test]
    fn a_fold_through_bytes_is_the_sequential_fold(len in 0usize..3000, pieces in 1usize..7, stop in 0usize..3500) {
        let ex = ThroughBytes { pieces };
        let step = |mut v: Vec<u32>, i: usize| {
            if i == stop {
                v.push(i as u32);
                return Break(v);
            }
            if i.is_multiple_of(97) {
                v.push(i as u32);
            }
            Continue(v)
        };
        let got = ex.try_fold_probed(0..len, Encoded(Vec::new, Words), |v, i, _: &StopProbe| step(v, i), append);
        prop_assert_eq!(got, (0..len).try_fold(Vec::new(), step));
        let all = ex.fold(0..len, Encoded(Vec::new, Words), |mut v, i| { v.push(i as u32); v }, append);
        prop_assert_eq!(all, (0..len as u32).collect::<Vec<_>>());
    }
}

#[cfg(panic = "unwind")]
#[test]
fn a_panic_travels_as_its_message_and_a_break_before_it_wins() {
    let ex = ThroughBytes { pieces: 4 };
    let fold = |brk: Option<usize>| {
        panic::catch_unwind(AssertUnwindSafe(|| {
            ex.try_fold_probed(
                0..1000usize,
                Encoded(Vec::new, Words),
                |v: Vec<u32>, i, _: &StopProbe| match i {
                    _ if Some(i) == brk => Break(v),
                    900 => panic!("item {i} is bad"),
                    _ => Continue(v),
                },
                append,
            )
        }))
    };
    let payload = fold(None).expect_err("the panic is raised");
    assert_eq!(foldex_core::exec::message(&*payload), "item 900 is bad");
    assert_eq!(fold(Some(10)).unwrap(), Break(vec![]));
}

/// `body` closed with its CRC-32, as an encoded partial ends (bit by bit, independently of
/// the table the library computes it with).
fn sealed(body: &[u8]) -> Vec<u8> {
    let mut crc = !0u32;
    for &byte in body {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    let mut out = body.to_vec();
    out.extend((!crc).to_le_bytes());
    out
}

#[test]
fn what_cannot_be_written_or_read_is_an_error_naming_why() {
    struct Refuses;
    impl Codec<u8> for Refuses {
        fn encode(&self, _: &u8, _: &mut Vec<u8>) -> Result<(), String> {
            Err("no room".into())
        }
        fn decode(&self, _: &[u8]) -> Result<u8, String> {
            panic!("never read")
        }
    }
    struct Check;
    impl Executor for Check {
        fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
            let codec = job.codec().unwrap();
            assert_eq!(codec.encode(job.run(0..1)).unwrap_err(), "no room");
            for bad in [&[][..], &[9][..], &[1, 0, 0][..]] {
                assert!(codec.decode(bad).is_err(), "{bad:?}");
            }
            // A range past the end is refused, not believed.
            let mut past = vec![1u8];
            past.extend(0u64.to_le_bytes());
            past.extend(99u64.to_le_bytes());
            past.extend(u64::MAX.to_le_bytes());
            past.push(0);
            past.extend(0u64.to_le_bytes());
            assert!(codec.decode(&sealed(&past)).unwrap_err().contains("past"));
            // A decode that panics is an error with its message.
            past[9..17].copy_from_slice(&1u64.to_le_bytes());
            assert!(codec
                .decode(&sealed(&past))
                .unwrap_err()
                .contains("never read"));
            // Without its checksum, the same bytes are refused as damaged.
            assert!(codec.decode(&past).unwrap_err().contains("checksum"));
            job.run(0..job.len())
        }
    }
    assert_eq!(
        Check.fold(0..1usize, Encoded(|| 0u8, Refuses), |a, _| a, |a, _| a),
        0
    );
}

#[test]
fn a_fold_without_a_codec_offers_none() {
    struct NoCodec;
    impl Executor for NoCodec {
        fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
            assert!(job.codec().is_none());
            job.run(0..job.len())
        }
    }
    assert_eq!(NoCodec.sum::<usize>(0..10usize), 45);
    // Every other executor ignores a codec.
    assert_eq!(
        SequentialEx.fold(
            0..4usize,
            Encoded(Vec::new, Words),
            |mut v, i| {
                v.push(i as u32);
                v
            },
            append,
        ),
        vec![0, 1, 2, 3]
    );
}

#[test]
fn a_skipped_piece_travels_without_its_accumulator() {
    /// Refuses to write the identity, which only skipped pieces hold here.
    struct NoIdentity;
    impl Codec<u8> for NoIdentity {
        fn encode(&self, acc: &u8, out: &mut Vec<u8>) -> Result<(), String> {
            if *acc == u8::MAX {
                return Err("the identity was sent".into());
            }
            out.push(*acc);
            Ok(())
        }
        fn decode(&self, bytes: &[u8]) -> Result<u8, String> {
            bytes.first().copied().ok_or_else(|| "empty".into())
        }
    }
    // The first piece breaks at its second item; the second is skipped, holding `init()`.
    let got = ThroughBytes { pieces: 2 }.try_fold_probed(
        0..10usize,
        Encoded(|| u8::MAX, NoIdentity),
        |m, i, _: &StopProbe| {
            if i == 1 {
                Break(m.min(i as u8))
            } else {
                Continue(m.min(i as u8))
            }
        },
        |a, b| a.min(b),
    );
    assert_eq!(got, Break(0));
}

#[test]
fn a_fold_over_a_stream_with_a_codec_says_it_cannot_leave_the_process() {
    let stream = foldex_core::Stream::new([1u32, 2, 3]);
    let caught = panic::catch_unwind(AssertUnwindSafe(|| {
        SequentialEx.fold(
            stream,
            Encoded(Vec::new, Words),
            |mut v, x| {
                v.push(x);
                v
            },
            append,
        )
    }));
    let message = foldex_core::exec::message(&*caught.unwrap_err());
    assert!(message.contains("over a stream"), "{message}");
}

/// Runs the whole fold as one piece, then checks that every corruption of its encoded partial
/// (each byte flipped, in its low or high bit or whole; each truncation; a byte appended) is
/// refused, before decoding the intact bytes.
struct RefusesCorruption;

impl Executor for RefusesCorruption {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let codec = job.codec().expect("a codec");
        let bytes = codec.encode(job.run(0..job.len())).expect("encodes");
        for at in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[at] ^= flip;
                assert!(codec.decode(&bad).is_err(), "byte {at} ^ {flip:#x} decoded");
            }
        }
        for cut in 0..bytes.len() {
            let why = codec.decode(&bytes[..cut]).err();
            assert!(
                why.is_some(),
                "cut to {cut} of {} bytes decoded",
                bytes.len()
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(codec.decode(&longer).is_err(), "a byte appended decoded");
        codec.decode(&bytes).expect("the intact bytes decode")
    }
}

#[test]
fn every_corrupted_or_cut_partial_is_an_error_not_a_wrong_answer() {
    let collect = |v: Vec<u32>, x: usize| append(v, vec![x as u32]);
    let got = RefusesCorruption.fold(0..20usize, Encoded(Vec::new, Words), collect, append);
    assert_eq!(got, (0..20).collect::<Vec<_>>());
    // A Break and a panic message travel too.
    let got = RefusesCorruption.try_fold_probed(
        0..20usize,
        Encoded(Vec::new, Words),
        |v, x, _: &StopProbe| match x {
            7 => Break(append(v, vec![x as u32])),
            _ => Continue(append(v, vec![x as u32])),
        },
        append,
    );
    assert_eq!(got, Break((0..8).collect::<Vec<_>>()));
    let caught = panic::catch_unwind(AssertUnwindSafe(|| {
        RefusesCorruption.fold(
            0..20usize,
            Encoded(Vec::new, Words),
            |v, x| {
                if x == 9 {
                    panic!("nine")
                } else {
                    append(v, vec![x as u32])
                }
            },
            append,
        )
    }));
    assert_eq!(foldex_core::exec::message(&*caught.unwrap_err()), "nine");
}
