//! Parsing of the values users type: sizes ("10000", "10_000") and durations ("100us", "0.1s").
//!
//! Each parser returns a message that says what was expected, so that clap can print it and
//! exit with code 2 instead of the program panicking on a bad value.

use std::time::Duration;

/// A positive whole number: `10000` or `10_000`. Zero and negative numbers are refused with a
/// message that repeats the value.
pub fn size(text: &str) -> Result<usize, String> {
    let cleaned: String = text.trim().chars().filter(|&c| c != '_').collect();
    if let Some(magnitude) = cleaned.strip_prefix('-')
        && !magnitude.is_empty()
        && magnitude.chars().all(|c| c.is_ascii_digit())
    {
        return Err(format!("must be at least 1, got {}", text.trim()));
    }
    match cleaned.parse::<usize>() {
        Ok(0) => Err("must be at least 1, got 0".to_owned()),
        Ok(n) => Ok(n),
        Err(_) if !cleaned.is_empty() && cleaned.chars().all(|c| c.is_ascii_digit()) => {
            Err(format!("{text:?} is too large"))
        }
        Err(_) => Err(format!(
            "expected a whole number such as 10000, got {text:?}"
        )),
    }
}

/// The units a duration may carry, longest spelling first so that "ms" is not read as "s".
const UNITS: [(&str, f64); 8] = [
    ("ns", 1e-9),
    ("us", 1e-6),
    ("µs", 1e-6),
    ("μs", 1e-6), // the Greek letter mu, which some keyboards give instead of the micro sign
    ("ms", 1e-3),
    ("s", 1.0),
    ("m", 60.0),
    ("h", 3600.0),
];

/// A positive duration with a unit: `10ns`, `100us` (or `100µs`), `1ms`, `0.1s`, `2m`, `1h`.
/// (Not `humantime`, which refuses the decimals, `0.1s`, that the bench's users type.)
pub fn duration(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    let Some((number, scale)) = UNITS
        .iter()
        .find_map(|&(unit, scale)| trimmed.strip_suffix(unit).map(|n| (n.trim(), scale)))
    else {
        return Err(if trimmed.parse::<f64>().is_ok() {
            format!("{text:?} has no unit: write it as 100us, 1ms or 0.1s")
        } else {
            format!("expected a duration such as 100us, 1ms or 0.1s, got {text:?}")
        });
    };
    let value: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && !number.starts_with('+'))
        .ok_or_else(|| format!("expected a duration such as 100us, 1ms or 0.1s, got {text:?}"))?;
    if value <= 0.0 {
        return Err(format!("must be greater than zero, got {trimmed}"));
    }
    let seconds = value * scale;
    // Durations above a day are typing mistakes here, and would overflow the arithmetic below.
    if seconds > 86_400.0 {
        return Err(format!("{text:?} is longer than a day"));
    }
    let duration = Duration::from_secs_f64(seconds);
    if duration.is_zero() {
        return Err(format!("{text:?} is shorter than a nanosecond"));
    }
    Ok(duration)
}

/// A duration as people write it: `100µs`, `1ms`, `1.5s`, with at most three significant
/// decimals.
pub fn format_duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    let (value, unit) = if secs >= 1.0 {
        (secs, "s")
    } else if secs >= 1e-3 {
        (secs * 1e3, "ms")
    } else if secs >= 1e-6 {
        (secs * 1e6, "µs")
    } else {
        (secs * 1e9, "ns")
    };
    let text = if value >= 100.0 || value.fract() == 0.0 {
        format!("{value:.0}")
    } else if value >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    };
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    };
    format!("{text}{unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(size("10000"), Ok(10_000));
        assert_eq!(size("10_000"), Ok(10_000));
        assert_eq!(size("0"), Err("must be at least 1, got 0".to_owned()));
        assert_eq!(size("-5"), Err("must be at least 1, got -5".to_owned()));
        assert!(size("ten").unwrap_err().contains("\"ten\""));
        assert!(size("").is_err());
        assert!(size("1.5").is_err());
        assert!(size("99999999999999999999999")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn durations() {
        assert_eq!(duration("100us"), Ok(Duration::from_micros(100)));
        assert_eq!(duration("100µs"), Ok(Duration::from_micros(100)));
        assert_eq!(duration("1ms"), Ok(Duration::from_millis(1)));
        assert_eq!(duration("0.1s"), Ok(Duration::from_millis(100)));
        assert_eq!(duration("10ns"), Ok(Duration::from_nanos(10)));
        assert_eq!(duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(duration(" 5 ms "), Ok(Duration::from_millis(5)));
    }

    #[test]
    fn bad_durations_say_why() {
        assert!(duration("100").unwrap_err().contains("no unit"));
        assert!(duration("fast")
            .unwrap_err()
            .contains("expected a duration"));
        assert!(duration("1.2.3ms")
            .unwrap_err()
            .contains("expected a duration"));
        assert!(duration("ms").unwrap_err().contains("expected a duration"));
        assert!(duration("-1ms").unwrap_err().contains("greater than zero"));
        assert!(duration("0s").unwrap_err().contains("greater than zero"));
        assert!(duration("NaNs").is_err());
        assert!(duration("infs").is_err());
        assert!(duration("1e9s").unwrap_err().contains("longer than a day"));
        assert!(duration("0.0001ns")
            .unwrap_err()
            .contains("shorter than a nanosecond"));
    }

    #[test]
    fn formatting_reads_back() {
        assert_eq!(format_duration(Duration::from_micros(100)), "100µs");
        assert_eq!(format_duration(Duration::from_millis(1)), "1ms");
        assert_eq!(format_duration(Duration::from_millis(100)), "100ms");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(format_duration(Duration::from_micros(12_345)), "12.3ms");
        assert_eq!(format_duration(Duration::from_nanos(10)), "10ns");
        for text in ["10us", "1ms", "100ms", "2s"] {
            let d = duration(text).unwrap();
            assert_eq!(duration(&format_duration(d).replace('µ', "u")), Ok(d));
        }
    }
}
