//! rayon's `tests/issue671.rs`: a long chain collected into `Result<(), E>`.

use super::*;

#[test]
fn type_length_limit() {
    each("type_length_limit", |ex, what| {
        let r = from_vec(Vec::<Result<(), ()>>::new())
            .map(|x| x)
            .map(|x| x)
            .map(|x| x)
            .map(|x| x)
            .map(|x| x)
            .map(|x| x)
            .collect::<Result<(), ()>>(ex);
        assert_eq!(r, Ok(()), "{what}");
    });
}
