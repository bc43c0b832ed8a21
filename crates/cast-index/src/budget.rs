//! How much memory a build may hold in the parts of it that do not grow with the tree.

/// The memory a build or refresh may spend on its bounded parts: SQLite's page cache (a
/// quarter of the budget while the parse results are written, a sixteenth while references are
/// resolved), the parse results waiting to be written in path order (two files per MiB), and
/// the files whose references resolution decodes at once (four per MiB: two batches, one
/// resolved while the next is read); as many files again may wait for each table a cold build
/// writes apart.
/// Like tantivy's writer arena, it bounds what is buffered, not what the tree is: the catalog
/// resolution looks names up in (a few hundred bytes a symbol) and ranking's edge list (10 bytes an
/// edge) grow with the tree. Each parse thread holds one file's syntax tree and its allocator's
/// pages, and each resolution thread its own, so the budget also caps how many threads a build
/// runs its work on ([`Self::threads`], [`Workers`]): the peak does not grow with the machine's
/// cores either.
///
/// The default, 256 MiB, is the size every figure in `docs/analyzer.md` was measured with: a
/// cold build of the stdlib with site-packages (141 MB of source) peaks at about 185 MB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryBudget {
    mebibytes: u64,
}

impl MemoryBudget {
    /// The smallest budget taken: below it the windows would starve the parse threads.
    pub const MIN_MEBIBYTES: u64 = 32;

    /// A budget of `mebibytes` MiB, raised to [`Self::MIN_MEBIBYTES`].
    pub fn mebibytes(mebibytes: u64) -> MemoryBudget {
        MemoryBudget {
            mebibytes: mebibytes.max(Self::MIN_MEBIBYTES),
        }
    }

    pub fn as_mebibytes(self) -> u64 {
        self.mebibytes
    }

    /// How many threads a build parses and resolves on, at most: one per 64 MiB (4 at the
    /// default budget). Measured on the stdlib with site-packages on two cores with rayon's
    /// pool set to more threads (`RAYON_NUM_THREADS`), each thread beyond two added 5–7 MiB to
    /// a cold build's peak (about 170 MiB with 2, 180 with 4, 200–215 with 8, 269 with 16, the
    /// tables' queues deepening with the parse threads), which on three copies of the tree
    /// (about 260 MiB with 2) would pass 300 MiB with 8. On 16 cores the 16 parse threads were
    /// busy about a quarter of the time, the threads that write the tables being what bounds
    /// the build there (`docs/analyzer.md`, On 16 cores), so 4 keep up with little loss.
    pub(crate) fn threads(self) -> usize {
        usize::try_from(self.mebibytes / 64)
            .unwrap_or(usize::MAX)
            .max(1)
    }

    /// SQLite's page cache for the writing connection, in KiB.
    pub(crate) fn page_cache_kib(self) -> u64 {
        self.mebibytes * 1024 / 4
    }

    /// SQLite's page cache while resolution runs, in KiB. Resolution reads each file's
    /// references once a pass and writes its edges once, so pages are seldom read twice and a
    /// large cache buys nothing (a cold build of three copies of the standard library resolved
    /// in the same time with 16 MiB as with 64), while the catalog beside it grows with the
    /// tree.
    pub(crate) fn resolve_cache_kib(self) -> u64 {
        self.mebibytes * 1024 / 16
    }

    /// Parse results that may wait ahead of the one being written.
    pub(crate) fn parse_window(self) -> usize {
        (self.mebibytes as usize).saturating_mul(2).clamp(16, 8192)
    }

    /// Files that may wait for each of a cold build's table threads (`writer::apart`) when
    /// `threads` parse: 32 per parse thread, at least 64, at most as many as may wait to be
    /// written. Which table thread is behind changes with the files (a run of long docstrings
    /// loads the files' full text, one of small classes the symbols' tables); with many parse
    /// threads, 64 kept the writer waiting on one of them while the others idled. With few, the
    /// table threads share the cores with the parse and a deeper queue only holds more.
    pub(crate) fn apart_queue(self, threads: usize) -> usize {
        threads
            .saturating_mul(32)
            .clamp(64, self.parse_window().max(64))
    }

    /// Files in one batch of resolution: two batches' references are decoded at once (one
    /// resolved while the next is read).
    pub(crate) fn resolve_batch(self) -> usize {
        (self.mebibytes as usize).saturating_mul(2).clamp(32, 8192)
    }
}

/// The threads a build's work runs on: the caller's rayon pool when it has at most the
/// budget's [`MemoryBudget::threads`], else a pool of that many of the build's own, started
/// when work first asks for it (a refresh that parses and resolves nothing starts none).
pub(crate) struct Workers {
    /// The budget's threads, when the caller's pool has more.
    most: Option<usize>,
    pool: std::sync::OnceLock<Option<rayon::ThreadPool>>,
}

impl Workers {
    pub(crate) fn for_budget(budget: MemoryBudget) -> Workers {
        let most = budget.threads();
        Workers {
            most: (rayon::current_num_threads() > most).then_some(most),
            pool: std::sync::OnceLock::new(),
        }
    }

    /// How many threads the work runs on.
    pub(crate) fn threads(&self) -> usize {
        self.most.unwrap_or_else(rayon::current_num_threads)
    }

    /// Runs `work` with its parallel iterators on these threads.
    pub(crate) fn install<R: Send>(&self, work: impl FnOnce() -> R + Send) -> R {
        let Some(most) = self.most else {
            return work();
        };
        // Should the pool not start, the work runs on the caller's, only with more memory.
        let pool = self.pool.get_or_init(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(most)
                .thread_name(|i| format!("cast build {i}"))
                .build()
                .ok()
        });
        match pool {
            Some(pool) => pool.install(work),
            None => work(),
        }
    }
}

impl Default for MemoryBudget {
    fn default() -> MemoryBudget {
        MemoryBudget::mebibytes(256)
    }
}

#[cfg(test)]
mod tests {
    use super::{MemoryBudget, Workers};

    #[test]
    fn the_default_budget_is_what_the_build_used_before_it_had_one() {
        let budget = MemoryBudget::default();
        assert_eq!(budget.page_cache_kib(), 65536);
        assert_eq!(budget.resolve_cache_kib(), 16384);
        assert_eq!(budget.parse_window(), 512);
        // Two batches at once: the 1,024 files' references it held before it had a budget.
        assert_eq!(budget.resolve_batch(), 512);
    }

    #[test]
    fn the_budget_caps_the_parse_threads() {
        assert_eq!(MemoryBudget::default().threads(), 4);
        assert_eq!(MemoryBudget::mebibytes(128).threads(), 2);
        assert_eq!(MemoryBudget::mebibytes(1).threads(), 1);
        assert_eq!(MemoryBudget::mebibytes(4096).threads(), 64);
    }

    #[test]
    fn the_workers_are_the_callers_pool_or_at_most_the_budgets_threads() {
        let wide = rayon::ThreadPoolBuilder::new()
            .num_threads(6)
            .build()
            .unwrap();
        wide.install(|| {
            let workers = Workers::for_budget(MemoryBudget::mebibytes(128));
            assert_eq!(workers.threads(), 2);
            let seen = workers.install(rayon::current_num_threads);
            assert_eq!(seen, 2);
            let roomy = Workers::for_budget(MemoryBudget::mebibytes(1024));
            assert_eq!(roomy.threads(), 6);
            assert_eq!(roomy.install(rayon::current_num_threads), 6);
        });
    }

    #[test]
    fn a_tiny_budget_is_raised_to_the_floor() {
        let budget = MemoryBudget::mebibytes(1);
        assert_eq!(budget.as_mebibytes(), MemoryBudget::MIN_MEBIBYTES);
        assert_eq!(budget.parse_window(), 64);
        assert_eq!(budget.page_cache_kib(), 8192);
    }

    #[test]
    fn the_table_queues_deepen_with_the_parse_threads_within_the_budget() {
        let budget = MemoryBudget::default();
        // Two cores: what it was before the queues followed the threads.
        assert_eq!(budget.apart_queue(2), 64);
        assert_eq!(budget.apart_queue(8), 256);
        assert_eq!(budget.apart_queue(16), 512);
        // No deeper than the parse window, however many threads.
        assert_eq!(budget.apart_queue(128), budget.parse_window());
        assert_eq!(MemoryBudget::mebibytes(16).apart_queue(16), 64);
    }
}
