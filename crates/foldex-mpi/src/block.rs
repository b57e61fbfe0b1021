//! Cutting `0..len` into one contiguous block per rank.

use std::ops::Range;

/// Rank `rank`'s block of `0..len` among `size` ranks: block `r` starts at `r * len / size`, so
/// that block lengths differ by one at most and the blocks, in rank order, are `0..len`. Ranks
/// beyond `len` get empty blocks.
pub(crate) fn block(len: usize, size: usize, rank: usize) -> Range<usize> {
    let start = |r: usize| (len as u128 * r as u128 / size as u128) as usize;
    start(rank)..start(rank + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_the_range_in_rank_order() {
        for (len, size) in [
            (0usize, 3usize),
            (2, 3),
            (10, 3),
            (1 << 40, 3),
            (usize::MAX, 7),
        ] {
            let blocks: Vec<Range<usize>> = (0..size).map(|r| block(len, size, r)).collect();
            assert_eq!(blocks[0].start, 0);
            assert_eq!(blocks[size - 1].end, len);
            assert!(blocks.windows(2).all(|w| w[0].end == w[1].start));
            let (short, long) = blocks.iter().fold((usize::MAX, 0), |(s, l), b| {
                (s.min(b.end - b.start), l.max(b.end - b.start))
            });
            assert!(long - short <= 1, "{len} over {size}: {blocks:?}");
        }
    }
}
