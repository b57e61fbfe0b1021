//! The executors a benchmark row can run on, named as on the command line.

use clap::ValueEnum;
use serde::Serialize;
use std::fmt;

/// An executor family, as `--executors` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, ValueEnum, Serialize)]
pub enum Kind {
    /// `SequentialEx`: everything on one thread, in order.
    #[serde(rename = "sequential")]
    #[value(name = "sequential", alias = "seq", alias = "SequentialEx")]
    Sequential,
    /// `AutoEx`: inline, work stealing or a task pool, chosen per fold from measured cost.
    #[serde(rename = "auto")]
    #[value(name = "auto", alias = "AutoEx")]
    Auto,
    /// `ThreadedEx`: recursive halving onto a work-stealing pool.
    #[serde(rename = "threaded")]
    #[value(name = "threaded", alias = "ThreadedEx")]
    Threaded,
    /// `TaskPoolEx` with `background(false)`: a waiting consumer runs chunks itself.
    #[serde(rename = "taskpool")]
    #[value(name = "taskpool", alias = "TaskPoolEx")]
    TaskPool,
    /// `TaskPoolEx` with `background(true)`: the consumer's thread never runs a chunk.
    #[serde(rename = "taskpool-bg")]
    #[value(name = "taskpool-bg", alias = "taskpool-background")]
    TaskPoolBackground,
    /// `DepthFirstEx` on a `ThreadedEx` pool: pieces claimed in input order (only when asked
    /// for: `--executors depth-first`).
    #[serde(rename = "depth-first")]
    #[value(name = "depth-first", alias = "DepthFirstEx")]
    DepthFirst,
    /// The reference: a rayon pool feeding a bounded crossbeam channel.
    #[serde(rename = "rayon")]
    #[value(name = "rayon", alias = "reference")]
    Rayon,
    /// `MpiEx`: each row's items folded across the ranks of an MPI job, one thread per rank
    /// (only in foldex-mpi's `foldex` binary, under `mpirun`).
    #[serde(rename = "mpi")]
    #[value(name = "mpi", alias = "MpiEx")]
    Mpi,
}

impl Kind {
    /// Every family of one process, in the order rows are printed (`Mpi` runs only when asked
    /// for, in an MPI job).
    pub const ALL: [Kind; 6] = [
        Kind::Sequential,
        Kind::Auto,
        Kind::Threaded,
        Kind::TaskPool,
        Kind::TaskPoolBackground,
        Kind::Rayon,
    ];

    /// Every family of one process that runs only when `--executors` names it, after those of
    /// [`Kind::ALL`] in a row's order.
    pub const ON_REQUEST: [Kind; 1] = [Kind::DepthFirst];

    /// Whether the family has a worker count to choose (`AutoEx` chooses its own).
    pub fn has_workers(self) -> bool {
        !matches!(self, Kind::Sequential | Kind::Auto | Kind::Mpi)
    }

    /// Whether the family is a `TaskPoolEx`, whose worker count is `ntasks`.
    pub fn is_task_pool(self) -> bool {
        matches!(self, Kind::TaskPool | Kind::TaskPoolBackground)
    }
}

/// One executor configuration: a family, its worker count and its basesize.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Choice {
    /// The family.
    pub kind: Kind,
    /// Threads (`ThreadedEx`, rayon) or `ntasks` (`TaskPoolEx`); 1 for `SequentialEx`; the
    /// cores for `AutoEx`; the ranks for `MpiEx`.
    pub workers: usize,
    /// A fixed basesize, or `None` for the executor's default.
    pub basesize: Option<usize>,
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let basesize = match self.basesize {
            Some(b) => format!(", basesize={b}"),
            None => String::new(),
        };
        match self.kind {
            Kind::Sequential => f.write_str("SequentialEx"),
            Kind::Auto => f.write_str("AutoEx"),
            Kind::Threaded => write!(f, "ThreadedEx(threads={}{basesize})", self.workers),
            Kind::DepthFirst => write!(f, "DepthFirstEx(threads={}{basesize})", self.workers),
            Kind::TaskPool => write!(f, "TaskPoolEx(ntasks={}{basesize})", self.workers),
            Kind::TaskPoolBackground => write!(
                f,
                "TaskPoolEx(ntasks={}{basesize}, background)",
                self.workers
            ),
            Kind::Rayon => write!(f, "rayon+channel(threads={})", self.workers),
            Kind::Mpi => write!(f, "MpiEx(ranks={}, 1 thread each)", self.workers),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_the_settings() {
        let choice = |kind, workers, basesize| Choice {
            kind,
            workers,
            basesize,
        };
        assert_eq!(
            choice(Kind::Sequential, 1, None).to_string(),
            "SequentialEx"
        );
        assert_eq!(
            choice(Kind::TaskPoolBackground, 8, Some(1)).to_string(),
            "TaskPoolEx(ntasks=8, basesize=1, background)"
        );
        assert_eq!(
            choice(Kind::Threaded, 2, None).to_string(),
            "ThreadedEx(threads=2)"
        );
    }

    #[test]
    fn names_parse_with_aliases() {
        assert_eq!(Kind::from_str("seq", true), Ok(Kind::Sequential));
        assert_eq!(Kind::from_str("ThreadedEx", true), Ok(Kind::Threaded));
        assert_eq!(Kind::from_str("AutoEx", true), Ok(Kind::Auto));
        assert_eq!(Kind::from_str("DepthFirstEx", true), Ok(Kind::DepthFirst));
        assert_eq!(
            Kind::from_str("taskpool-bg", true),
            Ok(Kind::TaskPoolBackground)
        );
        assert!(Kind::from_str("fastest", true).is_err());
    }
}
