//! The machine's load, as `foldex bench` and `foldex advise` both read it: the load average,
//! and the warning when it is more than the command's own threads explain (others computed
//! meanwhile, so times are slower and more spread than on a quiet machine).

/// The machine's load average over the last minute (`sysinfo`); `None` where the platform has
/// none.
pub fn load_average() -> Option<f64> {
    let one = sysinfo::System::load_average().one;
    (one.is_finite() && one >= 0.0 && sysinfo::IS_SUPPORTED_SYSTEM).then_some(one)
}

/// Whether a load of `load` is more than threads keeping `own` cores busy explain: more than
/// one core's worth above it.
pub fn others_computed(load: f64, own: f64) -> bool {
    load > own + 1.0
}

/// The line that says the machine was loaded: `cores` and the load, then, when
/// [`others_computed`], a warning that the command's `own` load does not explain it.
pub fn describe(cores: usize, load: f64, own: f64) -> String {
    let mut text = format!("{cores} cores; load average over the last minute: {load:.2}");
    if others_computed(load, own) {
        text.push_str(&format!(
            "\nwarning: a load of {load:.2} is more than this run explains (about {own:.1}): \
             other processes took cores from it, so its times are slower and more spread than \
             on a quiet machine"
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_above_the_runs_own_is_a_warning() {
        assert_eq!(
            describe(2, 1.5, 2.0),
            "2 cores; load average over the last minute: 1.50"
        );
        let loaded = describe(2, 9.0, 2.0);
        assert!(
            loaded.starts_with("2 cores; load average over the last minute: 9.00\nwarning: a load of 9.00 is more than this run explains (about 2.0)"),
            "{loaded}"
        );
    }
}
