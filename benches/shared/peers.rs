//! The workloads of the peer benchmark, shared by `benches/peers.rs` (criterion) and
//! `examples/peers_table.rs` (alternating rounds, a markdown table).
//!
//! Each [`Row`] is one shape of parallel code; each of its [`Contender`]s is that code written
//! as a new user of its library writes it, returning a checksum that must equal the sequential
//! loop's. foldex runs on `SequentialEx`, `ThreadedEx` (the global pool), `TaskPoolEx` and
//! `AutoEx`, through the facade's prelude (the join row: `ExecutorExt::join` on
//! `SequentialEx`, `ThreadedEx` on the global pool and `ThreadedEx::new().threads(1)`); rayon
//! on its global pool; orx-parallel with its
//! defaults; chili on one `ThreadPool::new()` made once, forking by `Scope::join` down to
//! [`CHILI_LEAF`] items (items of the uneven row: one), as its documentation's examples do;
//! the sequential loop is `std::iter` on the calling thread.
//!
//! The inputs are made once and leaked (they live as long as the process), so that every
//! contender borrows the same data.
//!
//! This file is compiled into both targets (`#[path]`), not into the crate's library: the peers
//! are dev-dependencies of the bench crate, which a library cannot use.
use foldex::prelude::*;
use foldex::protocol::Stream;
use orx_parallel::{IntoParIter, IterIntoParIter, Par, Parallelizable};
use rayon::prelude::*;
use std::collections::HashMap;
use std::hint::black_box;
use std::ops::Range;

/// Items per chili leaf on the rows of cheap items: chili forks by `join` down to this many
/// items, then folds them with `std::iter`.
pub const CHILI_LEAF: usize = 256;

/// The length of the memory-bound rows (sum, map + filter + sum).
pub const LARGE: usize = 10_000_000;

/// The length of the `find_first` and `collect` rows.
pub const MEDIUM: usize = 1_000_000;

/// The position of the only match of the `find_first` row: 1% of [`MEDIUM`].
pub const HIT: usize = MEDIUM / 100;

/// Rows × columns of the nested row.
pub const NESTED: (usize, usize) = (2000, 500);

/// Items of the uneven row.
pub const UNEVEN_ITEMS: usize = 2000;

/// Lines of the bridged word count.
pub const LINES: usize = 200_000;

/// Words in the word count's vocabulary.
pub const VOCABULARY: usize = 4000;

/// Levels of the tree of the join row: `2^TREE_DEPTH − 1` nodes.
pub const TREE_DEPTH: u32 = 20;

/// Which library a contender runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// One of foldex's executors.
    Foldex,
    /// rayon, orx-parallel or chili.
    Peer,
    /// The sequential loop (`std::iter`, or plain recursion) on the calling thread.
    Sequential,
}

/// One library's code for a row.
pub struct Contender {
    /// The name in the table and in criterion's report (`rayon`, `ThreadedEx`, ...).
    pub name: &'static str,
    /// Which library it runs on.
    pub side: Side,
    /// Runs the row once; returns its checksum.
    pub run: Box<dyn Fn() -> u64>,
}

impl Contender {
    fn new(name: &'static str, side: Side, run: impl Fn() -> u64 + 'static) -> Self {
        Contender {
            name,
            side,
            run: Box::new(run),
        }
    }
}

/// One shape of parallel code and its contenders.
pub struct Row {
    /// The row's name (`fold_16`, `nested_2000x500`, ...), the criterion group's last part.
    pub name: &'static str,
    /// What the row measures, in one line.
    pub measures: &'static str,
    /// The contenders, the sequential loop first.
    pub contenders: Vec<Contender>,
}

/// The contenders of foldex's four executors: `$body` is the row's code, with `$ex` the
/// executor, moved into the closure.
macro_rules! on_each_executor {
    (|$ex:ident| $body:expr) => {
        vec![
            Contender::new("SequentialEx", Side::Foldex, {
                let $ex = SequentialEx;
                move || $body
            }),
            Contender::new("ThreadedEx", Side::Foldex, {
                let $ex = ThreadedEx::new();
                move || $body
            }),
            Contender::new("TaskPoolEx", Side::Foldex, {
                let $ex = TaskPoolEx::new();
                move || $body
            }),
            Contender::new("AutoEx", Side::Foldex, {
                let $ex = AutoEx::new();
                move || $body
            }),
        ]
    };
}

fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

/// `combine(fold(range))` over `range`, split in halves by chili's `join` down to `leaf` items;
/// `fold` gets the scope, so that it may fork again.
fn chili_reduce<A: Send>(
    s: &mut chili::Scope<'_>,
    range: Range<usize>,
    leaf: usize,
    fold: &(impl Fn(&mut chili::Scope<'_>, Range<usize>) -> A + Sync),
    combine: &(impl Fn(A, A) -> A + Sync),
) -> A {
    if range.len() <= leaf {
        return fold(s, range);
    }
    let mid = range.start + range.len() / 2;
    let (a, b) = s.join(
        |s| chili_reduce(s, range.start..mid, leaf, fold, combine),
        |s| chili_reduce(s, mid..range.end, leaf, fold, combine),
    );
    combine(a, b)
}

fn add(a: u64, b: u64) -> u64 {
    a + b
}

/// The map of the map + filter + sum row: a multiplicative hash, 24 bits.
pub fn mix(x: u64) -> u64 {
    x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40
}

/// Item `i` of the uneven row: spins for `40 µs × (i / UNEVEN_ITEMS)³` (10 µs on average; the
/// last quarter of the items holds two thirds of the work), then returns `i`.
pub fn uneven_item(i: usize) -> u64 {
    let x = i as f64 / UNEVEN_ITEMS as f64;
    foldex_benches::spin_for((40_000.0 * x * x * x) as u64);
    i as u64
}

/// The word count's lines: `count` lines of 6 to 14 words (10 on average) drawn from
/// `vocabulary`, the lower words more often (the smaller of two uniform draws), generated as
/// they are pulled: an iterator with no length and no index.
pub fn lines(vocabulary: &'static [String], count: usize) -> impl Iterator<Item = String> + Send {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count).map(move |_| {
        let words = 6 + next() % 9;
        let mut line = String::new();
        for w in 0..words {
            if w > 0 {
                line.push(' ');
            }
            let n = vocabulary.len() as u64;
            let pick = (next() % n).min(next() % n);
            line.push_str(&vocabulary[pick as usize]);
        }
        line
    })
}

/// `VOCABULARY` distinct words: word `i` spelled in base 26, 3 to 7 letters.
pub fn vocabulary() -> Vec<String> {
    (0..VOCABULARY)
        .map(|i| {
            let len = 3 + i % 5;
            let mut rest = i;
            (0..len)
                .map(|_| {
                    let letter = char::from(b'a' + (rest % 26) as u8);
                    rest /= 26;
                    letter
                })
                .collect()
        })
        .collect()
}

/// One step of the word count: each word of `line` counted in `counts`.
pub fn count_words(mut counts: HashMap<String, usize>, line: String) -> HashMap<String, usize> {
    for word in line.split_whitespace() {
        *counts.entry(word.to_owned()).or_insert(0) += 1;
    }
    counts
}

/// The word count's merge: the smaller map added into the larger.
pub fn merge_counts(
    a: HashMap<String, usize>,
    b: HashMap<String, usize>,
) -> HashMap<String, usize> {
    let (mut into, from) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    for (word, n) in from {
        *into.entry(word).or_insert(0) += n;
    }
    into
}

/// The word count's checksum: distinct words × 10^9 + words counted.
pub fn counts_checksum(counts: &HashMap<String, usize>) -> u64 {
    counts.len() as u64 * 1_000_000_000 + counts.values().sum::<usize>() as u64
}

/// A node of the join row's binary tree.
pub struct Node {
    /// The node's value.
    pub value: u64,
    /// The left subtree.
    pub left: Option<Box<Node>>,
    /// The right subtree.
    pub right: Option<Box<Node>>,
}

/// How the nodes of the join row's tree lie in memory (each subtree in a block of its own).
///
/// A walk in the order of the nodes' addresses runs several times faster than one against
/// it (the sequential recursion: 2 ms against 17 to 60 ms on this machine, while other work
/// competed for memory), so the row is measured on both layouts: chili's `join` runs its second closure first on the
/// calling thread, rayon's and foldex's their first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// As chili's documentation builds it (`Node { left: tree(..), right: tree(..), .. }`):
    /// the left subtree, the right subtree, then the node; a walk that takes the right child
    /// first reads in memory order.
    ChildrenFirst,
    /// The node, then its left subtree, then its right one: a walk that takes the left child
    /// first reads in memory order.
    NodeFirst,
}

/// A complete binary tree of `depth` levels (`2^depth − 1` nodes, valued in preorder from
/// `first`), its nodes laid out by `layout`.
pub fn tree(depth: u32, first: u64, layout: Layout) -> Option<Box<Node>> {
    if depth == 0 {
        return None;
    }
    let node = |left, right| {
        Box::new(Node {
            value: first,
            left,
            right,
        })
    };
    let left = |layout| tree(depth - 1, first + 1, layout);
    let right = |layout| tree(depth - 1, first + (1 << (depth - 1)), layout);
    match layout {
        Layout::ChildrenFirst => {
            let l = left(layout);
            Some(node(l, right(layout)))
        }
        Layout::NodeFirst => {
            let mut n = node(None, None);
            n.left = left(layout);
            n.right = right(layout);
            Some(n)
        }
    }
}

/// The tree's sum by plain recursion.
pub fn tree_sum(node: &Option<Box<Node>>) -> u64 {
    match node {
        None => 0,
        Some(n) => n.value + tree_sum(&n.left) + tree_sum(&n.right),
    }
}

fn tree_sum_rayon(node: &Option<Box<Node>>) -> u64 {
    match node {
        None => 0,
        Some(n) => {
            let (l, r) = rayon::join(|| tree_sum_rayon(&n.left), || tree_sum_rayon(&n.right));
            n.value + l + r
        }
    }
}

fn tree_sum_foldex<E: Executor>(ex: &E, node: &Option<Box<Node>>) -> u64 {
    match node {
        None => 0,
        Some(n) => {
            let (l, r) = ex.join(
                || tree_sum_foldex(ex, &n.left),
                || tree_sum_foldex(ex, &n.right),
            );
            n.value + l + r
        }
    }
}

fn tree_sum_chili(s: &mut chili::Scope<'_>, node: &Option<Box<Node>>) -> u64 {
    match node {
        None => 0,
        Some(n) => {
            let (l, r) = s.join(
                |s| tree_sum_chili(s, &n.left),
                |s| tree_sum_chili(s, &n.right),
            );
            n.value + l + r
        }
    }
}

/// Every row, its inputs made (a few seconds: about 200 MB of them).
pub fn rows() -> Vec<Row> {
    let chili: &'static chili::ThreadPool = leak(chili::ThreadPool::new());
    let mut rows = vec![
        small_fold("fold_16", 16, chili),
        small_fold("fold_1000", 1000, chili),
    ];
    let large: &'static Vec<u64> = leak((0..LARGE as u64).collect());
    rows.push(sum(large, chili));
    rows.push(map_filter_sum(large, chili));
    rows.push(uneven(chili));
    rows.push(nested(chili));
    let medium: &'static Vec<u64> = leak((0..MEDIUM as u64).collect());
    rows.push(find_first(medium, chili));
    rows.push(collect(medium, chili));
    rows.push(word_count());
    rows.push(tree_join(chili, Layout::ChildrenFirst));
    rows.push(tree_join(chili, Layout::NodeFirst));
    rows
}

fn row(name: &'static str, measures: &'static str, contenders: Vec<Contender>) -> Row {
    Row {
        name,
        measures,
        contenders,
    }
}

fn small_fold(name: &'static str, n: u64, chili: &'static chili::ThreadPool) -> Row {
    let data: &'static Vec<u64> = leak((1..=n).collect());
    let mut c = vec![
        Contender::new("sequential", Side::Sequential, move || {
            black_box(data).iter().fold(0, |a, &x| a + x * x)
        }),
        Contender::new("rayon", Side::Peer, move || {
            black_box(data)
                .par_iter()
                .fold(|| 0, |a, &x| a + x * x)
                .reduce(|| 0, add)
        }),
        Contender::new("orx-parallel", Side::Peer, move || {
            let partials = black_box(data)
                .par()
                .fold(|| 0, |a: &mut u64, &x| *a += x * x);
            partials.into_iter().sum()
        }),
        Contender::new("chili", Side::Peer, move || {
            let data = black_box(data);
            let leaf = |_: &mut chili::Scope<'_>, r: Range<usize>| {
                data[r].iter().fold(0, |a, &x| a + x * x)
            };
            chili_reduce(&mut chili.scope(), 0..data.len(), CHILI_LEAF, &leaf, &add)
        }),
    ];
    c.extend(on_each_executor!(|ex| ex.fold(
        black_box(data),
        || 0,
        |a, &x| a + x * x,
        add
    )));
    let measures = if n == 16 {
        "one fold of 16 `u64` (a sum of squares): the fixed cost of a call"
    } else {
        "one fold of 1000 `u64` (a sum of squares): the fixed cost of a call"
    };
    row(name, measures, c)
}

fn sum(data: &'static Vec<u64>, chili: &'static chili::ThreadPool) -> Row {
    let mut c = vec![
        Contender::new("sequential", Side::Sequential, move || {
            black_box(data).iter().sum()
        }),
        Contender::new("rayon", Side::Peer, move || {
            black_box(data).par_iter().sum()
        }),
        Contender::new("orx-parallel", Side::Peer, move || {
            black_box(data).par().sum()
        }),
        Contender::new("chili", Side::Peer, move || {
            let data = black_box(data);
            let leaf = |_: &mut chili::Scope<'_>, r: Range<usize>| data[r].iter().sum();
            chili_reduce(&mut chili.scope(), 0..data.len(), CHILI_LEAF, &leaf, &add)
        }),
    ];
    c.extend(on_each_executor!(|ex| ex.sum::<u64>(black_box(data))));
    row(
        "sum_1e7",
        "sum of 10^7 `u64` from memory: bandwidth and splitting",
        c,
    )
}

fn map_filter_sum(data: &'static Vec<u64>, chili: &'static chili::ThreadPool) -> Row {
    let mut c = vec![
        Contender::new("sequential", Side::Sequential, move || {
            let hashes = black_box(data).iter().map(|&x| mix(x));
            hashes.filter(|h| h % 3 == 0).sum()
        }),
        Contender::new("rayon", Side::Peer, move || {
            let hashes = black_box(data).par_iter().map(|&x| mix(x));
            hashes.filter(|h| h % 3 == 0).sum()
        }),
        Contender::new("orx-parallel", Side::Peer, move || {
            let hashes = black_box(data).par().map(|&x| mix(x));
            hashes.filter(|h| h % 3 == 0).sum()
        }),
        Contender::new("chili", Side::Peer, move || {
            let data = black_box(data);
            let leaf = |_: &mut chili::Scope<'_>, r: Range<usize>| {
                let hashes = data[r].iter().map(|&x| mix(x));
                hashes.filter(|h| h % 3 == 0).sum()
            };
            chili_reduce(&mut chili.scope(), 0..data.len(), CHILI_LEAF, &leaf, &add)
        }),
    ];
    c.extend(on_each_executor!(|ex| {
        let hashes = black_box(data).pipe().map(|&x| mix(x));
        hashes.filter(|h| h % 3 == 0).sum::<u64>(&ex)
    }));
    row(
        "map_filter_sum_1e7",
        "10^7 `u64` hashed, a third kept, summed: a pipeline of cheap stages",
        c,
    )
}

fn uneven(chili: &'static chili::ThreadPool) -> Row {
    let n = UNEVEN_ITEMS;
    let mut c = vec![
        Contender::new("sequential", Side::Sequential, move || {
            (0..black_box(n)).map(uneven_item).sum()
        }),
        Contender::new("rayon", Side::Peer, move || {
            (0..black_box(n)).into_par_iter().map(uneven_item).sum()
        }),
        Contender::new("orx-parallel", Side::Peer, move || {
            (0..black_box(n)).into_par().map(uneven_item).sum()
        }),
        Contender::new("chili", Side::Peer, move || {
            let leaf = |_: &mut chili::Scope<'_>, r: Range<usize>| r.map(uneven_item).sum();
            chili_reduce(&mut chili.scope(), 0..black_box(n), 1, &leaf, &add)
        }),
    ];
    c.extend(on_each_executor!(|ex| (0..black_box(n))
        .pipe()
        .map(uneven_item)
        .sum::<u64>(&ex)));
    row(
        "uneven_2000",
        "2000 items of 0 to 40 µs of CPU, the cost growing as the cube of the index: balance",
        c,
    )
}

fn nested(chili: &'static chili::ThreadPool) -> Row {
    let (n_rows, n_cols) = NESTED;
    let rows: &'static Vec<Vec<u64>> = leak(
        (0..n_rows as u64)
            .map(|r| (0..n_cols as u64).map(|c| r * 7 + c).collect())
            .collect(),
    );
    let mut c = vec![
        Contender::new("sequential", Side::Sequential, move || {
            let rows = black_box(rows);
            rows.iter().map(|row| row.iter().sum::<u64>()).sum()
        }),
        Contender::new("rayon", Side::Peer, move || {
            let rows = black_box(rows);
            rows.par_iter().map(|row| row.par_iter().sum::<u64>()).sum()
        }),
        // orx-parallel's nested `par()` (`rows.par().map(|row| row.par().sum())`) does not
        // finish on 2 cores: left out, so that the run ends.
        Contender::new("chili", Side::Peer, move || {
            let rows = black_box(rows);
            let columns = |s: &mut chili::Scope<'_>, r: Range<usize>| {
                r.map(|i| {
                    let row = &rows[i];
                    let leaf = |_: &mut chili::Scope<'_>, c: Range<usize>| row[c].iter().sum();
                    chili_reduce(s, 0..row.len(), CHILI_LEAF, &leaf, &add)
                })
                .sum()
            };
            chili_reduce(&mut chili.scope(), 0..rows.len(), 1, &columns, &add)
        }),
    ];
    c.extend(on_each_executor!(|ex| ex.fold(
        black_box(rows),
        || 0,
        |acc, row| acc + ex.sum::<u64>(row),
        add
    )));
    row(
        "nested_2000x500",
        "an outer fold over 2000 rows, each step an inner fold over its 500 columns on the same executor",
        c,
    )
}

fn find_first(data: &'static Vec<u64>, chili: &'static chili::ThreadPool) -> Row {
    let hit = HIT as u64;
    let mut c = vec![
        Contender::new("sequential", Side::Sequential, move || {
            *black_box(data).iter().find(|&&x| x >= hit).unwrap()
        }),
        Contender::new("rayon", Side::Peer, move || {
            *black_box(data)
                .par_iter()
                .find_first(|&&x| x >= hit)
                .unwrap()
        }),
        Contender::new("orx-parallel", Side::Peer, move || {
            *black_box(data).par().find(|&&x| x >= hit).unwrap()
        }),
        // chili has no way to stop the other side of a join: each leaf searches its items.
        Contender::new("chili", Side::Peer, move || {
            let data = black_box(data);
            let leaf = |_: &mut chili::Scope<'_>, r: Range<usize>| {
                data[r].iter().find(|&&x| x >= hit).copied()
            };
            let first = |a: Option<u64>, b| a.or(b);
            chili_reduce(&mut chili.scope(), 0..data.len(), CHILI_LEAF, &leaf, &first).unwrap()
        }),
    ];
    c.extend(on_each_executor!(|ex| *black_box(data)
        .pipe()
        .find_first(&ex, |&&x| x >= hit)
        .unwrap()));
    row(
        "find_first_1e6",
        "the first match among 10^6 `u64`, at 1% of them: stopping early",
        c,
    )
}

/// The collect row's checksum: the length and two of the items.
fn vec_checksum(v: &[u64]) -> u64 {
    v.len() as u64 + v[v.len() / 3] + v[v.len() - 1]
}

fn chili_triple(s: &mut chili::Scope<'_>, input: &[u64], out: &mut [u64]) {
    if input.len() <= CHILI_LEAF {
        for (o, &x) in out.iter_mut().zip(input) {
            *o = x * 3;
        }
        return;
    }
    let mid = input.len() / 2;
    let (input_l, input_r) = input.split_at(mid);
    let (out_l, out_r) = out.split_at_mut(mid);
    s.join(
        |s| chili_triple(s, input_l, out_l),
        |s| chili_triple(s, input_r, out_r),
    );
}

fn collect(data: &'static Vec<u64>, chili: &'static chili::ThreadPool) -> Row {
    let mut c = vec![
        Contender::new("sequential", Side::Sequential, move || {
            let v: Vec<u64> = black_box(data).iter().map(|&x| x * 3).collect();
            vec_checksum(&v)
        }),
        Contender::new("rayon", Side::Peer, move || {
            let v: Vec<u64> = black_box(data).par_iter().map(|&x| x * 3).collect();
            vec_checksum(&v)
        }),
        Contender::new("orx-parallel", Side::Peer, move || {
            let v: Vec<u64> = black_box(data).par().map(|&x| x * 3).collect();
            vec_checksum(&v)
        }),
        Contender::new("chili", Side::Peer, move || {
            let data = black_box(data);
            let mut v = vec![0; data.len()];
            chili_triple(&mut chili.scope(), data, &mut v);
            vec_checksum(&v)
        }),
    ];
    c.extend(on_each_executor!(|ex| {
        let v: Vec<u64> = black_box(data).pipe().map(|&x| x * 3).collect(&ex);
        vec_checksum(&v)
    }));
    row(
        "collect_1e6",
        "10^6 `u64` mapped and collected into a `Vec`, in order",
        c,
    )
}

fn word_count() -> Row {
    let vocabulary: &'static [String] = leak(vocabulary());
    let n = LINES;
    let mut c = vec![
        Contender::new("sequential", Side::Sequential, move || {
            let counts = lines(vocabulary, black_box(n)).fold(HashMap::new(), count_words);
            counts_checksum(&counts)
        }),
        Contender::new("rayon", Side::Peer, move || {
            let counts = lines(vocabulary, black_box(n))
                .par_bridge()
                .fold(HashMap::new, count_words)
                .reduce(HashMap::new, merge_counts);
            counts_checksum(&counts)
        }),
        Contender::new("orx-parallel", Side::Peer, move || {
            let partials = lines(vocabulary, black_box(n)).iter_into_par().fold(
                HashMap::new,
                |counts, line| {
                    for word in line.split_whitespace() {
                        *counts.entry(word.to_owned()).or_insert(0) += 1;
                    }
                },
            );
            let counts = partials.into_iter().fold(HashMap::new(), merge_counts);
            counts_checksum(&counts)
        }),
        // chili has no bridge for an iterator: no contender.
    ];
    c.extend(on_each_executor!(|ex| {
        let stream = Stream::new(lines(vocabulary, black_box(n)));
        let counts = ex.fold(stream, HashMap::new, count_words, merge_counts);
        counts_checksum(&counts)
    }));
    row(
        "word_count_2e5_lines",
        "words of 2·10^5 generated lines (no index) counted in a `HashMap` per piece, merged",
        c,
    )
}

fn tree_join(chili: &'static chili::ThreadPool, layout: Layout) -> Row {
    let root: &'static Option<Box<Node>> = leak(tree(TREE_DEPTH, 0, layout));
    let c = vec![
        Contender::new("sequential", Side::Sequential, move || {
            tree_sum(black_box(root))
        }),
        Contender::new("rayon", Side::Peer, move || tree_sum_rayon(black_box(root))),
        Contender::new("chili", Side::Peer, move || {
            tree_sum_chili(&mut chili.scope(), black_box(root))
        }),
        Contender::new("SequentialEx", Side::Foldex, move || {
            tree_sum_foldex(&SequentialEx, black_box(root))
        }),
        Contender::new("ThreadedEx", Side::Foldex, {
            let ex = ThreadedEx::new();
            move || tree_sum_foldex(&ex, black_box(root))
        }),
        Contender::new("ThreadedEx(1)", Side::Foldex, {
            let ex = ThreadedEx::new().threads(1);
            move || tree_sum_foldex(&ex, black_box(root))
        }),
    ];
    match layout {
        Layout::ChildrenFirst => row(
            "tree_join_2e20",
            "the sum of a binary tree of 2^20 − 1 boxed nodes by recursive join, built as chili's documentation builds it (a right-first walk reads in memory order)",
            c,
        ),
        Layout::NodeFirst => row(
            "tree_join_2e20_node_first",
            "the same tree with each node allocated before its subtrees (a left-first walk reads in memory order)",
            c,
        ),
    }
}
