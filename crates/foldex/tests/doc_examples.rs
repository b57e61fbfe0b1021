//! Every Markdown page of docs/ runs as a doc test: foldex's crate root includes each one
//! (`#[doc = include_str!(..)]` on a `cfg(doctest)` item), and foldex-mpi's includes
//! docs/distributed.md, whose examples need it. A page added to docs/ without that line fails
//! here, so no Rust block goes uncompiled.

use std::fs;
use std::path::Path;

#[test]
fn every_page_of_docs_is_a_doc_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let facade = fs::read_to_string(root.join("crates/foldex/src/lib.rs")).unwrap();
    let mpi = fs::read_to_string(root.join("crates/foldex-mpi/src/lib.rs")).unwrap();
    let mut pages = 0;
    let mut missing = Vec::new();
    for entry in fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        pages += 1;
        let name = path.file_name().unwrap().to_str().unwrap();
        let line = format!("include_str!(\"../../../docs/{name}\")");
        if !facade.contains(&line) && !mpi.contains(&line) {
            missing.push(name.to_string());
        }
    }
    assert!(pages > 0, "no page found in docs/");
    assert!(
        missing.is_empty(),
        "docs/ pages not run as doc tests (include them in crates/foldex/src/lib.rs): {missing:?}"
    );
    assert!(
        facade.contains("include_str!(\"../../../README.md\")"),
        "the README is not run as a doc test"
    );
}
