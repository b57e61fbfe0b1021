//! rayon's `tests/issue671-unzip.rs`: a nested `unzip`.

use super::*;

#[test]
fn type_length_limit() {
    each("type_length_limit", |ex, what| {
        let input = vec![1, 2, 3, 4, 5];
        let (indexes, (squares, cubes)): (Vec<_>, (Vec<_>, Vec<_>)) = input
            .pipe()
            .map(|x| (x * x, x * x * x))
            .enumerate()
            .unzip(ex);
        assert_eq!(indexes, [0, 1, 2, 3, 4], "{what}");
        assert_eq!(squares, [1, 4, 9, 16, 25], "{what}");
        assert_eq!(cubes, [1, 8, 27, 64, 125], "{what}");
    });
}
