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
