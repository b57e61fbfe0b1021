//! A producer's panic as the consumer receives it: the original payload, and which
//! observation was loading when it panicked.

use foldex_core::exec::PanicPayload;

/// A producer's panic as the consumer receives it.
#[derive(Debug)]
pub struct Failure {
    /// The panic's payload, re-raised on the consumer unchanged.
    pub payload: PanicPayload,
    /// The observation whose load panicked (`None`: the panic came from elsewhere, such as
    /// `collate` or the executor).
    pub index: Option<usize>,
}

impl Failure {
    /// A failure that names no observation.
    pub fn anywhere(payload: PanicPayload) -> Self {
        Failure {
            payload,
            index: None,
        }
    }
}
