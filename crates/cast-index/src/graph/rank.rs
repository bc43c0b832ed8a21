//! PageRank over the symbol graph and the file graph.
//!
//! The textbook sparse power iteration over a list of weighted edges ([`EdgeList`]): each
//! iteration walks every edge once (O(|V| + |E|)), rank of nodes without out-edges is spread
//! evenly, and iteration stops when the L1 change drops under 1e-6 (or after 100 iterations). A
//! previous rank vector can seed the iteration, so a refresh after a small change converges in a
//! few steps.
//!
//! The edges are two `u32` ends and a weight in flat vectors (10 bytes an edge for the symbol
//! graph, whose weights are `1/k` kept as `k`), not a petgraph graph: petgraph's `DiGraph`
//! spends 24 bytes an edge plus its `f64` weight and two links per node, which on a tree of three
//! stdlib copies (2.7 M edges) was 114 MB of the build's peak; and its `algo::page_rank` is
//! O(iterations × |V|² × |E|) and unweighted (its docs say so). Each node sums its in-edges in
//! the order they were added, so the ranks come out the same bit for bit on any number of
//! threads.

/// The damping factor: the probability of following an edge rather than jumping anywhere.
pub const DAMPING: f64 = 0.85;
const TOLERANCE: f64 = 1e-6;
const MAX_ITERATIONS: usize = 100;

/// An edge's weight as an [`EdgeList`] holds it.
pub trait EdgeWeight: Copy {
    fn value(self) -> f64;
}

impl EdgeWeight for f64 {
    fn value(self) -> f64 {
        self
    }
}

/// A weight of `1 / k`, kept as `k` (two bytes rather than eight): a reference whose name had
/// `k` candidates weighs `1 / k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InverseCount(pub u16);

impl EdgeWeight for InverseCount {
    fn value(self) -> f64 {
        1.0 / f64::from(self.0.max(1))
    }
}

/// Directed weighted edges between nodes `0..nodes`, in the order they were added.
#[derive(Debug, Clone)]
pub struct EdgeList<W> {
    nodes: usize,
    ends: Vec<(u32, u32)>,
    weights: Vec<W>,
}

impl<W: EdgeWeight> EdgeList<W> {
    /// No edges between `nodes` nodes.
    pub fn new(nodes: usize) -> EdgeList<W> {
        EdgeList {
            nodes,
            ends: Vec::new(),
            weights: Vec::new(),
        }
    }

    /// No edges between `nodes` nodes yet, with room for `edges`.
    pub fn with_capacity(nodes: usize, edges: usize) -> EdgeList<W> {
        EdgeList {
            nodes,
            ends: Vec::with_capacity(edges),
            weights: Vec::with_capacity(edges),
        }
    }

    /// Adds an edge; one with an end out of range is left out.
    pub fn push(&mut self, source: u32, target: u32, weight: W) {
        if (source as usize) < self.nodes && (target as usize) < self.nodes {
            self.ends.push((source, target));
            self.weights.push(weight);
        }
    }

    pub fn node_count(&self) -> usize {
        self.nodes
    }

    pub fn edge_count(&self) -> usize {
        self.ends.len()
    }

    fn edges(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        self.ends
            .iter()
            .zip(&self.weights)
            .map(|(&(s, t), w)| (s as usize, t as usize, w.value().max(0.0)))
    }
}

/// The edges again, cut by target into ranges of [`NODES_PER_TASK`] nodes: range `r`'s edges
/// are `ends[starts[r]..starts[r + 1]]` (with `weights` beside them), in the order they were
/// added. Within a range the sources come mostly in order (edges are added file by file) and
/// the targets it adds to fit in a core's cache.
struct ByTarget<W> {
    starts: Vec<usize>,
    ends: Vec<(u32, u32)>,
    weights: Vec<W>,
}

impl<W: EdgeWeight> ByTarget<W> {
    /// A stable counting sort of the edges by their target's range. The list is taken, and
    /// freed once sorted: ranking holds the sorted copy alone through its iterations.
    fn of(graph: EdgeList<W>) -> ByTarget<W> {
        let ranges = graph.nodes.div_ceil(NODES_PER_TASK);
        let mut starts = vec![0usize; ranges + 1];
        for &(_, t) in &graph.ends {
            starts[t as usize / NODES_PER_TASK + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut at = starts.clone();
        // Copies, each slot then overwritten by the edge sorted into it.
        let (mut ends, mut weights) = (graph.ends.clone(), graph.weights.clone());
        for (&(s, t), &w) in graph.ends.iter().zip(&graph.weights) {
            let slot = &mut at[t as usize / NODES_PER_TASK];
            ends[*slot] = (s, t);
            weights[*slot] = w;
            *slot += 1;
        }
        ByTarget {
            starts,
            ends,
            weights,
        }
    }
}

/// Nodes whose next rank one task of an iteration computes.
const NODES_PER_TASK: usize = 1 << 14;

/// Ranks of every node (summing to 1) and the number of iterations taken.
///
/// Each iteration computes the next ranks a range of nodes at a time, ranges shared out over
/// the threads, each from the edges into it ([`ByTarget`]) in the order they were added: every
/// node's sum adds the same terms in the same order as one walk over all the edges, so the
/// ranks are the same bit for bit on any number of threads.
///
/// The list is taken: it is freed once sorted by target, before the ranks' vectors are made.
pub fn page_rank<W: EdgeWeight + Send + Sync>(
    graph: EdgeList<W>,
    seed: Option<&[f64]>,
) -> (Vec<f64>, usize) {
    use rayon::prelude::*;
    let nodes = graph.node_count();
    let out_weight = out_weights(&graph);
    let by_target = ByTarget::of(graph);
    iterate(nodes, out_weight, seed, |rank, out_weight, base, next| {
        next.par_chunks_mut(NODES_PER_TASK)
            .enumerate()
            .for_each(|(task, chunk)| {
                chunk.iter_mut().for_each(|x| *x = base);
                let first = task * NODES_PER_TASK;
                let edges = by_target.starts[task]..by_target.starts[task + 1];
                for (&(s, t), w) in by_target.ends[edges.clone()]
                    .iter()
                    .zip(&by_target.weights[edges])
                {
                    let out = out_weight[s as usize];
                    if out > 0.0 {
                        chunk[t as usize - first] +=
                            DAMPING * rank[s as usize] * w.value().max(0.0) / out;
                    }
                }
            });
    })
}

/// Each node's out-weight: its out-edges' weights summed in the order they were added.
fn out_weights<W: EdgeWeight>(graph: &EdgeList<W>) -> Vec<f64> {
    let mut out_weight = vec![0.0f64; graph.node_count()];
    for (s, _, w) in graph.edges() {
        out_weight[s] += w;
    }
    out_weight
}

/// The power iteration over `n` nodes around `step`, which fills the next ranks from the
/// ranks, the nodes' out-weights and what every node gets before its in-edges (the jump and the
/// spread rank of nodes without out-edges).
fn iterate(
    n: usize,
    out_weight: Vec<f64>,
    seed: Option<&[f64]>,
    mut step: impl FnMut(&[f64], &[f64], f64, &mut [f64]),
) -> (Vec<f64>, usize) {
    if n == 0 {
        return (Vec::new(), 0);
    }
    let uniform = 1.0 / n as f64;
    let mut rank: Vec<f64> = match seed {
        Some(s) if s.len() == n && s.iter().sum::<f64>() > 0.0 => {
            let total: f64 = s.iter().sum();
            s.iter().map(|r| r / total).collect()
        }
        _ => vec![uniform; n],
    };
    let mut next = vec![0.0f64; n];
    let mut iterations = 0;
    while iterations < MAX_ITERATIONS {
        iterations += 1;
        let dangling: f64 = rank
            .iter()
            .zip(&out_weight)
            .filter(|(_, w)| **w <= 0.0)
            .map(|(r, _)| r)
            .sum();
        let base = (1.0 - DAMPING) * uniform + DAMPING * dangling * uniform;
        step(&rank, &out_weight, base, &mut next);
        let delta: f64 = rank.iter().zip(&next).map(|(a, b)| (a - b).abs()).sum();
        std::mem::swap(&mut rank, &mut next);
        if delta < TOLERANCE {
            break;
        }
    }
    (rank, iterations)
}

/// [`page_rank`] as it was written first, walking the edges in the order they were added: what
/// the threaded one must give, bit for bit.
#[cfg(test)]
fn page_rank_by_edges<W: EdgeWeight>(
    graph: &EdgeList<W>,
    seed: Option<&[f64]>,
) -> (Vec<f64>, usize) {
    iterate(
        graph.node_count(),
        out_weights(graph),
        seed,
        |rank, out_weight, base, next| {
            next.iter_mut().for_each(|x| *x = base);
            for (s, t, w) in graph.edges() {
                let out = out_weight[s];
                if out > 0.0 {
                    next[t] += DAMPING * rank[s] * w / out;
                }
            }
        },
    )
}

/// A graph's out-edges by dense node index, `(target index, weight)`: a list per node, or the
/// index's compact file graph.
pub trait Neighbours {
    /// How many nodes there are (indices `0..node_count()`).
    fn node_count(&self) -> usize;
    /// The out-edges of node `u` (none for an index out of range).
    fn out_edges(&self, u: u32) -> &[(u32, f32)];
}

impl Neighbours for Vec<Vec<(u32, f32)>> {
    fn node_count(&self) -> usize {
        self.len()
    }

    fn out_edges(&self, u: u32) -> &[(u32, f32)] {
        self.as_slice().out_edges(u)
    }
}

impl Neighbours for [Vec<(u32, f32)>] {
    fn node_count(&self) -> usize {
        self.len()
    }

    fn out_edges(&self, u: u32) -> &[(u32, f32)] {
        self.get(u as usize).map_or(&[], Vec::as_slice)
    }
}

/// Personalised PageRank by forward push (Andersen, Chung and Lang 2006): the stationary
/// distribution of a walk that follows weighted out-edges with probability 1 − `restart` and
/// jumps back to the seeds otherwise, computed only around the seeds. `adjacency[u]` lists
/// `(v, weight)`; a node without out-edges keeps what reaches it. Pushes stop when no node holds
/// more than `epsilon` of residual per unit of out-weight (or after a fixed number of pushes),
/// so the work depends on the seeds' neighbourhood, not on the graph's size. Returns the nodes
/// that received some rank.
pub fn personalized_page_rank<G: Neighbours + ?Sized>(
    adjacency: &G,
    seeds: &[(u32, f64)],
    restart: f64,
    epsilon: f64,
) -> std::collections::HashMap<u32, f64> {
    use std::collections::VecDeque;
    // Dense by node: a push updates a slot without hashing (a few thousand pushes per query on
    // a large tree), and two vectors of the graph's size cost microseconds to zero.
    let n = adjacency.node_count();
    let mut estimate = vec![0.0f64; n];
    let mut residual = vec![0.0f64; n];
    let total: f64 = seeds.iter().map(|(_, w)| w.max(0.0)).sum();
    if total <= 0.0 {
        return std::collections::HashMap::new();
    }
    let mut queue: VecDeque<u32> = VecDeque::new();
    for (u, w) in seeds {
        if (*u as usize) < n {
            residual[*u as usize] += w.max(0.0) / total;
            queue.push_back(*u);
        }
    }
    let mut pushes = 0;
    while let Some(u) = queue.pop_front() {
        pushes += 1;
        if pushes > 200_000 {
            break;
        }
        let r = std::mem::take(&mut residual[u as usize]);
        if r <= 0.0 {
            continue;
        }
        let edges = adjacency.out_edges(u);
        let out: f64 = edges.iter().map(|(_, w)| f64::from(w.max(0.0))).sum();
        if out <= 0.0 {
            estimate[u as usize] += r;
            continue;
        }
        estimate[u as usize] += restart * r;
        let spread = (1.0 - restart) * r;
        for (v, w) in edges {
            let add = spread * f64::from(w.max(0.0)) / out;
            let slot = &mut residual[*v as usize];
            let before = *slot;
            *slot += add;
            let v_out = adjacency.out_edges(*v).len().max(1) as f64;
            if before <= epsilon * v_out && *slot > epsilon * v_out {
                queue.push_back(*v);
            }
        }
    }
    estimate
        .into_iter()
        .enumerate()
        .filter(|(_, e)| *e != 0.0)
        .map(|(u, e)| (u as u32, e))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ranks computed a range of targets at a time, on several threads, are the ranks of
    /// walking the edges in order, bit for bit: on a graph of many tasks' worth of nodes with
    /// repeated, dangling and self edges, with and without a seed.
    #[test]
    fn the_threaded_ranks_are_the_ranks_by_edges_bit_for_bit() {
        let n = 3 * NODES_PER_TASK + 123;
        let mut g = EdgeList::new(n);
        // A deterministic scatter of edges, heavier towards low node numbers.
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..(8 * n) {
            let s = (next() % n as u64) as u32;
            let t = ((next() % n as u64) * (next() % n as u64) / n as u64) as u32;
            if !s.is_multiple_of(97) {
                g.push(s, t, InverseCount((next() % 5) as u16 + 1));
            }
        }
        g.push(5, 5, InverseCount(1));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let (threaded, iterations) = pool.install(|| page_rank(g.clone(), None));
        let (by_edges, want_iterations) = page_rank_by_edges(&g, None);
        assert_eq!(iterations, want_iterations);
        assert!(iterations > 3);
        assert!(
            threaded
                .iter()
                .zip(&by_edges)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        let seed: Vec<f64> = (0..n).map(|i| 1.0 + (i % 7) as f64).collect();
        let (threaded, iterations) = pool.install(|| page_rank(g.clone(), Some(&seed)));
        let (by_edges, want_iterations) = page_rank_by_edges(&g, Some(&seed));
        assert_eq!(iterations, want_iterations);
        assert!(
            threaded
                .iter()
                .zip(&by_edges)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        // Floating-point weights too.
        let mut f = EdgeList::new(4);
        for (s, t, w) in [
            (0, 1, 0.5),
            (1, 2, 2.0),
            (2, 0, 1.0),
            (3, 2, 0.25),
            (0, 2, 1.5),
        ] {
            f.push(s, t, w);
        }
        let (a, _) = page_rank(f.clone(), None);
        let (b, _) = page_rank_by_edges(&f, None);
        assert!(a.iter().zip(&b).all(|(a, b)| a.to_bits() == b.to_bits()));
    }

    #[test]
    fn matches_the_closed_form_on_a_small_graph() {
        // a -> b, b -> c, c -> a, d -> c: c collects from two nodes and ranks highest.
        let mut g = EdgeList::new(4);
        for (s, t) in [(0, 1), (1, 2), (2, 0), (3, 2)] {
            g.push(s, t, 1.0);
        }
        let (r, _) = page_rank(g, None);
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert!(r[2] > r[0] && r[0] > r[1] && r[1] > r[3], "{r:?}");
        // d has no in-edges: only the random jump reaches it.
        assert!((r[3] - 0.15 / 4.0).abs() < 1e-6, "{r:?}");
    }

    #[test]
    fn a_seed_converges_to_the_same_ranks_faster() {
        let mut g = EdgeList::new(50);
        for i in 0..50 {
            g.push(i, i / 2, 1.0);
            g.push(i, (i * i + 1) % 50, 0.5);
        }
        let (cold, cold_iters) = page_rank(g.clone(), None);
        let (warm, warm_iters) = page_rank(g, Some(&cold));
        assert!(warm_iters < cold_iters, "{warm_iters} vs {cold_iters}");
        for (a, b) in cold.iter().zip(&warm) {
            assert!((a - b).abs() < 1e-5);
        }
    }

    #[test]
    fn personalised_rank_flows_from_the_seed_to_what_it_points_at() {
        // 0 → 1 → 2, and 3 → 0: seeded at 0, rank reaches 1 and 2 but never 3.
        let adj = vec![vec![(1, 1.0)], vec![(2, 1.0)], vec![], vec![(0, 1.0)]];
        let r = personalized_page_rank(&adj, &[(0, 1.0)], 0.15, 1e-9);
        assert!(r[&0] > 0.0 && r[&1] > 0.0 && r[&2] > 0.0);
        assert!(!r.contains_key(&3));
        assert!((r.values().sum::<f64>() - 1.0).abs() < 1e-6, "{r:?}");
        // 2 has no way out: it keeps what reaches it, the most.
        assert!(r[&2] > r[&1], "{r:?}");
    }

    #[test]
    fn weights_steer_the_rank() {
        let mut g = EdgeList::new(3);
        g.push(0, 1, 3.0);
        g.push(0, 2, 1.0);
        let (r, _) = page_rank(g, None);
        assert!(r[1] > r[2]);
    }

    #[test]
    fn an_inverse_count_weighs_one_over_k() {
        // 0 → 1 with one candidate, 0 → 2 as one of four: 1 gets four times 2's share of 0.
        let mut counted = EdgeList::new(3);
        counted.push(0, 1, InverseCount(1));
        counted.push(0, 2, InverseCount(4));
        let mut plain = EdgeList::new(3);
        plain.push(0, 1, 1.0);
        plain.push(0, 2, 0.25);
        assert_eq!(page_rank(counted, None), page_rank(plain, None));
        // k = 0 never divides by zero: it counts as one candidate.
        assert_eq!(InverseCount(0).value(), 1.0);
    }

    #[test]
    fn an_edge_to_a_node_out_of_range_is_left_out() {
        let mut g = EdgeList::new(2);
        g.push(0, 1, 1.0);
        g.push(0, 2, 1.0);
        g.push(7, 0, 1.0);
        assert_eq!(g.edge_count(), 1);
        let (r, _) = page_rank(g, None);
        assert_eq!(r.len(), 2);
    }
}
