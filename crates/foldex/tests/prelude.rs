//! Importing foldex's prelude, or everything at its root, changes the meaning of no ordinary
//! code: `Vec`, slice, array and range methods keep answering as `std` does, and `core` still
//! names the standard library's crate.
#![allow(unused_imports)]

mod with_prelude {
    use foldex::prelude::*;

    #[test]
    fn std_methods_keep_their_meaning() {
        let v = vec![10u32, 20, 30];
        assert_eq!(v.get(5), None);
        assert_eq!(v.get(1), Some(&20));
        assert_eq!(v.len(), 3);
        assert!(!v.is_empty());
        let s: &[u32] = &v;
        assert_eq!(s.get(7), None);
        assert_eq!(s.len(), 3);
        let a = [1, 2, 3];
        assert_eq!(a.get(3), None);
        assert_eq!(a.len(), 3);
        let r = 0..10usize;
        assert_eq!(r.len(), 10);
        assert_eq!((1..=4u8).len(), 4);
        assert_eq!((0..10).map(|x| x * 2).sum::<i32>(), 90);
        let by_ref = &v;
        assert_eq!(by_ref.get(3), None);
        // And foldex's own names still work.
        assert_eq!(v.pipe().copied().sum::<u32>(&SequentialEx), 60);
        assert_eq!(ThreadedEx::new().sum::<usize>(0..10), 45);
        assert_eq!(load(vec![1u8, 2, 3]).unbatched().iter().count(), 3);
    }
}

mod with_root_glob {
    use foldex::*;

    #[test]
    fn core_and_std_methods_keep_their_meaning() {
        assert_eq!(core::mem::size_of::<u64>(), 8);
        let v = vec![1u8, 2];
        assert_eq!(v.get(2), None);
        assert_eq!((0..3usize).len(), 3);
        assert_eq!(v.pipe().count(&SequentialEx), 2);
    }
}

/// A program that uses rayon's prelude keeps compiling with foldex's beside it: no method of
/// foldex's prelude shares a name with one of rayon's (foldex's `par_sort` and `par_extend` are
/// imported by name).
mod beside_rayons_prelude {
    use foldex::prelude::*;
    use rayon::prelude::*;

    #[test]
    fn rayons_calls_stay_unambiguous() {
        let mut v = vec![3u32, 1, 2];
        v.par_sort();
        v.par_sort_unstable();
        v.par_extend(vec![4u32, 5].into_par_iter());
        assert_eq!(v, [1, 2, 3, 4, 5]);
        let sum: u32 = v.par_iter().sum();
        assert_eq!(sum, v.pipe().copied().sum::<u32>(&SequentialEx));
    }
}

/// The paths rustc suggests in its hints name an item by the crate that defines it; they
/// resolve through the facade. Names that moved from the root still build, deprecated.
mod paths_rustc_suggests {
    #[test]
    fn member_crates_resolve_under_their_own_names() {
        use foldex::foldex_dataset::Dataset;
        struct Squares;
        impl Dataset for Squares {
            type Item = u64;
            fn len(&self) -> usize {
                4
            }
            fn get(&self, i: usize) -> u64 {
                (i * i) as u64
            }
        }
        assert_eq!(Squares.get(3), 9);
        let ex = foldex::foldex_threaded::ThreadedEx::new();
        assert_eq!(foldex::foldex_core::ExecutorExt::sum::<usize>(&ex, 0..4), 6);
        let loaded = foldex::foldex_loader::Loader::new(Squares, ex).unbatched();
        assert_eq!(loaded.iter().count(), 4);
    }

    #[test]
    #[allow(deprecated)]
    fn names_moved_from_the_root_still_build() {
        let stream: foldex::Stream<_> = foldex::protocol::Stream::new(0..3u32);
        let sum: u32 = foldex::from_stream(stream).sum(&foldex::SequentialEx);
        assert_eq!(sum, 3);
        let piped: foldex::Pipeline<&[u8]> = foldex::IntoPipeline::pipe(&[1u8, 2][..]);
        assert_eq!(piped.count(&foldex::SequentialEx), 2);
        let _: Option<foldex::EpochOrder> = None;
        let _: Option<foldex::AutoChoice> = None;
        let _: Option<foldex::PoolError> = None;
        let _: Option<foldex::ConfigError> = None;
        let _: Option<foldex::ItemError<String>> = None;
    }
}
