//! PageRank over the symbol graph and the file graph.
//!
//! petgraph's own `algo::page_rank` is O(iterations × |V|² × |E|) and unweighted (its docs say
//! so), hopeless for the ~300,000 symbols of a standard library. This is the textbook sparse
//! power iteration over a petgraph [`DiGraph`]: each iteration walks every edge once
//! (O(|V| + |E|)), edges are weighted, rank of nodes without out-edges is spread evenly, and
//! iteration stops when the L1 change drops under 1e-6 (or after 100 iterations). A previous
//! rank vector can seed the iteration, so a refresh after a small change converges in a few
//! steps.

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

/// Damping factor: the probability of following an edge rather than jumping anywhere.
pub const DAMPING: f64 = 0.85;
const TOLERANCE: f64 = 1e-6;
const MAX_ITERATIONS: usize = 100;

/// Ranks of every node (summing to 1) and the number of iterations taken.
pub fn page_rank<N>(graph: &DiGraph<N, f64>, seed: Option<&[f64]>) -> (Vec<f64>, usize) {
    let n = graph.node_count();
    if n == 0 {
        return (Vec::new(), 0);
    }
    let uniform = 1.0 / n as f64;
    let mut out_weight = vec![0.0f64; n];
    for e in graph.edge_references() {
        out_weight[e.source().index()] += e.weight().max(0.0);
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
        for e in graph.edge_references() {
            let s = e.source().index();
            let w = out_weight[s];
            if w > 0.0 {
                next[e.target().index()] += DAMPING * rank[s] * e.weight().max(0.0) / w;
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

/// A graph builder keyed by dense indexes 0..n.
pub fn graph_with_nodes(n: usize) -> DiGraph<(), f64> {
    let mut g = DiGraph::with_capacity(n, n * 4);
    for _ in 0..n {
        g.add_node(());
    }
    g
}

pub fn node(i: usize) -> NodeIndex {
    NodeIndex::new(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_closed_form_on_a_small_graph() {
        // a -> b, b -> c, c -> a, d -> c: c collects from two nodes and ranks highest.
        let mut g = graph_with_nodes(4);
        for (s, t) in [(0, 1), (1, 2), (2, 0), (3, 2)] {
            g.add_edge(node(s), node(t), 1.0);
        }
        let (r, _) = page_rank(&g, None);
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert!(r[2] > r[0] && r[0] > r[1] && r[1] > r[3], "{r:?}");
        // d has no in-edges: only the random jump reaches it.
        assert!((r[3] - 0.15 / 4.0).abs() < 1e-6, "{r:?}");
    }

    #[test]
    fn a_seed_converges_to_the_same_ranks_faster() {
        let mut g = graph_with_nodes(50);
        for i in 0..50 {
            g.add_edge(node(i), node(i / 2), 1.0);
            g.add_edge(node(i), node((i * i + 1) % 50), 0.5);
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
        let mut g = graph_with_nodes(3);
        g.add_edge(node(0), node(1), 3.0);
        g.add_edge(node(0), node(2), 1.0);
        let (r, _) = page_rank(&g, None);
        assert!(r[1] > r[2]);
    }
}
