//! The environment variables the suites read (`PROPTEST_CASES`, `FOLDEX_COMPOSITION_CASES`,
//! `FOLDEX_COMPOSITION_SEED`...): a value that is not a whole number, or is over the variable's
//! cap, stops the test with a message naming the variable and the value, instead of being
//! quietly replaced by the default.

/// `name`'s value as a whole number (decimal, or hexadecimal after `0x`); `None` when the
/// variable is unset or empty.
///
/// # Panics
/// If the value is not a whole number, or is over `max`, with a message naming the variable,
/// the cap and the value.
pub fn number(name: &str, max: u64) -> Option<u64> {
    let value = std::env::var(name).ok();
    parse(name, value.as_deref(), max).unwrap_or_else(|message| panic!("{message}"))
}

/// A number of cases from `name`: `default` when the variable is unset, empty or 0 (as for
/// proptest's `PROPTEST_CASES`, 0 asks for the default rather than for no case at all).
///
/// # Panics
/// As [`number`], for a value that is not a whole number or does not fit a `u32`.
pub fn cases(name: &str, default: u32) -> u32 {
    match number(name, u64::from(u32::MAX)) {
        None | Some(0) => default,
        Some(cases) => u32::try_from(cases).expect("capped at u32::MAX"),
    }
}

/// `value` (the variable `name`'s, `None`: unset) as a number up to `max`, or the message that
/// refuses it.
fn parse(name: &str, value: Option<&str>, max: u64) -> Result<Option<u64>, String> {
    let Some(text) = value.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let digits = |d: &str, radix| !d.is_empty() && d.chars().all(|c| c.is_digit(radix));
    let parsed = match text.strip_prefix("0x") {
        Some(hex) if digits(hex, 16) => u64::from_str_radix(hex, 16).ok(),
        None if digits(text, 10) => text.parse().ok(),
        _ => {
            return Err(format!(
                "{name} must be a whole number (decimal, or hexadecimal after 0x), got {text:?}"
            ))
        }
    };
    // Only digits: a value that does not parse is too large for a u64, over any cap.
    match parsed {
        Some(number) if number <= max => Ok(Some(number)),
        _ => Err(format!("{name} must be at most {max}, got {text:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_and_empty_are_none() {
        assert_eq!(parse("X", None, 10), Ok(None));
        assert_eq!(parse("X", Some(" "), 10), Ok(None));
    }

    #[test]
    fn decimal_and_hexadecimal_up_to_the_cap() {
        assert_eq!(parse("X", Some(" 7 "), 10), Ok(Some(7)));
        assert_eq!(parse("X", Some("0"), 10), Ok(Some(0)));
        assert_eq!(parse("X", Some("0xa"), 10), Ok(Some(10)));
        assert_eq!(
            parse("X", Some("0xffffffffffffffff"), u64::MAX),
            Ok(Some(u64::MAX))
        );
    }

    #[test]
    fn a_value_that_is_not_a_whole_number_is_refused_by_name() {
        for value in ["many", "-1", "2.5", "0xg"] {
            assert_eq!(
                parse("PROPTEST_CASES", Some(value), 100),
                Err(format!(
                    "PROPTEST_CASES must be a whole number (decimal, or hexadecimal after 0x), \
                     got {value:?}"
                ))
            );
        }
    }

    #[test]
    fn a_value_over_the_cap_is_refused_naming_the_cap() {
        for value in ["4294967296", "99999999999999999999999"] {
            assert_eq!(
                parse("FOLDEX_COMPOSITION_CASES", Some(value), u64::from(u32::MAX)),
                Err(format!(
                    "FOLDEX_COMPOSITION_CASES must be at most 4294967295, got {value:?}"
                ))
            );
        }
    }
}
