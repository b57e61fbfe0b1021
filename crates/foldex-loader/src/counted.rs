//! Counts in the loader's reports and errors, with the noun that agrees with them.

use std::fmt;

/// `count` and its noun, `one` for a count of 1, `many` for any other ("1 batch", "0 batches",
/// "2 batches").
pub(crate) fn counted(count: u64, one: &'static str, many: &'static str) -> Counted {
    Counted { count, one, many }
}

/// A count and its noun, as [`counted`] makes it.
pub(crate) struct Counted {
    count: u64,
    one: &'static str,
    many: &'static str,
}

impl fmt::Display for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let noun = if self.count == 1 { self.one } else { self.many };
        write!(f, "{} {noun}", self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn the_noun_agrees_with_the_count() {
        let batches = |n| counted(n, "batch", "batches").to_string();
        assert_eq!(batches(0), "0 batches");
        assert_eq!(batches(1), "1 batch");
        assert_eq!(batches(2), "2 batches");
        assert_eq!(batches(u64::MAX), format!("{} batches", u64::MAX));
    }
}
