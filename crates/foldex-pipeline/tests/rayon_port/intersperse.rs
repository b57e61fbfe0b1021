//! rayon's `tests/intersperse.rs`.

use super::*;
use foldex_pipeline::sources::PipeStr;

#[test]
fn check_intersperse() {
    each("check_intersperse", |ex, what| {
        let v: Vec<i32> = (0_i32..1000).pipe().intersperse(-1).collect(ex);
        assert_eq!(v.len(), 1999, "{what}");
        for (i, x) in v.into_iter().enumerate() {
            assert_eq!(x, if i % 2 == 0 { i as i32 / 2 } else { -1 }, "{what}");
        }
    });
}

#[test]
fn check_intersperse_again() {
    each("check_intersperse_again", |ex, what| {
        let v: Vec<i32> = (0_i32..1000)
            .pipe()
            .intersperse(-1)
            .intersperse(-2)
            .collect(ex);
        assert_eq!(v.len(), 3997, "{what}");
        for (i, x) in v.into_iter().enumerate() {
            let y = match i % 4 {
                0 => i as i32 / 4,
                2 => -1,
                _ => -2,
            };
            assert_eq!(x, y, "{what}");
        }
    });
}

#[test]
fn check_intersperse_unindexed() {
    each("check_intersperse_unindexed", |ex, what| {
        let v: Vec<_> = (0..1000).map(|i| i.to_string()).collect();
        let s = v.join(",");
        let s2 = v.join(";");
        let par: String = s.pipe_split(',').intersperse(";").collect(ex);
        assert_eq!(par, s2, "{what}");
    });
}
