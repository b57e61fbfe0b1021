//! Record files and CSV rows, on data each test writes, loaded through a loader on several
//! executors; malformed files and rows named by path and line.

use foldex_data::{CsvRows, DataError, Records};
use foldex_dataset::Dataset;
use foldex_loader::{Checked, ErrorPolicy, Loader};
use foldex_taskpool::TaskPoolEx;
use foldex_threaded::ThreadedEx;
use std::path::PathBuf;

/// A fresh directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("foldex-data-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn records_are_read_by_position_on_any_executor() {
    let dir = scratch("records");
    let path = dir.join("rows.bin");
    let (rows, size) = (1_009usize, 24usize);
    // Record r: its number, then bytes that depend on it.
    let record = |r: usize| -> Vec<u8> {
        let mut bytes = (r as u64).to_le_bytes().to_vec();
        bytes.extend((8..size).map(|b| (r * 31 + b) as u8));
        bytes
    };
    std::fs::write(&path, (0..rows).flat_map(record).collect::<Vec<u8>>()).unwrap();
    let records = || Records::open(&path, size).unwrap();
    assert_eq!((records().len(), records().record_size()), (rows, size));
    let loaders = [
        Loader::new(records(), ThreadedEx::new().basesize(1)),
        Loader::new(records(), TaskPoolEx::new().ntasks(3)),
    ];
    for loader in loaders {
        let loader = loader.batch_size(10).shuffle(3).reuse_buffers(true);
        for _epoch in 0..2 {
            let mut seen = vec![false; rows];
            for batch in &loader {
                for bytes in batch.iter() {
                    let bytes = bytes.as_ref().unwrap();
                    let r = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
                    assert_eq!(bytes, &record(r));
                    assert!(!std::mem::replace(&mut seen[r], true), "record {r} twice");
                }
            }
            assert!(seen.iter().all(|&s| s));
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_file_of_part_records_or_no_file_is_refused_by_name() {
    let dir = scratch("bad-records");
    let path = dir.join("ragged.bin");
    std::fs::write(&path, [0u8; 50]).unwrap();
    let err = Records::open(&path, 16).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: its size (50) is not a whole number of records of 16 bytes (2 left over)",
            path.display()
        )
    );
    std::fs::write(&path, [0u8; 1]).unwrap();
    let err = Records::open(&path, 2).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: its size (1) is not a whole number of records of 2 bytes (1 left over)",
            path.display()
        )
    );
    let missing = Records::open(dir.join("missing.bin"), 16).unwrap_err();
    assert!(matches!(missing, DataError::Io { .. }), "{missing}");
    assert!(missing.to_string().contains("missing.bin"));
    let zero = std::panic::catch_unwind(|| Records::open(&path, 0));
    assert!(zero.is_err(), "a record size of 0 is refused");
    std::fs::remove_dir_all(dir).unwrap();
}

#[derive(serde::Deserialize, Debug, Clone, PartialEq)]
struct Row {
    id: u32,
    score: f64,
    name: String,
}

#[test]
fn csv_rows_load_in_order_and_a_bad_row_goes_through_the_error_policy() {
    let dir = scratch("csv");
    let path = dir.join("rows.csv");
    let mut text = String::from("id,score,name\n");
    for i in 0..300 {
        if i == 137 {
            text.push_str("137,not-a-number,oops\n");
        } else {
            text.push_str(&format!("{i},{}.5,\"row {i}\"\n", i * 2));
        }
    }
    std::fs::write(&path, text).unwrap();
    let rows = CsvRows::<Row>::open(&path).unwrap();
    assert_eq!(rows.len(), 300);
    assert_eq!(
        rows.headers().iter().collect::<Vec<_>>(),
        ["id", "score", "name"]
    );
    let err = rows.get(137).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("{}: line 139:", path.display())),
        "{err}"
    );
    let loader = Loader::new(
        Checked::new(rows, ErrorPolicy::skip()),
        ThreadedEx::new().basesize(1),
    )
    .batch_size(16);
    let mut iter = loader.iter();
    let got: Vec<Row> = iter.by_ref().flatten().collect();
    assert_eq!(got.len(), 299);
    assert!(got
        .iter()
        .enumerate()
        .all(|(k, r)| r.id as usize == if k < 137 { k } else { k + 1 }));
    assert_eq!(
        got[0],
        Row {
            id: 0,
            score: 0.5,
            name: "row 0".into()
        }
    );
    let skipped = iter.stats().skipped;
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].index, 137);
    assert!(
        skipped[0].error.contains("line 139"),
        "{}",
        skipped[0].error
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_ragged_csv_is_refused_with_its_line() {
    let dir = scratch("ragged-csv");
    let path = dir.join("ragged.csv");
    std::fs::write(&path, "a,b\n1,2\n3\n").unwrap();
    let err = CsvRows::<(u8, u8)>::open(&path).unwrap_err();
    assert!(matches!(err, DataError::Malformed { .. }), "{err}");
    assert!(err.to_string().contains("line: 3"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}
