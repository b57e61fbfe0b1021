//! An executor whose pieces' partials travel as bytes, as they do between processes.

use foldex_core::{Executor, Job, Partial};

/// Cuts a job into `pieces` contiguous ranges, runs them in order on the calling thread, and
/// sends each partial through the job's codec ([`Job::codec`]: encoded, then decoded) before
/// combining it, left to right, as an executor whose pieces run in other processes does
/// (`foldex-mpi`'s `MpiEx`). A fold through it gives the sequential answer exactly when its
/// partials, `Break`s and panics survive the bytes.
///
/// # Panics
/// On a job without a codec, or one whose partial does not encode or decode, with why.
///
/// ```
/// use foldex_core::codec::Encoded;
/// use foldex_core::codec::Postcard;
/// use foldex_core::ExecutorExt;
/// use foldex_testkit::ThroughBytes;
/// let init = Encoded(|| 0u64, Postcard);
/// let sum = ThroughBytes { pieces: 3 }.fold(0..10usize, init, |a, i| a + i as u64, |a, b| a + b);
/// assert_eq!(sum, 45);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ThroughBytes {
    /// How many ranges the job is cut into (0 counts as 1).
    pub pieces: usize,
}

impl Executor for ThroughBytes {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let codec = job
            .codec()
            .expect("ThroughBytes: this fold was given no codec");
        let (len, pieces) = (job.len(), self.pieces.max(1));
        let mut acc: Option<Partial<'a>> = None;
        for p in 0..pieces {
            let cut = |p: usize| (len as u128 * p as u128 / pieces as u128) as usize;
            let bytes = codec.encode(job.run(cut(p)..cut(p + 1)));
            let bytes = bytes.unwrap_or_else(|why| panic!("ThroughBytes: encoding: {why}"));
            let part = codec.decode(&bytes);
            let part = part.unwrap_or_else(|why| panic!("ThroughBytes: decoding: {why}"));
            acc = Some(match acc {
                Some(left) => job.combine(left, part),
                None => part,
            });
        }
        acc.expect("at least one piece")
    }
}
