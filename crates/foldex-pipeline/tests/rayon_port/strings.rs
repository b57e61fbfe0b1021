//! rayon's `tests/str.rs`: a `&str`'s parts (`PipeStr`, rayon's `ParallelString`).

use super::*;
use foldex_pipeline::sources::PipeStr;

/// rayon's `s` is 1024 random chars from a seeded `StdRng`; here the chars are made from
/// `seeded_i32s` (those that are valid `char`s). rayon's `par_encode_utf16` has no foldex
/// counterpart: that line is left out.
#[test]
fn execute_strings() {
    let s: String = seeded_i32s(4096)
        .into_iter()
        .filter_map(|x| char::from_u32((x as u32) % 0x11_0000))
        .take(1024)
        .collect();
    assert_eq!(s.chars().count(), 1024);
    each("execute_strings", |ex, what| {
        let par_chars: String = s.pipe_chars().collect(ex);
        assert_eq!(s, par_chars, "{what}");

        let par_even: String = s.pipe_chars().filter(|&c| (c as u32) & 1 == 0).collect(ex);
        let ser_even: String = s.chars().filter(|&c| (c as u32) & 1 == 0).collect();
        assert_eq!(par_even, ser_even, "{what}");

        // rayon collects `&char`s into a `String`; foldex collects the `char`s.
        let vchars: Vec<char> = s.pipe_chars().collect(ex);
        let par_chars: String = vchars.pipe().copied().collect(ex);
        assert_eq!(s, par_chars, "{what}");

        let par_bytes: Vec<u8> = s.pipe_bytes().collect(ex);
        assert_eq!(s.as_bytes(), &*par_bytes, "{what}");

        let par_charind: Vec<_> = s.pipe_char_indices().collect(ex);
        let ser_charind: Vec<_> = s.char_indices().collect();
        assert_eq!(par_charind, ser_charind, "{what}");
    });
}

/// rayon also splits at a `&[char]`, a `[char; N]` and a `&[char; N]`: foldex's `CharPattern`
/// has `&[char]` and `[char; N]`, which are checked; `par_matches` and `par_match_indices`
/// have no foldex counterpart: those lines are left out.
#[test]
fn execute_strings_split() {
    let tests = vec![
        ("Mary had a little lamb", ' '),
        ("", 'X'),
        ("lionXXtigerXleopard", 'X'),
        ("||||a||b|c", '|'),
        ("(///)", '/'),
        ("010", '0'),
        ("    a  b c", ' '),
        ("A.B.", '.'),
        ("A..B..", '.'),
        ("foo\r\nbar\n\nbaz\n", '\n'),
        ("foo\nbar\n\r\nbaz", '\n'),
        ("A few words", ' '),
        (" Mary   had\ta\u{2009}little  \n\t lamb", ' '),
        ("Mary had a little lamb\nlittle lamb\nlittle lamb.", '\n'),
        ("Mary had a little lamb\nlittle lamb\nlittle lamb.\n", '\n'),
        (include_str!("strings.rs"), ' '),
    ];
    each("execute_strings_split", |ex, what| {
        macro_rules! check_separators {
            ($split:ident, $par_split:ident) => {
                for &(string, separator) in &tests {
                    let serial: Vec<_> = string.$split(separator).collect();
                    let parallel: Vec<_> = string.$par_split(separator).collect(ex);
                    assert_eq!(serial, parallel, "{what}");

                    let array = ['\u{0}', separator, '\u{1F980}'];
                    let array_ref = &array;
                    let slice: &[char] = array_ref;

                    let serial: Vec<_> = string.$split(slice).collect();
                    let parallel: Vec<_> = string.$par_split(slice).collect(ex);
                    assert_eq!(serial, parallel, "{what}");

                    let serial: Vec<_> = string.$split(array).collect();
                    let parallel: Vec<_> = string.$par_split(array).collect(ex);
                    assert_eq!(serial, parallel, "{what}");

                    let serial_fn: Vec<_> = string.$split(|c| c == separator).collect();
                    let parallel_fn: Vec<_> =
                        string.$par_split(move |c: char| c == separator).collect(ex);
                    assert_eq!(serial_fn, parallel_fn, "{what}");
                }
            };
        }
        check_separators!(split, pipe_split);
        check_separators!(split_inclusive, pipe_split_inclusive);
        check_separators!(split_terminator, pipe_split_terminator);

        for &(string, _) in &tests {
            let serial: Vec<_> = string.lines().collect();
            let parallel: Vec<_> = string.pipe_lines().collect(ex);
            assert_eq!(serial, parallel, "{what}");
        }
        for &(string, _) in &tests {
            let serial: Vec<_> = string.split_whitespace().collect();
            let parallel: Vec<_> = string.pipe_split_whitespace().collect(ex);
            assert_eq!(serial, parallel, "{what}");
        }
        for &(string, _) in &tests {
            let serial: Vec<_> = string.split_ascii_whitespace().collect();
            let parallel: Vec<_> = string.pipe_split_ascii_whitespace().collect(ex);
            assert_eq!(serial, parallel, "{what}");
        }
    });
}
