//! The modules of each crate import one another one way: no circle among a crate's top-level
//! modules. A folder module (`channel/`, `loader/`) counts as one module; its files may refer
//! to each other and to their parent, as the parts of one mechanism.
//!
//! The check reads the sources: every `crate::name` path (in `use` lines, groups included, and
//! in code) written in module `a` is an arrow from `a` to `name`.
//!
//! The crates themselves stand in layers ([`LAYERS`]): each crate's manifest names foldex crates
//! of lower layers only.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without `//` comments, so that a doc link or an explanation is no arrow.
fn code_of(source: &str) -> String {
    source
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn identifier_at(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The modules that `code` names right after `crate::`, groups (`crate::{a::X, b}`) included.
fn targets(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for part in group.split(',') {
                let name = identifier_at(part.trim());
                if part.trim().starts_with(&format!("{name}::")) {
                    found.insert(name.to_owned());
                }
            }
        } else {
            let name = identifier_at(rest);
            if rest[name.len()..].starts_with("::") {
                found.insert(name.to_owned());
            }
        }
    }
    found
}

fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut graph = Graph::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_str().unwrap().trim_end_matches(".rs").to_owned();
        if module == "lib" || module == "main" {
            continue;
        }
        let code = code_of(&fs::read_to_string(&file).unwrap());
        let arrows = graph.entry(module.clone()).or_default();
        arrows.extend(targets(&code).into_iter().filter(|t| *t != module));
    }
    graph
}

/// A circle of `graph`, if it has one.
fn find_circle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &Graph,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            return Some(path[at..].to_vec());
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_crate_has_an_import_circle_among_its_modules() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut checked = 0;
    for entry in fs::read_dir(&crates).unwrap() {
        let src = entry.unwrap().path().join("src");
        if !src.is_dir() {
            continue;
        }
        let graph = module_graph(&src);
        assert!(
            find_circle(&graph).is_none(),
            "{}: the modules {:?} import each other in a circle",
            src.display(),
            find_circle(&graph).unwrap()
        );
        checked += 1;
    }
    assert!(
        checked >= 9,
        "found only {checked} crates under {}",
        crates.display()
    );
}

#[test]
fn the_check_sees_a_circle_and_a_group_import() {
    let mut graph = Graph::new();
    let code = "use crate::{a::X, b};\nfn f() { crate::c::g(); } // crate::d::h";
    graph.insert("m".into(), targets(&code_of(code)));
    assert_eq!(graph["m"], BTreeSet::from(["a".to_owned(), "c".to_owned()]));
    graph.insert("a".into(), BTreeSet::from(["m".to_owned()]));
    assert_eq!(
        find_circle(&graph),
        Some(vec!["a".to_owned(), "m".to_owned()])
    );
    graph.get_mut("a").unwrap().clear();
    assert_eq!(find_circle(&graph), None);
}

/// The crates in layers, lowest first: a crate's `[dependencies]` on foldex crates point only to
/// lower layers (no arrow up or sideways, so no circle). The data layer (`foldex-dataset`) uses
/// no threads; the loader and the datasets build on it and on core, and take their executor
/// from the caller; the facade picks the executors a program names; the
/// integrations with MPI and burn come last.
const LAYERS: &[&[&str]] = &[
    &["foldex-core"],
    &[
        "foldex-seq",
        "foldex-threaded",
        "foldex-taskpool",
        "foldex-pipeline",
        "foldex-dataset",
    ],
    &[
        "foldex-auto",
        "foldex-loader",
        "foldex-data",
        "foldex-testkit",
    ],
    &["foldex"],
    &["foldex-cli"],
    // The workspaces of their own: a framework's integration on top of the loader.
    &["foldex-mpi", "foldex-burn"],
];

/// The foldex crates that the `[dependencies]` table of `manifest` names.
fn foldex_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut in_dependencies = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        let name = identifier_with_dashes(line);
        if in_dependencies && (name == "foldex" || name.starts_with("foldex-")) {
            found.insert(name.to_owned());
        }
    }
    found
}

fn identifier_with_dashes(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(text.len());
    &text[..end]
}

fn layer_of(name: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&name))
}

#[test]
fn every_crate_depends_only_on_lower_layers() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut checked = 0;
    for entry in fs::read_dir(&crates).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(manifest) = fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let name = dir.file_name().unwrap().to_str().unwrap().to_owned();
        let layer =
            layer_of(&name).unwrap_or_else(|| panic!("{name} is in no layer: add it to LAYERS"));
        for dependency in foldex_dependencies(&manifest) {
            let below = layer_of(&dependency).is_some_and(|l| l < layer);
            assert!(
                below,
                "{name} (layer {layer}) depends on {dependency}, which is not in a lower layer"
            );
        }
        checked += 1;
    }
    assert!(checked >= 10, "found only {checked} crates");
}

#[test]
fn the_loader_and_the_datasets_build_on_core_and_the_data_layer_only() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for name in ["foldex-dataset", "foldex-loader", "foldex-data"] {
        let manifest = fs::read_to_string(crates.join(name).join("Cargo.toml")).unwrap();
        let allowed = BTreeSet::from(["foldex-core".to_owned(), "foldex-dataset".to_owned()]);
        let extra: Vec<_> = foldex_dependencies(&manifest)
            .difference(&allowed)
            .cloned()
            .collect();
        assert!(extra.is_empty(), "{name} depends on {extra:?}");
    }
}

#[test]
fn the_layer_check_reads_only_the_dependencies_table() {
    let manifest = "[dependencies]\nfoldex-core = { workspace = true }\nserde = \"1\"\n\
                    [dev-dependencies]\nfoldex-threaded = { path = \"..\" }\n";
    assert_eq!(
        foldex_dependencies(manifest),
        BTreeSet::from(["foldex-core".to_owned()])
    );
}
