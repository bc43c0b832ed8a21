//! The ranks and the file graph as the index stores them: PageRank of symbols and files
//! computed at each refresh ([`crate::graph::rank`]), encoded into `meta` blobs, and decoded by every
//! query, map and `show`.

use rusqlite::Connection;

use crate::codec::{Reader, put_varint};
use crate::graph::rank::{self, EdgeList, InverseCount};
use crate::graph::resolve::{Catalog, Edge};
use crate::store::{self, build};

/// Ranks as stored: symbol (or file) id → rank.
pub(crate) fn decode_ranks(data: &[u8]) -> rustc_hash::FxHashMap<i64, f64> {
    SortedRanks::decode(data).iter().collect()
}

/// Stored ranks in ascending id order, looked up by binary search: a search, a map or `show`
/// looks up a few hundred of them, which is cheaper than hashing all (300 k on a large tree).
/// Ids and ranks are kept apart, the ranks as stored (`f32`): 12 bytes a symbol rather than 16,
/// since every query decodes all of them.
pub struct SortedRanks {
    ids: Vec<i64>,
    ranks: Vec<f32>,
}

impl SortedRanks {
    pub(crate) fn decode(data: &[u8]) -> SortedRanks {
        let mut r = Reader::new(data);
        let n = r.varint().unwrap_or(0) as usize;
        let mut ids = Vec::with_capacity(n.min(data.len()));
        let mut ranks = Vec::with_capacity(n.min(data.len()));
        let mut id = 0i64;
        for _ in 0..n {
            let (Some(delta), Some(rank)) = (r.varint(), r.f32()) else {
                // A blob that does not decode gives no ranks.
                return SortedRanks {
                    ids: Vec::new(),
                    ranks: Vec::new(),
                };
            };
            id += delta as i64;
            ids.push(id);
            ranks.push(rank);
        }
        SortedRanks { ids, ranks }
    }

    /// The rank of `id`, if it has one.
    pub fn get(&self, id: i64) -> Option<f64> {
        self.ids
            .binary_search(&id)
            .ok()
            .map(|i| f64::from(self.ranks[i]))
    }

    /// Every (id, rank), in id order.
    pub fn iter(&self) -> impl Iterator<Item = (i64, f64)> + '_ {
        self.ids
            .iter()
            .zip(&self.ranks)
            .map(|(id, r)| (*id, f64::from(*r)))
    }

    /// How many ids have a rank.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no id has a rank.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Every id, best rank first (ties by id). Only the head is sorted up front: a map reads
    /// a few hundred ids, and the rest is sorted only if a reader gets that far.
    pub fn best_first(&self) -> impl Iterator<Item = i64> {
        const HEAD: usize = 4096;
        let better = |a: &(i64, f64), b: &(i64, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        let mut head: Vec<(i64, f64)> = self.iter().collect();
        let mut rest = if head.len() > HEAD {
            head.select_nth_unstable_by(HEAD, better);
            head.split_off(HEAD)
        } else {
            Vec::new()
        };
        head.sort_unstable_by(better);
        let rest = std::iter::once(()).flat_map(move |()| {
            rest.sort_unstable_by(better);
            std::mem::take(&mut rest).into_iter()
        });
        head.into_iter().chain(rest).map(|(id, _)| id)
    }
}

fn encode_ranks(mut ranks: Vec<(i64, f64)>) -> Vec<u8> {
    ranks.sort_by_key(|(id, _)| *id);
    let mut out = Vec::with_capacity(ranks.len() * 6);
    put_varint(&mut out, ranks.len() as u64);
    let mut prev = 0i64;
    for (id, rank) in ranks {
        put_varint(&mut out, (id - prev) as u64);
        prev = id;
        out.extend_from_slice(&(rank as f32).to_le_bytes());
    }
    out
}

/// What ranking found: the iterations of the symbol graph and the edges it ranked over.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RankStats {
    pub iterations: usize,
    /// Resolved references between symbols, over the whole index.
    pub edges: usize,
}

/// Runs PageRank on the symbol graph and on the file graph and stores both, with the file graph.
///
/// The edges are read back from the index (every file's, in file id order, each file's in the
/// order they were resolved), not held by the catalog since resolution: a build holds one
/// [`EdgeList`] of integer ids, never every [`crate::graph::resolve::Edge`] at once.
///
/// `stored_edges`, when the caller knows it (it has just stored every file's edges), is how
/// many the files hold in all: the graph is then allocated at its size without counting them
/// first, a read of every file's edges.
pub(crate) fn rank_and_store(
    conn: &Connection,
    cat: &Catalog,
    workers: &crate::budget::Workers,
    stored_edges: Option<usize>,
) -> rusqlite::Result<RankStats> {
    let old_syms = store::get_meta(conn, "symbol_ranks")?
        .map(|b| decode_ranks(&b))
        .unwrap_or_default();
    let Graphs {
        symbols,
        files,
        resolved,
    } = graphs(conn, cat, workers, stored_edges)?;
    let (sym_ranks, iterations) = workers.install(|| symbol_ranks(cat, symbols, &old_syms));
    let file_ranks = workers.install(|| file_ranks(cat, &files));
    store::set_meta(conn, "symbol_ranks", &encode_ranks(sym_ranks))?;
    store::set_meta(conn, "file_ranks", &encode_ranks(file_ranks))?;
    store::set_meta(conn, "file_graph", &encode_file_graph(cat, &files))?;
    Ok(RankStats {
        iterations,
        edges: resolved,
    })
}

/// The class → member edges [`graphs`] adds to the symbol graph: a used class lends rank to its
/// methods.
fn member_edges(cat: &Catalog) -> usize {
    cat.syms
        .iter()
        .filter(|sym| {
            sym.parent()
                .is_some_and(|p| cat.syms[p as usize].kind.is_type())
        })
        .count()
}

/// One file's edges in the file graph: `(target file, weight)`, by target.
type FileEdges = Vec<(u32, f64)>;

/// The file graph by dense file index.
type FileGraph = Vec<FileEdges>;

/// What ranking runs on, read back from the stored edges by [`graphs`].
struct Graphs {
    symbols: EdgeList<InverseCount>,
    files: FileGraph,
    /// The resolved references between symbols the index holds (recursive calls included).
    resolved: usize,
}

/// The symbol graph and the file graph, from the stored edges (`stored_edges` of them in all,
/// counted here when not given).
///
/// Symbol graph: every symbol plus one node per file for module-level code. Edges: resolved
/// references (weight 1/k), then class → member (weight 1). File graph, by dense file index:
/// imports (weight 1) plus references between files (weight 1/k each, summed per pair of
/// files).
fn graphs(
    conn: &Connection,
    cat: &Catalog,
    workers: &crate::budget::Workers,
    stored_edges: Option<usize>,
) -> rusqlite::Result<Graphs> {
    let s = cat.syms.len();
    // Counted first (each blob starts with its count), so the list is allocated once at its
    // size: grown by doubling it would hold up to twice that, and copy it on the way.
    let stored_edges = match stored_edges {
        Some(n) => n,
        None => {
            let mut n = 0;
            build::for_each_file_edges(conn, |_, blob| n += blob.map_or(0, edge_count))?;
            n
        }
    };
    let mut symbols =
        EdgeList::with_capacity(s + cat.files.len(), stored_edges + member_edges(cat));
    let mut files: FileGraph = vec![Vec::new(); cat.files.len()];
    let mut visited = vec![false; cat.files.len()];
    let mut resolved = 0;
    // The blobs are read in file order on this thread and decoded a batch at a time on the
    // others (decoding every file's edges one after the other was most of a cold build's
    // ranking, with a core idle); the edges go into the list in file order all the same.
    let mut batch: Vec<(u32, Vec<u8>)> = Vec::with_capacity(DECODE_BATCH);
    let mut add_batch = |batch: &mut Vec<(u32, Vec<u8>)>| {
        let decoded: Vec<(u32, Vec<Edge>, FileEdges)> = workers.install(|| {
            use rayon::prelude::*;
            batch
                .par_iter()
                .map(|(fi, blob)| {
                    let edges = cat.decode_edges(blob).unwrap_or_default();
                    let to_files = file_edges(cat, *fi as usize, &edges);
                    (*fi, edges, to_files)
                })
                .collect()
        });
        batch.clear();
        for (fi, edges, to_files) in decoded {
            resolved += edges.len();
            // A recursive call is no evidence that the function matters to the rest of the
            // code: self-loops are left out of the rank (and ranks stay what they were before
            // they were resolved).
            for e in edges.iter().filter(|e| e.src != Some(e.dst)) {
                let src = e.src.unwrap_or(s as u32 + fi);
                symbols.push(src, e.dst, InverseCount(e.k));
            }
            files[fi as usize] = to_files;
            visited[fi as usize] = true;
        }
    };
    build::for_each_file_edges(conn, |id, blob| {
        let Some(fi) = cat.file_by_id.get(id) else {
            return;
        };
        batch.push((fi, blob.map(<[u8]>::to_vec).unwrap_or_default()));
        if batch.len() == DECODE_BATCH {
            add_batch(&mut batch);
        }
    })?;
    add_batch(&mut batch);
    for (fi, seen) in visited.into_iter().enumerate() {
        if !seen {
            files[fi] = file_edges(cat, fi, &[]);
        }
    }
    for (i, sym) in cat.syms.iter().enumerate() {
        if let Some(p) = sym.parent()
            && cat.syms[p as usize].kind.is_type()
        {
            symbols.push(p, i as u32, InverseCount(1));
        }
    }
    Ok(Graphs {
        symbols,
        files,
        resolved,
    })
}

/// How many edges a file's stored edges blob holds (it opens with the count); 0 for one that
/// does not decode.
pub(crate) fn edge_count(blob: &[u8]) -> usize {
    Reader::new(blob).varint().unwrap_or(0) as usize
}

/// Files whose edges [`graphs`] decodes at a time.
const DECODE_BATCH: usize = 512;

/// File `fi`'s edges in the file graph: its imports, then its `edges` to other files' symbols,
/// summed per file, by target.
fn file_edges(cat: &Catalog, fi: usize, edges: &[Edge]) -> FileEdges {
    let mut to: rustc_hash::FxHashMap<u32, f64> = rustc_hash::FxHashMap::default();
    for d in &cat.files[fi].deps {
        *to.entry(d.dst).or_default() += 1.0;
    }
    for e in edges {
        let dst_file = cat.syms[e.dst as usize].file;
        if dst_file as usize != fi {
            *to.entry(dst_file).or_default() += e.weight();
        }
    }
    let mut out: Vec<(u32, f64)> = to.into_iter().collect();
    out.sort_by_key(|(t, _)| *t);
    out
}

/// PageRank over the symbol graph ([`graphs`]), seeded with the ranks stored before.
fn symbol_ranks(
    cat: &Catalog,
    graph: EdgeList<InverseCount>,
    seed: &rustc_hash::FxHashMap<i64, f64>,
) -> (Vec<(i64, f64)>, usize) {
    let n = graph.node_count();
    let seed_vec: Option<Vec<f64>> = (!seed.is_empty()).then(|| {
        let uniform = 1.0 / n as f64;
        cat.syms
            .iter()
            .map(|sym| seed.get(&sym.id).copied().unwrap_or(uniform))
            .chain(std::iter::repeat_n(uniform, cat.files.len()))
            .collect()
    });
    let (ranks, iterations) = rank::page_rank(graph, seed_vec.as_deref());
    let out = cat
        .syms
        .iter()
        .zip(&ranks)
        .map(|(sym, r)| (sym.id, *r))
        .collect();
    (out, iterations)
}

/// The file graph as stored: file count, then per file its id, its edge count and each edge's
/// target id and weight.
fn encode_file_graph(cat: &Catalog, graph: &[Vec<(u32, f64)>]) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, graph.len() as u64);
    for (f, edges) in cat.files.iter().zip(graph) {
        put_varint(&mut out, f.id as u64);
        put_varint(&mut out, edges.len() as u64);
        for (t, w) in edges {
            put_varint(&mut out, cat.files[*t as usize].id as u64);
            out.extend_from_slice(&(*w as f32).to_le_bytes());
        }
    }
    out
}

/// Out-edges by dense node index, `(target index, weight)`, all in one list: a node's edges are
/// `edges[offsets[u]..offsets[u + 1]]`. Decoded on every search, so it costs three allocations
/// rather than one per file.
#[derive(Debug, Default)]
pub struct Adjacency {
    pub(crate) offsets: Vec<usize>,
    pub(crate) edges: Vec<(u32, f32)>,
}

impl crate::graph::rank::Neighbours for Adjacency {
    fn node_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    fn out_edges(&self, u: u32) -> &[(u32, f32)] {
        let u = u as usize;
        match (self.offsets.get(u), self.offsets.get(u + 1)) {
            (Some(&a), Some(&b)) => &self.edges[a..b],
            _ => &[],
        }
    }
}

/// Each file id's position in the stored file graph. File ids are nearly always dense (1 to the
/// file count, with the gaps deletions leave), so the positions are a list indexed by id; a
/// table by hash only when the ids are sparse.
#[derive(Debug)]
pub enum FilePositions {
    /// By id; [`FilePositions::NONE`] where an id has no file.
    Dense(Vec<u32>),
    Sparse(rustc_hash::FxHashMap<i64, u32>),
}

impl FilePositions {
    const NONE: u32 = u32::MAX;

    fn of(ids: &[i64]) -> FilePositions {
        let max = ids.iter().copied().max().unwrap_or(0);
        let dense_len = usize::try_from(max).ok().and_then(|m| m.checked_add(1));
        match dense_len {
            Some(len) if len <= 4 * ids.len() + 64 && ids.iter().all(|&id| id >= 0) => {
                let mut by_id = vec![Self::NONE; len];
                for (i, &id) in ids.iter().enumerate() {
                    by_id[id as usize] = i as u32;
                }
                FilePositions::Dense(by_id)
            }
            _ => FilePositions::Sparse(
                ids.iter()
                    .enumerate()
                    .map(|(i, &id)| (id, i as u32))
                    .collect(),
            ),
        }
    }

    /// The position of file `id`, if the graph has it.
    /// The position of file `id` in the graph, if it is in it.
    pub fn get(&self, id: i64) -> Option<u32> {
        match self {
            FilePositions::Dense(by_id) => usize::try_from(id)
                .ok()
                .and_then(|i| by_id.get(i))
                .copied()
                .filter(|&p| p != Self::NONE),
            FilePositions::Sparse(map) => map.get(&id).copied(),
        }
    }
}

/// The stored file graph, decoded: file ids by position, each id's position, and the
/// `(position, weight)` edges by position.
#[derive(Debug)]
pub struct StoredFileGraph {
    pub ids: Vec<i64>,
    pub pos: FilePositions,
    pub adjacency: Adjacency,
}

/// The stored file graph (see [`encode_file_graph`]); `None` when the bytes do not read.
pub(crate) fn decode_file_graph(data: &[u8]) -> Option<StoredFileGraph> {
    // Two passes: the ids first (edges name their targets by id), then the edges by position.
    let mut r = Reader::new(data);
    let n = r.varint()? as usize;
    let mut ids = Vec::with_capacity(n.min(1 << 24));
    let mut edge_count = 0usize;
    for _ in 0..n {
        ids.push(r.varint()? as i64);
        let k = r.varint()? as usize;
        edge_count = edge_count.saturating_add(k);
        for _ in 0..k {
            r.varint()?;
            r.f32()?;
        }
    }
    let pos = FilePositions::of(&ids);
    let mut adjacency = Adjacency {
        offsets: Vec::with_capacity(n + 1),
        edges: Vec::with_capacity(edge_count.min(data.len())),
    };
    adjacency.offsets.push(0);
    let mut r = Reader::new(data);
    r.varint()?;
    for _ in 0..n {
        r.varint()?;
        let k = r.varint()? as usize;
        for _ in 0..k {
            let (target, weight) = (r.varint()? as i64, r.f32()?);
            if let Some(p) = pos.get(target) {
                adjacency.edges.push((p, weight));
            }
        }
        adjacency.offsets.push(adjacency.edges.len());
    }
    Some(StoredFileGraph {
        ids,
        pos,
        adjacency,
    })
}

/// PageRank over the file graph.
fn file_ranks(cat: &Catalog, graph: &[Vec<(u32, f64)>]) -> Vec<(i64, f64)> {
    let mut g = EdgeList::new(cat.files.len());
    for (fi, edges) in graph.iter().enumerate() {
        for (t, w) in edges {
            g.push(fi as u32, *t, *w);
        }
    }
    let (ranks, _) = rank::page_rank(g, None);
    cat.files
        .iter()
        .zip(ranks)
        .map(|(f, r)| (f.id, r))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_best_first_are_a_full_sort_past_the_sorted_head() {
        // More ids than the sorted head, with ties (broken by id) on both sides of its edge.
        let ranks: Vec<(i64, f64)> = (1..=10_000i64)
            .map(|id| (id, f64::from(((id * 7919) % 1000) as u32)))
            .collect();
        let blob = encode_ranks(ranks.clone());
        let sorted = SortedRanks::decode(&blob);
        let mut expected = ranks;
        // Stored as f32, so compare in that precision.
        for r in &mut expected {
            r.1 = f64::from(r.1 as f32);
        }
        expected.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let got: Vec<i64> = sorted.best_first().collect();
        assert_eq!(got, expected.iter().map(|(id, _)| *id).collect::<Vec<_>>());
        assert_eq!(sorted.get(42), Some(f64::from(((42 * 7919) % 1000) as f32)));
        assert_eq!(sorted.get(10_001), None);
    }
}

/// Stored ranks, and on a log scale, 0 to 1 ([`crate::Snapshot::ranks`]).
pub struct Ranks {
    pub sorted: SortedRanks,
    max: f64,
    n: f64,
}

impl Ranks {
    pub(crate) fn new(blob: Option<Vec<u8>>) -> Ranks {
        let sorted = SortedRanks::decode(&blob.unwrap_or_default());
        let max = sorted.iter().map(|(_, r)| r).fold(0.0, f64::max);
        let n = sorted.len().max(1) as f64;
        Ranks { sorted, max, n }
    }

    /// The rank on a log scale, 0 to 1.
    pub fn score(&self, id: i64) -> f64 {
        let r = self.sorted.get(id).unwrap_or(0.0);
        if self.max <= 0.0 {
            return 0.0;
        }
        (1.0 + r * self.n).ln() / (1.0 + self.max * self.n).ln()
    }
}

/// Which stored ranks [`crate::Snapshot::ranks`] reads.
#[derive(Debug, Clone, Copy)]
pub enum RankedTable {
    Symbols,
    Files,
}

impl RankedTable {
    /// The `meta` key the ranks are stored under.
    pub(crate) fn key(self) -> &'static str {
        match self {
            RankedTable::Symbols => "symbol_ranks",
            RankedTable::Files => "file_ranks",
        }
    }
}
