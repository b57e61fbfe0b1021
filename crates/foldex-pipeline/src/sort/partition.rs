//! The partitions of the unstable sort, in safe code: Lomuto's, branchless, and BlockQuicksort's
//! block partition (Edelkamp and Weiss, as in pdqsort and rayon's `par_sort_unstable`).
//!
//! Lomuto's ([`lomuto`]) swaps every element, without a branch on the answer: best where
//! moves and comparisons cost a few instructions (`u64`). In the block partition ([`block`]),
//! a block of up to [`BLOCK`] elements at the left end and one at the right end are each
//! scanned first, noting (as `u8` offsets, without a branch on the answer) the elements that
//! are on the wrong side; then the misplaced ones of the two blocks are swapped pairwise. Each
//! element is asked about once, and only misplaced ones move (a quarter of random elements,
//! each by one swap), where Lomuto's partition swaps every element. Separating the questions
//! from the moves keeps the comparator's answers off the branch predictor's path, which
//! matters when the answers are costly (a `String`'s comparison reads its heap bytes).
//!
//! In both, every move is a swap, so a panic in `goes_first` leaves each element in the slice
//! once, and
//! an answer that changes from one call to the next (an order that is not total) only puts an
//! element on an unexpected side: each element is asked once, so the count returned is the
//! number of elements on the first side, whatever the answers.

/// Elements per block: offsets fit in a `u8`, and two blocks' offsets stay in registers'
/// reach (256 bytes on the stack).
const BLOCK: usize = 128;

/// Moves the elements for which `goes_first` holds to the front of `v` by Lomuto's partition
/// and returns how many there are. Each element is asked once.
pub(super) fn lomuto<T>(v: &mut [T], goes_first: impl Fn(&T) -> bool) -> usize {
    let mut first = 0;
    for i in 0..v.len() {
        let yes = goes_first(&v[i]);
        // `v[..first]` go first, `v[first..i]` do not: `v[i]` joins one or the other.
        v.swap(first, i);
        first += usize::from(yes);
    }
    first
}

/// Moves the elements for which `goes_first` holds to the front of `v` by the block partition
/// and returns how many there are. Each element is asked once.
pub(super) fn block<T>(v: &mut [T], goes_first: impl Fn(&T) -> bool) -> usize {
    // `v[..l]` go first and `v[r..]` do not; the blocks are `v[l..l + block_l]` and
    // `v[r - block_r..r]`, and the offsets `offsets_l[start_l..end_l]` (from `l`) and
    // `offsets_r[start_r..end_r]` (from `r - 1`, leftwards) are their misplaced elements not
    // yet swapped. A block with none left is done, and the next one is scanned.
    let mut l = 0;
    let mut r = v.len();
    let (mut block_l, mut block_r) = (BLOCK, BLOCK);
    let mut offsets_l = [0u8; BLOCK];
    let mut offsets_r = [0u8; BLOCK];
    let (mut start_l, mut end_l) = (0, 0);
    let (mut start_r, mut end_r) = (0, 0);
    loop {
        let width = r - l;
        let is_done = width <= 2 * BLOCK;
        if is_done {
            // Size the blocks to what is left: a block with misplaced elements pending keeps
            // its size, the other covers the rest.
            let mut rest = width;
            if start_l < end_l || start_r < end_r {
                rest -= BLOCK;
            }
            if start_l < end_l {
                block_r = rest;
            } else if start_r < end_r {
                block_l = rest;
            } else {
                block_l = rest / 2;
                block_r = rest - block_l;
            }
        }
        if start_l == end_l {
            (start_l, end_l) = (0, 0);
            for (i, x) in v[l..l + block_l].iter().enumerate() {
                offsets_l[end_l] = i as u8;
                end_l += usize::from(!goes_first(x));
            }
        }
        if start_r == end_r {
            (start_r, end_r) = (0, 0);
            for (i, x) in v[r - block_r..r].iter().rev().enumerate() {
                offsets_r[end_r] = i as u8;
                end_r += usize::from(goes_first(x));
            }
        }
        let count = (end_l - start_l).min(end_r - start_r);
        for (&a, &b) in offsets_l[start_l..start_l + count]
            .iter()
            .zip(&offsets_r[start_r..start_r + count])
        {
            v.swap(l + usize::from(a), r - 1 - usize::from(b));
        }
        start_l += count;
        start_r += count;
        if start_l == end_l {
            l += block_l;
        }
        if start_r == end_r {
            r -= block_r;
        }
        if is_done {
            break;
        }
    }
    // At most one block has misplaced elements left, and it is all of `v[l..r]`: swap them to
    // its far end (from the last, so that each goes past the well placed ones only).
    if start_l < end_l {
        for &a in offsets_l[start_l..end_l].iter().rev() {
            r -= 1;
            v.swap(l + usize::from(a), r);
        }
        r
    } else {
        for &b in offsets_r[start_r..end_r].iter().rev() {
            v.swap(l, r - 1 - usize::from(b));
            l += 1;
        }
        l
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A partition of `u64`s, as a function pointer.
    type Partition = fn(&mut [u64], &dyn Fn(&u64) -> bool) -> usize;

    /// Both partitions on lengths around the block sizes, various split points, and answers
    /// that change between calls: the count is the first side's length, and nothing is lost.
    #[test]
    fn partitions_every_length() {
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let partitions: [(&str, Partition); 2] = [
            ("lomuto", |v, f| lomuto(v, f)),
            ("block", |v, f| block(v, f)),
        ];
        for (name, partition) in partitions {
            for len in (0..600).chain([1021, 4093, 4096, 10_007]) {
                for modulus in [1, 2, 3, 7, 1000] {
                    let orig: Vec<u64> = (0..len).map(|_| next() % 1000).collect();
                    let split = next() % 1000;
                    let goes_first = |x: &u64| x.is_multiple_of(modulus) || *x < split;
                    let mut v = orig.clone();
                    let first = partition(&mut v, &goes_first);
                    assert!(v[..first].iter().all(goes_first), "{name}, len {len}");
                    assert!(!v[first..].iter().any(goes_first), "{name}, len {len}");
                    let (mut a, mut b) = (orig, v);
                    a.sort_unstable();
                    b.sort_unstable();
                    assert_eq!(a, b, "{name}, len {len}");
                }
                // Random answers: every element is still there once.
                let orig: Vec<u64> = (0..len).collect();
                let mut v = orig.clone();
                let answers = std::cell::Cell::new(next());
                let first = partition(&mut v, &|_| {
                    let a = answers.get();
                    answers.set(a.rotate_left(1) ^ 0x5DEE_CE66);
                    a & 1 == 1
                });
                assert!(first <= v.len());
                v.sort_unstable();
                assert_eq!(v, orig, "{name}, len {len}");
            }
        }
    }
}
