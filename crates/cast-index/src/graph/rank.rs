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
//! O(iterations × |V|² × |E|) and unweighted (its docs say so). Edges are walked in the order
//! they were added, so the sums, and the ranks, come out the same bit for bit.

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

/// Ranks of every node (summing to 1) and the number of iterations taken.
pub fn page_rank<W: EdgeWeight>(graph: &EdgeList<W>, seed: Option<&[f64]>) -> (Vec<f64>, usize) {
    let n = graph.node_count();
    if n == 0 {
        return (Vec::new(), 0);
    }
    let uniform = 1.0 / n as f64;
    let mut out_weight = vec![0.0f64; n];
    for (s, _, w) in graph.edges() {
        out_weight[s] += w;
    }
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
        next.iter_mut().for_each(|x| *x = base);
        for (s, t, w) in graph.edges() {
            let out = out_weight[s];
            if out > 0.0 {
                next[t] += DAMPING * rank[s] * w / out;
            }
        }
        let delta: f64 = rank.iter().zip(&next).map(|(a, b)| (a - b).abs()).sum();
        std::mem::swap(&mut rank, &mut next);
        if delta < TOLERANCE {
            break;
        }
    }
    (rank, iterations)
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

    #[test]
    fn matches_the_closed_form_on_a_small_graph() {
        // a -> b, b -> c, c -> a, d -> c: c collects from two nodes and ranks highest.
        let mut g = EdgeList::new(4);
        for (s, t) in [(0, 1), (1, 2), (2, 0), (3, 2)] {
            g.push(s, t, 1.0);
        }
        let (r, _) = page_rank(&g, None);
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
        let (cold, cold_iters) = page_rank(&g, None);
        let (warm, warm_iters) = page_rank(&g, Some(&cold));
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
        let (r, _) = page_rank(&g, None);
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
        assert_eq!(page_rank(&counted, None), page_rank(&plain, None));
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
        let (r, _) = page_rank(&g, None);
        assert_eq!(r.len(), 2);
    }
}
