//! A `&str` as a pipeline: its bytes (indexable), chars, char indices, lines, words and
//! split pieces, as rayon's `ParallelString` gives them (`text.par_lines()` there,
//! `text.pipe_lines()` here), with std's items in std's order.
//!
//! All but the bytes are cut as [`Blocks`](super::Blocks) of bytes: a block yields the items
//! that start in its bytes, and finds the first of them by looking at the bytes just before it
//! (the char that ends there, for a separator). No pass over the text comes first, the text is
//! never copied, and any split gives the same items.

use super::blocks::{pieces, Cut, Pieces};
use crate::indexed::Cloned;
use crate::pipeline::{IntoPipeline, Pipeline};
use std::ops::Range;
use std::str::{CharIndices, Chars};

/// What separates the pieces of a split: a `char`, any of a set of chars (`[char; N]`,
/// `&[char]`), or a predicate on a char, as rayon's `Pattern`. A predicate is cloned once per
/// block (a closure that borrows its captures is `Clone` and costs nothing to clone).
pub trait CharPattern: Clone + Sync {
    /// `true` when `c` is a separator.
    fn matches(&self, c: char) -> bool;

    /// The byte index and char of the first separator in `text`.
    #[inline]
    fn find_in(&self, text: &str) -> Option<(usize, char)> {
        text.char_indices().find(|&(_, c)| self.matches(c))
    }
}

impl CharPattern for char {
    #[inline]
    fn matches(&self, c: char) -> bool {
        c == *self
    }
    #[inline]
    fn find_in(&self, text: &str) -> Option<(usize, char)> {
        text.find(*self).map(|i| (i, *self))
    }
}

impl<const N: usize> CharPattern for [char; N] {
    #[inline]
    fn matches(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl CharPattern for &[char] {
    #[inline]
    fn matches(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<F: Fn(char) -> bool + Clone + Sync> CharPattern for F {
    #[inline]
    fn matches(&self, c: char) -> bool {
        self(c)
    }
}

/// The first char boundary at or after `i` (the text's length past its end).
fn boundary_at_or_after(text: &str, i: usize) -> usize {
    let mut i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The chars of a text: a char starts at each char boundary.
#[derive(Debug, Clone, Copy)]
pub struct CharsCut<'s>(&'s str);

impl<'s> Cut for CharsCut<'s> {
    type Block = Chars<'s>;
    fn positions(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn starting_in(&self, range: Range<usize>) -> Chars<'s> {
        let start = boundary_at_or_after(self.0, range.start);
        let end = boundary_at_or_after(self.0, range.end);
        self.0[start..end].chars()
    }
}

/// The `(byte index, char)` pairs of a text.
#[derive(Debug, Clone, Copy)]
pub struct CharIndicesCut<'s>(&'s str);

/// The `(byte index, char)` pairs of one block.
#[derive(Debug, Clone)]
pub struct BlockCharIndices<'s> {
    offset: usize,
    inner: CharIndices<'s>,
}

impl Iterator for BlockCharIndices<'_> {
    type Item = (usize, char);
    #[inline]
    fn next(&mut self) -> Option<(usize, char)> {
        self.inner.next().map(|(i, c)| (self.offset + i, c))
    }
}

impl<'s> Cut for CharIndicesCut<'s> {
    type Block = BlockCharIndices<'s>;
    fn positions(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn starting_in(&self, range: Range<usize>) -> BlockCharIndices<'s> {
        let start = boundary_at_or_after(self.0, range.start);
        let end = boundary_at_or_after(self.0, range.end);
        BlockCharIndices {
            offset: start,
            inner: self.0[start..end].char_indices(),
        }
    }
}

/// Which split of std a [`SplitCut`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavour {
    /// `split`: a piece after the last separator, empty or not.
    Split,
    /// `split_terminator`: the last piece only if not empty.
    Terminator,
    /// `split_inclusive`: each piece with its separator.
    Inclusive,
    /// `lines`: `split_terminator('\n')`, a `'\r'` before the `'\n'` dropped.
    Lines,
    /// `split_whitespace` and friends: the pieces that are not empty.
    Words,
}

/// The pieces of a text between separators: a piece starts at 0 and after each separator.
#[derive(Debug, Clone, Copy)]
pub struct SplitCut<'s, P> {
    text: &'s str,
    pattern: P,
    flavour: Flavour,
}

/// The pieces of a split that start in one block.
#[derive(Debug, Clone)]
pub struct BlockPieces<'s, P> {
    text: &'s str,
    pattern: P,
    flavour: Flavour,
    /// Where the next piece starts (`None` once the last piece was given).
    next: Option<usize>,
    /// Pieces starting here or later belong to later blocks.
    end: usize,
}

impl<'s, P: CharPattern> Iterator for BlockPieces<'s, P> {
    type Item = &'s str;
    #[inline]
    fn next(&mut self) -> Option<&'s str> {
        loop {
            let start = self.next.filter(|&start| start < self.end)?;
            let rest = &self.text[start..];
            let (piece, terminated) = match self.pattern.find_in(rest) {
                Some((at, sep)) => {
                    let after = at + sep.len_utf8();
                    self.next = Some(start + after);
                    let upto = if self.flavour == Flavour::Inclusive {
                        after
                    } else {
                        at
                    };
                    (&rest[..upto], true)
                }
                None => {
                    self.next = None;
                    (rest, false)
                }
            };
            match self.flavour {
                Flavour::Lines if terminated => {
                    return Some(piece.strip_suffix('\r').unwrap_or(piece))
                }
                Flavour::Words if piece.is_empty() => continue,
                _ => return Some(piece),
            }
        }
    }
}

impl<'s, P: CharPattern> Cut for SplitCut<'s, P> {
    type Block = BlockPieces<'s, P>;

    fn positions(&self) -> usize {
        // `split` has a piece after a separator that ends the text (and one in an empty text);
        // the others drop it, as it is empty.
        self.text.len() + usize::from(self.flavour == Flavour::Split)
    }

    #[inline]
    fn starting_in(&self, range: Range<usize>) -> BlockPieces<'s, P> {
        let text = self.text;
        let from = boundary_at_or_after(text, range.start);
        let first = if from >= range.end {
            None
        } else if from == 0 {
            Some(0)
        } else if text[..from]
            .chars()
            .next_back()
            .is_some_and(|c| self.pattern.matches(c))
        {
            Some(from)
        } else {
            // The first separator that ends in the block: only the block's chars are read.
            let upto = boundary_at_or_after(text, range.end);
            self.pattern
                .find_in(&text[from..upto])
                .map(|(at, sep)| from + at + sep.len_utf8())
        };
        BlockPieces {
            text,
            pattern: self.pattern.clone(),
            flavour: self.flavour,
            next: first,
            end: range.end,
        }
    }
}

/// The separator of [`pipe_split_whitespace`](PipeStr::pipe_split_whitespace): a char that
/// is `char::is_whitespace`.
#[derive(Debug, Clone, Copy)]
pub struct Whitespace;

impl CharPattern for Whitespace {
    #[inline]
    fn matches(&self, c: char) -> bool {
        c.is_whitespace()
    }
}

/// The separator of [`pipe_split_ascii_whitespace`](PipeStr::pipe_split_ascii_whitespace): a
/// char that is `char::is_ascii_whitespace`, searched for byte by byte.
#[derive(Debug, Clone, Copy)]
pub struct AsciiWhitespace;

impl CharPattern for AsciiWhitespace {
    #[inline]
    fn matches(&self, c: char) -> bool {
        c.is_ascii_whitespace()
    }
    #[inline]
    fn find_in(&self, text: &str) -> Option<(usize, char)> {
        // An ASCII byte is a whole char in UTF-8, never part of a longer one.
        let at = text.bytes().position(|b| b.is_ascii_whitespace())?;
        Some((at, char::from(text.as_bytes()[at])))
    }
}

/// Pipelines over the parts of a `&str`, as rayon's `ParallelString` (`par_lines` there is
/// `pipe_lines` here): std's items, in std's order, on every executor. The text is cut into
/// blocks of bytes, each yielding the items that start in it (see [`Blocks`](super::Blocks)), so
/// nothing is read before the fold and nothing is copied.
///
/// ```
/// use foldex_pipeline::sources::PipeStr;
/// use foldex_threaded::ThreadedEx;
/// let text = "the cat\r\nsat on\n\nthe mat\n";
/// let ex = ThreadedEx::new();
/// assert_eq!(text.pipe_lines().count(&ex), 4);
/// assert_eq!(text.pipe_split_whitespace().filter(|w| *w == "the").count(&ex), 2);
/// assert_eq!(text.pipe_chars().filter(|c| c.is_alphabetic()).count(&ex), 17);
/// let fields: Vec<&str> = "a,b,,c".pipe_split(',').collect(&ex);
/// assert_eq!(fields, ["a", "b", "", "c"]);
/// ```
pub trait PipeStr {
    /// The bytes, as `str::bytes` (indexable).
    fn pipe_bytes(&self) -> Pipeline<Cloned<&[u8]>>;

    /// The chars, as `str::chars`.
    fn pipe_chars(&self) -> Pieces<CharsCut<'_>>;

    /// The chars with their byte indices, as `str::char_indices`.
    fn pipe_char_indices(&self) -> Pieces<CharIndicesCut<'_>>;

    /// The lines, as `str::lines`: split at `'\n'`, a `'\r'` before it dropped, no empty line
    /// after a final `'\n'`.
    fn pipe_lines(&self) -> Pieces<SplitCut<'_, char>>;

    /// The words (runs of chars that are not `char::is_whitespace`), as
    /// `str::split_whitespace`.
    fn pipe_split_whitespace(&self) -> Pieces<SplitCut<'_, Whitespace>>;

    /// The words between ASCII whitespace, as `str::split_ascii_whitespace`.
    fn pipe_split_ascii_whitespace(&self) -> Pieces<SplitCut<'_, AsciiWhitespace>>;

    /// The pieces between separators, as `str::split`: a separator at either end, or two in a
    /// row, give an empty piece; an empty text gives one empty piece.
    fn pipe_split<P: CharPattern>(&self, separator: P) -> Pieces<SplitCut<'_, P>>;

    /// As [`pipe_split`](PipeStr::pipe_split), without the last piece if it is empty, as
    /// `str::split_terminator`.
    fn pipe_split_terminator<P: CharPattern>(&self, separator: P) -> Pieces<SplitCut<'_, P>>;

    /// The pieces, each ending with its separator (the last one may have none), as
    /// `str::split_inclusive`.
    fn pipe_split_inclusive<P: CharPattern>(&self, separator: P) -> Pieces<SplitCut<'_, P>>;
}

impl PipeStr for str {
    fn pipe_bytes(&self) -> Pipeline<Cloned<&[u8]>> {
        self.as_bytes().pipe().copied()
    }

    fn pipe_chars(&self) -> Pieces<CharsCut<'_>> {
        pieces(CharsCut(self))
    }

    fn pipe_char_indices(&self) -> Pieces<CharIndicesCut<'_>> {
        pieces(CharIndicesCut(self))
    }

    fn pipe_lines(&self) -> Pieces<SplitCut<'_, char>> {
        split(self, '\n', Flavour::Lines)
    }

    fn pipe_split_whitespace(&self) -> Pieces<SplitCut<'_, Whitespace>> {
        split(self, Whitespace, Flavour::Words)
    }

    fn pipe_split_ascii_whitespace(&self) -> Pieces<SplitCut<'_, AsciiWhitespace>> {
        split(self, AsciiWhitespace, Flavour::Words)
    }

    fn pipe_split<P: CharPattern>(&self, separator: P) -> Pieces<SplitCut<'_, P>> {
        split(self, separator, Flavour::Split)
    }

    fn pipe_split_terminator<P: CharPattern>(&self, separator: P) -> Pieces<SplitCut<'_, P>> {
        split(self, separator, Flavour::Terminator)
    }

    fn pipe_split_inclusive<P: CharPattern>(&self, separator: P) -> Pieces<SplitCut<'_, P>> {
        split(self, separator, Flavour::Inclusive)
    }
}

fn split<P: CharPattern>(text: &str, pattern: P, flavour: Flavour) -> Pieces<SplitCut<'_, P>> {
    pieces(SplitCut {
        text,
        pattern,
        flavour,
    })
}
