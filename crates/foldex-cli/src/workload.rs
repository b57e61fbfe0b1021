//! The seed's `TimeDataset`: `n` items, each of which takes `t` to load.
//!
//! Two variants of "takes `t`": sleeping (an item that waits on I/O and uses no CPU) and
//! spinning (an item that keeps a core busy for `t`).

use crate::parse::format_duration;
use clap::ValueEnum;
use serde::Serialize;
use std::fmt;
use std::time::{Duration, Instant};

/// How an item spends its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// `thread::sleep(t)`: I/O-bound, no CPU used while waiting.
    Sleep,
    /// A busy loop for `t`: CPU-bound.
    Spin,
}

impl Variant {
    /// Both variants, I/O-bound first.
    pub const ALL: [Variant; 2] = [Variant::Sleep, Variant::Spin];

    /// The name used in tables and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Sleep => "sleep",
            Variant::Spin => "spin",
        }
    }
}

/// `n` items of cost `t` each, spent as `variant` says. `get(i)` returns `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeDataset {
    /// The number of items.
    pub n: usize,
    /// What one item costs.
    pub t: Duration,
    /// How the cost is spent.
    pub variant: Variant,
}

impl TimeDataset {
    /// Loads item `index`: spends `t`, then returns the index.
    pub fn get(&self, index: usize) -> usize {
        match self.variant {
            Variant::Sleep => std::thread::sleep(self.t),
            Variant::Spin => spin_for(self.t),
        }
        index
    }

    /// The time the whole dataset takes on one thread if every item costs exactly `t`.
    pub fn serial_cost(&self) -> Duration {
        self.t
            .saturating_mul(u32::try_from(self.n).unwrap_or(u32::MAX))
    }

    /// The sum of all indices, which the consumer must see once each.
    pub fn index_sum(&self) -> u128 {
        let n = self.n as u128;
        n * n.saturating_sub(1) / 2
    }
}

impl fmt::Display for TimeDataset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} n={} t={}",
            self.variant.name(),
            self.n,
            format_duration(self.t)
        )
    }
}

/// Keeps the calling thread busy for `t` of wall time.
fn spin_for(t: Duration) {
    let start = Instant::now();
    while start.elapsed() < t {
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_takes_at_least_its_time_and_returns_its_index() {
        for variant in Variant::ALL {
            let data = TimeDataset {
                n: 10,
                t: Duration::from_millis(2),
                variant,
            };
            let start = Instant::now();
            assert_eq!(data.get(7), 7);
            assert!(start.elapsed() >= Duration::from_millis(2));
        }
    }

    #[test]
    fn sums_and_costs() {
        let data = TimeDataset {
            n: 100,
            t: Duration::from_millis(10),
            variant: Variant::Sleep,
        };
        assert_eq!(data.index_sum(), 4950);
        assert_eq!(data.serial_cost(), Duration::from_secs(1));
        assert_eq!(data.to_string(), "sleep n=100 t=10ms");
    }
}
