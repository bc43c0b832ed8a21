//! What a symbol of the map calls (its `→` list): the calls resolved to one definition, the
//! highest ranked first; guesses by name are left out.

use std::collections::HashMap;

use cast_index::SortedRanks;
use cast_index::graph::resolve::decode_edges_raw;
use cast_index::rows::FileBlob;

use crate::Result;
use crate::reader::Reader;

/// Calls shown after a key symbol.
const CALLEES: usize = 3;

/// Per file, per calling symbol: each callee some call resolved to (not by name alone).
pub(super) type CalleesByFile = HashMap<i64, HashMap<i64, Vec<i64>>>;

impl Reader<'_> {
    /// What `sym` calls, for its line of the map: the best [`CALLEES`] by rank, each resolved to
    /// one definition (the file's edges are decoded once and kept in `cache`). A call found by
    /// name alone (`x.rstrip()`, the receiver's type unknown) is a guess, and the map states no
    /// guess as a fact: it is left out (`cast show` lists guesses apart, marked `?`). A
    /// generated file (a minified bundle, protobuf output) shows no calls: they are the
    /// generator's, not code anyone reads.
    pub(super) fn callees(
        &self,
        cache: &mut CalleesByFile,
        file_id: i64,
        sym: i64,
        ranks: &SortedRanks,
    ) -> Result<Vec<String>> {
        if self.snap.file_roles()?.of(file_id).generated {
            return Ok(Vec::new());
        }
        if let std::collections::hash_map::Entry::Vacant(slot) = cache.entry(file_id) {
            let blob = self.snap.file_blob(file_id, FileBlob::Edges)?;
            // Each callee once, when some call to it resolved.
            let mut by_src: HashMap<i64, Vec<i64>> = HashMap::new();
            for e in blob.and_then(|b| decode_edges_raw(&b)).unwrap_or_default() {
                if e.kind == cast_parser::RefKind::Call
                    && e.k == 1
                    && e.src != e.dst
                    && e.how != cast_index::graph::resolve::How::Name
                {
                    let list = by_src.entry(e.src).or_default();
                    if !list.contains(&e.dst) {
                        list.push(e.dst);
                    }
                }
            }
            slot.insert(by_src);
        }
        let mut dsts = cache
            .get(&file_id)
            .and_then(|m| m.get(&sym))
            .cloned()
            .unwrap_or_default();
        dsts.sort_by(|a, b| {
            let ra = ranks.get(*a).unwrap_or(0.0);
            let rb = ranks.get(*b).unwrap_or(0.0);
            rb.total_cmp(&ra).then(a.cmp(b))
        });
        let mut out = Vec::new();
        for d in dsts {
            if out.len() == CALLEES {
                break;
            }
            let Some(info) = self.sym_info(d)? else {
                continue;
            };
            out.push(info.qualname);
        }
        Ok(out)
    }
}
