//! A typed fold's partials as bytes ([`PartialCodec`]), for executors that run pieces in other
//! processes.
//!
//! Layout, integers little-endian: the kind (`0` lost, `1` folded whole, `2` broke, `3`
//! skipped); unless lost, the start and end as `u64`; the job's leftmost `Break` as a `u64`
//! (`u64::MAX`: none); `0`, or `1` and the leftmost panic's index (`u64`), its message's length
//! (`u64`) and the message; then, for a piece folded whole or broken, the length of the
//! accumulator's bytes (`u64`) and those bytes, from the fold's [`Codec`]; last, the CRC-32 of
//! everything before it (`u32`). A skipped piece's accumulator is a stand-in that never reaches
//! the result, so it does not travel: the other side makes its own.
//!
//! The length makes a cut inside a codec that is not self-delimiting an error, and the checksum
//! every flipped byte: the header's checks alone let a damaged accumulator decode to a wrong
//! answer. Decoding checks the checksum before it reads anything, so damaged bytes change
//! nothing in the job.

use super::crc32::crc32;
use super::{FoldJob, Leaf};
use crate::audited::Partial;
use crate::codec::{Init, PartialCodec};
use crate::coverage::{Kind, Piece};
use crate::panic;
use crate::source::Source;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;

const LOST: u8 = 0;
const CONTINUE: u8 = 1;
const BREAK: u8 = 2;
const SKIPPED: u8 = 3;

impl<'a, S, L, I, C, A> PartialCodec<'a> for FoldJob<'_, S, L, I, C, A>
where
    S: Source,
    L: Leaf<A, S::Item>,
    I: Init<A>,
    C: Fn(A, A) -> A + Sync,
    A: Send + 'a,
{
    fn encode(&self, partial: Partial<'a>) -> Result<Vec<u8>, String> {
        let codec = self.init.codec().ok_or("this fold was given no codec")?;
        let piece = self.pieces.unwrap(partial);
        if self.bugs.halted() {
            return Err("the executor in this process broke its contract (raised there)".into());
        }
        let mut out = Vec::with_capacity(64);
        match &piece {
            None => out.push(LOST),
            Some(piece) => {
                out.push(match piece.kind {
                    Kind::Continue => CONTINUE,
                    Kind::Break => BREAK,
                    Kind::Skipped => SKIPPED,
                });
                put(&mut out, piece.start as u64);
                put(&mut out, piece.end as u64);
            }
        }
        put(&mut out, index(self.break_at.load(Ordering::Relaxed)));
        match self.panics.placed() {
            None => out.push(0),
            Some((at, message)) => {
                out.push(1);
                put(&mut out, at as u64);
                put(&mut out, message.len() as u64);
                out.extend_from_slice(message.as_bytes());
            }
        }
        if let Some(piece) = piece.as_ref().filter(|p| p.kind != Kind::Skipped) {
            let length_at = out.len();
            put(&mut out, 0);
            std::panic::catch_unwind(AssertUnwindSafe(|| codec.encode(&piece.acc, &mut out)))
                .map_err(|p| format!("encoding panicked: {}", panic::message(&*p)))??;
            let length = (out.len() - length_at - 8) as u64;
            out[length_at..length_at + 8].copy_from_slice(&length.to_le_bytes());
        }
        let checksum = crc32(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        Ok(out)
    }

    fn decode(&self, bytes: &[u8]) -> Result<Partial<'a>, String> {
        let codec = self.init.codec().ok_or("this fold was given no codec")?;
        let mut input = Reader(checked(bytes)?);
        let kind = match input.byte()? {
            LOST => None,
            CONTINUE => Some(Kind::Continue),
            BREAK => Some(Kind::Break),
            SKIPPED => Some(Kind::Skipped),
            other => return Err(format!("unknown partial kind {other}")),
        };
        let range = match kind {
            Some(_) => {
                let (start, end) = (self.position(input.u64()?)?, self.position(input.u64()?)?);
                if start > end {
                    return Err(format!(
                        "a partial of {start}..{end}, which ends before it starts"
                    ));
                }
                Some(start..end)
            }
            None => None,
        };
        let break_at = input.u64()?;
        let panic = match input.byte()? {
            0 => None,
            _ => {
                let at = self.position(input.u64()?)?;
                let len = usize::try_from(input.u64()?).map_err(|e| e.to_string())?;
                let message = String::from_utf8(input.take(len)?.to_vec());
                Some((at, message.map_err(|e| e.to_string())?))
            }
        };
        let acc = match kind {
            Some(Kind::Continue | Kind::Break) => {
                let len = usize::try_from(input.u64()?).map_err(|e| e.to_string())?;
                let acc = input.take(len)?;
                Some(
                    std::panic::catch_unwind(AssertUnwindSafe(|| codec.decode(acc)))
                        .map_err(|p| format!("decoding panicked: {}", panic::message(&*p)))??,
                )
            }
            Some(Kind::Skipped) | None => None,
        };
        if !input.0.is_empty() {
            return Err(format!(
                "a partial with {} bytes past its end",
                input.0.len()
            ));
        }
        // Only a whole, valid partial tells this job of the other process's stops.
        if break_at != u64::MAX {
            let break_at = self.position(break_at)?;
            self.break_at.fetch_min(break_at, Ordering::Relaxed);
            self.stop_after.fetch_min(break_at, Ordering::Relaxed);
        }
        if let Some((at, message)) = panic {
            self.record_panic(at, Box::new(message));
        }
        let piece = match (kind, range, acc) {
            (Some(Kind::Skipped), Some(range), _) => self.skipped(None, range),
            (Some(kind), Some(range), Some(acc)) => {
                Some(Piece::new(kind, acc, range.start, range.end))
            }
            _ => None,
        };
        Ok(self.pieces.wrap(piece))
    }
}

impl<S, L, I, C, A> FoldJob<'_, S, L, I, C, A> {
    /// `at` as an index of this job (`len` included, as the end of a range).
    fn position(&self, at: u64) -> Result<usize, String> {
        usize::try_from(at)
            .ok()
            .filter(|&at| at <= self.len)
            .ok_or_else(|| format!("index {at} is past this fold's {} items", self.len))
    }
}

fn index(at: usize) -> u64 {
    if at == usize::MAX {
        u64::MAX
    } else {
        at as u64
    }
}

/// `bytes` without their closing checksum, if it matches them.
fn checked(bytes: &[u8]) -> Result<&[u8], String> {
    let Some(body_len) = bytes.len().checked_sub(4) else {
        return Err(format!(
            "a partial cut short: {} bytes, too few for its checksum",
            bytes.len()
        ));
    };
    let (body, sum) = bytes.split_at(body_len);
    let sum = u32::from_le_bytes(sum.try_into().expect("four bytes"));
    if crc32(body) != sum {
        return Err(format!(
            "a damaged partial: the checksum of its {} bytes does not match",
            bytes.len()
        ));
    }
    Ok(body)
}

fn put(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}

/// The bytes not read yet.
struct Reader<'b>(&'b [u8]);

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Result<&'b [u8], String> {
        if self.0.len() < n {
            return Err(format!(
                "a partial cut short: {} bytes where {n} were due",
                self.0.len()
            ));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn byte(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn u64(&mut self) -> Result<u64, String> {
        let bytes = self.take(8)?.try_into().expect("eight bytes");
        Ok(u64::from_le_bytes(bytes))
    }
}
