//! The search machinery behind [`crate::grep`]: one reused `Searcher` per thread writing matched
//! lines into a per-thread buffer, and the drivers over it.
//!
//! - [`search_all`] (no cap): ripgrep's own shape. `ignore`'s parallel walker hands each thread
//!   files as it finds them; each thread searches them at once; the files with matches are
//!   sorted by path at the end.
//! - [`search_capped`] (a cap) runs in two stages. First [`search_ordered`]: a sorted walk on the
//!   calling thread feeds numbered files to the worker threads; finished files are taken in walk
//!   order, and once that in-order prefix holds the cap, the walk stops and files beyond the prefix
//!   are skipped or abandoned. Most agent searches end there within milliseconds. The ordered walk
//!   is single-threaded, though, so it only covers the first [`ORDERED_FILES`] files; if the cap
//!   is not reached by then, the rest of the tree is searched as [`search_all`] does (each file
//!   only up to the cap), pruned by a [`Bound`]: once the files found hold more than N matches,
//!   files and folders after the one holding match N + 1 in walk order are skipped. The first N
//!   matches of the merged, sorted results are kept.
//!
//! Either way the result is exactly the first N matches of the uncapped search in path-then-line
//! order, whatever the threads' timing.

use std::collections::{BTreeMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Mutex, mpsc};

use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

use crate::FileError;
use crate::text::trim_line_end;
use cast_workspace::relative;

/// One line kept from a file: where its text sits in the file's buffer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rec {
    pub number: u64,
    pub start: usize,
    pub end: usize,
    pub is_match: bool,
}

/// The lines kept from one file, their text in one buffer (no allocation per line).
#[derive(Debug, Clone, Default)]
pub(crate) struct FileHits {
    pub path: PathBuf,
    pub rel: String,
    pub buf: Vec<u8>,
    pub recs: Vec<Rec>,
    pub matches: usize,
}

impl FileHits {
    pub fn text(&self, rec: &Rec) -> &[u8] {
        self.buf.get(rec.start..rec.end).unwrap_or_default()
    }

    /// Keeps the first `keep` matches and the after-context (`context` lines) of the last one.
    fn truncate_matches(&mut self, keep: usize, context: usize) {
        let mut seen = 0;
        let mut last_line = 0;
        let mut cut = self.recs.len();
        for (i, rec) in self.recs.iter().enumerate() {
            if rec.is_match {
                if seen == keep {
                    cut = i;
                    break;
                }
                seen += 1;
                last_line = rec.number;
            } else if seen == keep && rec.number > last_line + context as u64 {
                cut = i;
                break;
            }
        }
        self.recs.truncate(cut);
        self.matches = self.matches.min(keep);
    }
}

/// How the searcher is set up; the same for every thread.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SearchConfig {
    pub context: usize,
    /// Stop a file after this many matches (`None`: read it to the end).
    pub per_file_limit: Option<u64>,
}

/// What searching one file gave.
enum Searched {
    Clean,
    Hits(FileHits),
    Failed(FileError),
}

/// A thread's reusable searcher, matcher and line buffer.
struct Worker {
    searcher: Searcher,
    matcher: RegexMatcher,
    scratch: FileHits,
    binary: bool,
}

impl Worker {
    fn new(matcher: &RegexMatcher, config: SearchConfig) -> Self {
        let searcher = SearcherBuilder::new()
            .line_number(true)
            // ripgrep's rule for files found by a walk: stop at the first NUL byte.
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .before_context(config.context)
            .after_context(config.context)
            .max_matches(config.per_file_limit)
            .build();
        Worker {
            searcher,
            matcher: matcher.clone(),
            scratch: FileHits::default(),
            binary: false,
        }
    }

    /// Searches one file; `abandon` is asked after each match whether to give up on it.
    fn search(
        &mut self,
        path: &Path,
        rel: impl FnOnce() -> String,
        abandon: &dyn Fn() -> bool,
    ) -> Searched {
        self.scratch.buf.clear();
        self.scratch.recs.clear();
        self.scratch.matches = 0;
        self.binary = false;
        let mut sink = HitSink {
            hits: &mut self.scratch,
            binary: &mut self.binary,
            abandon,
        };
        let result = self.searcher.search_path(&self.matcher, path, &mut sink);
        if let Err(err) = result {
            return Searched::Failed(FileError {
                path: rel(),
                message: err.to_string(),
            });
        }
        if self.scratch.recs.is_empty() {
            return Searched::Clean;
        }
        // Exact-size copies: the scratch buffers keep their capacity for the next file.
        Searched::Hits(FileHits {
            path: path.to_path_buf(),
            rel: rel(),
            buf: self.scratch.buf.clone(),
            recs: self.scratch.recs.clone(),
            matches: self.scratch.matches,
        })
    }
}

struct HitSink<'a> {
    hits: &'a mut FileHits,
    binary: &'a mut bool,
    abandon: &'a dyn Fn() -> bool,
}

impl HitSink<'_> {
    fn keep(&mut self, number: Option<u64>, bytes: &[u8], is_match: bool) {
        let bytes = trim_line_end(bytes);
        let start = self.hits.buf.len();
        self.hits.buf.extend_from_slice(bytes);
        self.hits.recs.push(Rec {
            number: number.unwrap_or(0),
            start,
            end: self.hits.buf.len(),
            is_match,
        });
    }
}

impl Sink for HitSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        self.keep(mat.line_number(), mat.bytes(), true);
        self.hits.matches += 1;
        Ok(!(self.abandon)())
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, io::Error> {
        self.keep(ctx.line_number(), ctx.bytes(), false);
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _offset: u64) -> Result<bool, io::Error> {
        // The searcher itself stops at the NUL; lines before it were reported, as ripgrep does.
        *self.binary = true;
        Ok(true)
    }
}

/// What a search over a tree found.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    /// Files with kept lines, in path order.
    pub files: Vec<FileHits>,
    /// Files and folders that could not be read, in path order.
    pub errors: Vec<FileError>,
    pub files_searched: u64,
    pub binary_files: u64,
    /// The cap stopped the search before its end.
    pub capped: bool,
}

/// The order of a sorted walk (names compared bytewise, folder by folder) for paths under one
/// root: `Path`'s own order, without parsing components on every comparison.
fn walk_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    if std::path::MAIN_SEPARATOR != '/' {
        return a.cmp(b);
    }
    let (a, b) = (
        a.as_os_str().as_encoded_bytes(),
        b.as_os_str().as_encoded_bytes(),
    );
    // Skip the common prefix (the root, shared folders), then map `/` below every other byte.
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let key = |c: &u8| if *c == b'/' { 0 } else { *c };
    a[same..].iter().map(key).cmp(b[same..].iter().map(key))
}

fn is_file(entry: &DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_file())
}

pub(crate) fn walk_error(root: &Path, err: &ignore::Error) -> FileError {
    FileError {
        path: walk_error_path(err).map_or_else(String::new, |p| relative(root, p)),
        message: err.to_string(),
    }
}

fn walk_error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child),
        ignore::Error::Partial(errs) => errs.iter().find_map(walk_error_path),
        _ => None,
    }
}

fn never() -> bool {
    false
}

// ---------------------------------------------------------------------------------------------
// No cap: the parallel walk.

/// Searches every file under `root` with `ignore`'s parallel walker.
pub(crate) fn search_all(
    root: &Path,
    builder: &WalkBuilder,
    matcher: &RegexMatcher,
    config: SearchConfig,
) -> Outcome {
    search_all_but(root, builder, matcher, config, None)
}

/// What the parallel stage of a capped search leaves out: the files the ordered stage searched,
/// and anything past the bound.
struct Rest {
    covered: HashSet<PathBuf>,
    bound: Bound,
}

/// [`search_all`], leaving out what `rest` says.
fn search_all_but(
    root: &Path,
    builder: &WalkBuilder,
    matcher: &RegexMatcher,
    config: SearchConfig,
    rest: Option<&Rest>,
) -> Outcome {
    let shared = Mutex::new(Outcome::default());
    let mut visitors = Visitors {
        root,
        matcher,
        config,
        rest,
        shared: &shared,
    };
    builder.build_parallel().visit(&mut visitors);
    let mut outcome = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    outcome
        .files
        .sort_unstable_by(|a, b| walk_order(&a.path, &b.path));
    outcome
        .errors
        .sort_by(|a, b| cast_workspace::path_order(&a.path, &b.path));
    outcome
}

struct Visitors<'s> {
    root: &'s Path,
    matcher: &'s RegexMatcher,
    config: SearchConfig,
    rest: Option<&'s Rest>,
    shared: &'s Mutex<Outcome>,
}

impl<'s> ParallelVisitorBuilder<'s> for Visitors<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor {
            root: self.root,
            rest: self.rest,
            worker: Worker::new(self.matcher, self.config),
            local: Outcome::default(),
            shared: self.shared,
        })
    }
}

struct Visitor<'s> {
    root: &'s Path,
    rest: Option<&'s Rest>,
    worker: Worker,
    local: Outcome,
    shared: &'s Mutex<Outcome>,
}

impl ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        match entry {
            Ok(entry) if is_file(&entry) => {
                let root = self.root;
                let path = entry.path();
                if self
                    .rest
                    .is_some_and(|r| r.covered.contains(path) || r.bound.is_beyond(path))
                {
                    return WalkState::Continue;
                }
                match self.worker.search(path, || relative(root, path), &never) {
                    Searched::Clean => {}
                    Searched::Hits(hits) => {
                        if let Some(rest) = self.rest {
                            rest.bound.add(path, hits.matches);
                        }
                        self.local.files.push(hits);
                    }
                    Searched::Failed(err) => self.local.errors.push(err),
                }
                self.local.files_searched += 1;
                self.local.binary_files += u64::from(self.worker.binary);
            }
            Ok(entry) => {
                // Everything in a folder past the bound is past it too.
                if entry.depth() > 0 && self.rest.is_some_and(|r| r.bound.is_beyond(entry.path())) {
                    return WalkState::Skip;
                }
            }
            Err(err) => self.local.errors.push(walk_error(self.root, &err)),
        }
        WalkState::Continue
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        let local = std::mem::take(&mut self.local);
        let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        shared.files.extend(local.files);
        shared.errors.extend(local.errors);
        shared.files_searched += local.files_searched;
        shared.binary_files += local.binary_files;
    }
}

// ---------------------------------------------------------------------------------------------
// A cap: the ordered pipeline.

enum Job {
    File { index: usize, path: PathBuf },
    WalkError { index: usize, error: FileError },
}

/// Results taken in walk order until the cap is reached.
struct Ordered {
    cap: usize,
    context: usize,
    pending: BTreeMap<usize, (Searched, bool)>,
    next: usize,
    matches: usize,
    outcome: Outcome,
    done: bool,
}

impl Ordered {
    /// Takes in-order results; returns true when the cap was reached.
    fn advance(&mut self) -> bool {
        while let Some((searched, binary)) = self.pending.remove(&self.next) {
            self.next += 1;
            self.outcome.binary_files += u64::from(binary);
            match searched {
                Searched::Clean => self.outcome.files_searched += 1,
                Searched::Hits(mut hits) => {
                    self.outcome.files_searched += 1;
                    let wanted = self.cap - self.matches;
                    self.matches += hits.matches;
                    if hits.matches > wanted {
                        hits.truncate_matches(wanted, self.context);
                        self.outcome.capped = true;
                    }
                    self.outcome.files.push(hits);
                }
                Searched::Failed(err) => self.outcome.errors.push(err),
            }
            if self.matches >= self.cap {
                self.done = true;
                return true;
            }
        }
        false
    }
}

/// Files handed to a worker at once: few enough that the first results come at once, enough
/// that the hand-over costs nothing next to the search.
const BATCH: usize = 16;

/// How many files the ordered walk covers before the rest is searched in parallel: enough for
/// a common query to reach the cap, few enough that the single-threaded walk costs little.
pub(crate) const ORDERED_FILES: usize = 2048;

/// Searches the files under `root` until `cap` (at least 1) matches are known to be the first.
pub(crate) fn search_capped(
    root: &Path,
    builder: &WalkBuilder,
    matcher: &RegexMatcher,
    config: SearchConfig,
    cap: usize,
    threads: usize,
    ordered_files: usize,
) -> Outcome {
    let first = search_ordered(
        root,
        builder.clone(),
        matcher,
        config,
        cap,
        threads,
        ordered_files,
    );
    let Some(covered) = first.rest_after else {
        return first.outcome;
    };
    let config = SearchConfig {
        per_file_limit: Some(cap as u64 + 1),
        ..config
    };
    let bound = Bound::new(cap);
    for hits in &first.outcome.files {
        bound.add(&hits.path, hits.matches);
    }
    let rest = Rest { covered, bound };
    let rest = search_all_but(root, builder, matcher, config, Some(&rest));
    let mut outcome = first.outcome;
    outcome.files_searched += rest.files_searched;
    outcome.binary_files += rest.binary_files;
    outcome.files.extend(rest.files);
    // A folder that cannot be read is reported by both walks.
    let mut seen = HashSet::new();
    outcome.errors.extend(rest.errors);
    outcome
        .errors
        .retain(|e| seen.insert((e.path.clone(), e.message.clone())));
    outcome
        .errors
        .sort_by(|a, b| cast_workspace::path_order(&a.path, &b.path));
    // Keep the first `cap` matches.
    let mut total = 0;
    let mut keep = outcome.files.len();
    for (i, hits) in outcome.files.iter_mut().enumerate() {
        if total + hits.matches > cap {
            hits.truncate_matches(cap - total, config.context);
            outcome.capped = true;
            keep = i + 1;
            break;
        }
        total += hits.matches;
        if total == cap {
            keep = i + 1;
            outcome.capped = outcome.files[i + 1..].iter().any(|f| f.matches > 0);
            break;
        }
    }
    outcome.files.truncate(keep);
    outcome.files.retain(|f| !f.recs.is_empty());
    outcome
}

/// A path in walk order, as a map key.
#[derive(Debug, PartialEq, Eq)]
struct WalkKey(PathBuf);

impl Ord for WalkKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        walk_order(&self.0, &other.0)
    }
}

impl PartialOrd for WalkKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The pruning of the parallel stage: once the files found so far hold more than `cap` matches,
/// every file and folder after the one holding match number cap + 1 (in walk order) can only
/// add matches past the cap, so it is skipped. The bound only moves earlier as files are found.
struct Bound {
    cap: usize,
    set: AtomicBool,
    state: Mutex<BoundState>,
}

#[derive(Default)]
struct BoundState {
    /// Files with matches, as few as hold more than `cap` matches, and how many each holds.
    files: BTreeMap<WalkKey, usize>,
    total: usize,
    last: Option<PathBuf>,
}

impl Bound {
    fn new(cap: usize) -> Self {
        Bound {
            cap,
            set: AtomicBool::new(false),
            state: Mutex::new(BoundState::default()),
        }
    }

    fn add(&self, path: &Path, matches: usize) {
        if matches == 0 {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.files.insert(WalkKey(path.to_path_buf()), matches);
        state.total += matches;
        // Drop the last files while the others still hold more than the cap.
        while let Some((_, &last)) = state.files.last_key_value() {
            if state.total - last <= self.cap {
                break;
            }
            state.total -= last;
            state.files.pop_last();
        }
        if state.total > self.cap {
            state.last = state.files.last_key_value().map(|(k, _)| k.0.clone());
            self.set.store(true, AtomicOrdering::Release);
        }
    }

    /// Whether `path` (and anything under it) comes after the bound.
    fn is_beyond(&self, path: &Path) -> bool {
        if !self.set.load(AtomicOrdering::Acquire) {
            return false;
        }
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state
            .last
            .as_deref()
            .is_some_and(|last| walk_order(path, last).is_gt())
    }
}

/// What the ordered stage found.
struct OrderedOutcome {
    outcome: Outcome,
    /// Set when the stage stopped at its file limit before the cap: the files it covered.
    rest_after: Option<HashSet<PathBuf>>,
}

/// Searches files in sorted walk order until `cap` (at least 1) matches are found, or until
/// `max_files` files were searched without reaching it.
fn search_ordered(
    root: &Path,
    mut builder: WalkBuilder,
    matcher: &RegexMatcher,
    config: SearchConfig,
    cap: usize,
    threads: usize,
    max_files: usize,
) -> OrderedOutcome {
    let walk = builder.sort_by_file_name(|a, b| a.cmp(b)).build();
    let threads = threads.max(1);
    let (jobs_tx, jobs_rx) = mpsc::sync_channel::<Vec<Job>>(threads * 4);
    let jobs_rx = Mutex::new(jobs_rx);
    // The index of the last file needed; usize::MAX while the cap is not reached.
    let cutoff = AtomicUsize::new(usize::MAX);
    let state = Mutex::new(Ordered {
        cap,
        context: config.context,
        pending: BTreeMap::new(),
        next: 0,
        matches: 0,
        outcome: Outcome::default(),
        done: false,
    });
    let config = SearchConfig {
        // One more than the cap tells "exactly the cap" from "more than the cap".
        per_file_limit: Some(cap as u64 + 1),
        ..config
    };
    let mut jobs_sent = 0usize;
    let mut files_sent = 0usize;
    let mut covered = HashSet::new();
    let mut more_files = false;
    let mut walk_finished = true;
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut worker = Worker::new(matcher, config);
                let mut done = Vec::with_capacity(BATCH);
                loop {
                    let batch = match jobs_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => break,
                    };
                    let Ok(batch) = batch else { break };
                    for job in batch {
                        let (index, searched, binary) = match job {
                            Job::File { index, path } => {
                                if index > cutoff.load(AtomicOrdering::Acquire) {
                                    break;
                                }
                                let abandon = || index > cutoff.load(AtomicOrdering::Relaxed);
                                let searched =
                                    worker.search(&path, || relative(root, &path), &abandon);
                                (index, searched, worker.binary)
                            }
                            Job::WalkError { index, error } => {
                                (index, Searched::Failed(error), false)
                            }
                        };
                        done.push((index, searched, binary));
                    }
                    if done.is_empty() {
                        continue;
                    }
                    let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
                    if state.done {
                        done.clear();
                        continue;
                    }
                    for (index, searched, binary) in done.drain(..) {
                        state.pending.insert(index, (searched, binary));
                    }
                    if state.advance() {
                        cutoff.store(state.next - 1, AtomicOrdering::Release);
                    }
                }
            });
        }
        let mut batch = Vec::with_capacity(BATCH);
        for entry in walk {
            if cutoff.load(AtomicOrdering::Acquire) != usize::MAX {
                walk_finished = false;
                batch.clear();
                break;
            }
            let job = match entry {
                Ok(entry) if is_file(&entry) => {
                    if files_sent == max_files {
                        // More files than this stage covers: the rest is searched in parallel.
                        walk_finished = false;
                        more_files = true;
                        break;
                    }
                    files_sent += 1;
                    covered.insert(entry.path().to_path_buf());
                    Job::File {
                        index: jobs_sent,
                        path: entry.into_path(),
                    }
                }
                Ok(_) => continue,
                Err(err) => Job::WalkError {
                    index: jobs_sent,
                    error: walk_error(root, &err),
                },
            };
            jobs_sent += 1;
            batch.push(job);
            // The first batch goes at once, so a match in the first file comes back at once.
            if batch.len() == BATCH || jobs_sent == 1 {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                if jobs_tx.send(full).is_err() {
                    walk_finished = false;
                    break;
                }
            }
        }
        if !batch.is_empty() && jobs_tx.send(batch).is_err() {
            walk_finished = false;
        }
        drop(jobs_tx);
    });
    let state = state.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut outcome = state.outcome;
    if state.done && !(walk_finished && state.next == jobs_sent) {
        outcome.capped = true;
    }
    OrderedOutcome {
        outcome,
        rest_after: (!state.done && more_files).then_some(covered),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(recs: &[(u64, bool)]) -> FileHits {
        FileHits {
            recs: recs
                .iter()
                .map(|&(number, is_match)| Rec {
                    number,
                    start: 0,
                    end: 0,
                    is_match,
                })
                .collect(),
            matches: recs.iter().filter(|r| r.1).count(),
            ..FileHits::default()
        }
    }

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for d in 0..4 {
            for f in 0..20 {
                let path = dir.path().join(format!("d{d}/f{f:02}.txt"));
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                let body: String = (0..(f % 5)).map(|i| format!("hit {i}\nmiss\n")).collect();
                std::fs::write(path, body).unwrap();
            }
        }
        dir
    }

    fn keys(outcome: &Outcome) -> Vec<(String, u64, bool)> {
        outcome
            .files
            .iter()
            .flat_map(|f| f.recs.iter().map(|r| (f.rel.clone(), r.number, r.is_match)))
            .collect()
    }

    /// Both stages of a capped search, whichever ends it, give the prefix of the uncapped search.
    #[test]
    fn a_capped_search_is_the_prefix_of_the_uncapped_one_after_either_stage() {
        let dir = tree();
        let root = dir.path();
        let builder = crate::WalkOptions::default().builder(root);
        let matcher = crate::grep::matcher("hit", &crate::GrepOptions::default()).unwrap();
        for context in [0, 1] {
            let config = SearchConfig {
                context,
                per_file_limit: None,
            };
            let all = search_all(root, &builder, &matcher, config);
            let all_matches = all.files.iter().map(|f| f.matches).sum::<usize>();
            assert_eq!(all_matches, 4 * 40);
            for ordered_files in [0, 1, 3, 30, 1000] {
                for cap in [1, 2, 9, 10, 11, 80, 159, 160, 161] {
                    let capped =
                        search_capped(root, &builder, &matcher, config, cap, 2, ordered_files);
                    let got = keys(&capped);
                    let matches = got.iter().filter(|k| k.2).count();
                    assert_eq!(matches, cap.min(all_matches), "cap {cap}, {ordered_files}");
                    let want: Vec<_> = keys(&all).into_iter().take(got.len()).collect();
                    assert_eq!(
                        got, want,
                        "cap {cap}, ordered {ordered_files}, context {context}"
                    );
                    assert_eq!(
                        capped.capped,
                        cap < all_matches,
                        "cap {cap}, {ordered_files}"
                    );
                }
            }
        }
    }

    #[test]
    fn walk_order_is_paths_order() {
        let mut paths: Vec<PathBuf> = ["r/a.py", "r/a/z.py", "r/B", "r/a-b", "r/a/b/c"]
            .iter()
            .map(PathBuf::from)
            .collect();
        let mut by_path = paths.clone();
        by_path.sort();
        paths.sort_by(|a, b| walk_order(a, b));
        assert_eq!(paths, by_path);
    }

    #[test]
    fn truncation_keeps_the_after_context_of_the_last_kept_match() {
        let mut h = hits(&[
            (1, false),
            (2, true),
            (3, false),
            (4, false),
            (5, true),
            (6, false),
        ]);
        h.truncate_matches(1, 1);
        let kept: Vec<_> = h.recs.iter().map(|r| r.number).collect();
        assert_eq!(kept, [1, 2, 3]);
        assert_eq!(h.matches, 1);
    }
}
