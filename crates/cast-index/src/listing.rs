//! Which files the index covers, and whether anything changed since the last refresh.
//!
//! A [`Listing`] is made by walking the tree (ripgrep's ignore rules, through
//! [`cast_parser::source_files_watched`]) or, while the stored watch of the last walk holds
//! (every folder and ignore file as recorded: [`cast_workspace::WalkWatch`]), from the paths that
//! walk stored, each stat'ed again. Its digest, stored at each refresh, tells a query whether
//! the index is current without reading the file rows.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use cast_parser::{DEFAULT_MAX_FILESIZE, Registry, WalkOptions};
use cast_workspace::{LiveWatch, Stat, StatFrom, WalkWatch, WatchRecorder};
use rayon::prelude::*;
use rusqlite::Connection;

use crate::codec::{self, Reader, put_varint};
use crate::store;

/// The `meta` key of [`Listing::digest`] as of the last refresh.
pub(crate) const LISTING_DIGEST: &str = "listing";

/// One source file as listed: its path, its path relative to the root, and its stat.
pub(crate) struct Listed {
    pub(crate) path: PathBuf,
    pub(crate) rel: String,
    pub(crate) size: u64,
    pub(crate) mtime_ns: i64,
}

impl Listed {
    /// The file at `path` with its size and mtime now; `None` when it cannot be stat'ed.
    fn stat(path: PathBuf, rel: String) -> Option<Listed> {
        let st = cast_workspace::stat(&path).ok()?;
        Some(Listed::of(path, rel, &st))
    }

    fn of(path: PathBuf, rel: String, st: &Stat) -> Listed {
        Listed {
            size: st.len,
            mtime_ns: st.mtime_ns,
            path,
            rel,
        }
    }
}

/// The source files a walk found, each with its size and mtime.
pub(crate) struct Listing {
    pub(crate) listed: Vec<Listed>,
    /// Folders the walk could not read.
    pub(crate) warnings: Vec<String>,
    pub(crate) source: ListingSource,
}

/// How a [`Listing`] was made.
pub(crate) enum ListingSource {
    /// By walking, with the watch of that walk when it could be watched.
    Walked(Option<WalkWatch>),
    /// From the paths stored at the last walk, whose watch said nothing changed since.
    Watched,
}

pub(crate) fn list(root: &Path, walk: &WalkOptions, registry: &Registry) -> Listing {
    list_recording(root, walk, registry, true)
}

/// [`list`], recording a watch of the walk only when `record` is set (recording costs more
/// than the walk on a large tree: a `stat` per folder and three per folder for ignore files).
fn list_recording(root: &Path, walk: &WalkOptions, registry: &Registry, record: bool) -> Listing {
    let recorder = WatchRecorder::new();
    let (found, walk_errors) =
        cast_parser::source_files_watched(root, walk, registry, record.then_some(&recorder));
    let warnings: Vec<String> = walk_errors
        .into_iter()
        .filter_map(|e| e.result.err().map(|err| err.to_string()))
        .collect();
    // A folder that could not be read may become readable without its mtime changing.
    let watched = record && warnings.is_empty();
    // The watch's stamps (a few per folder, on this thread) are taken while the files are
    // statted on the others: one after the other, they held up the parse's start. Stamps
    // taken later are as safe: one newer than the walk's start leaves the walk unwatched.
    let (watch, listed) = rayon::join(
        || watched.then(|| recorder.finish(root, walk)).flatten(),
        || {
            found
                .into_par_iter()
                .filter_map(|(path, rel)| Listed::stat(path, rel))
                .collect()
        },
    );
    Listing {
        listed,
        warnings,
        source: ListingSource::Walked(watch),
    }
}

/// The stored watch and the paths it listed, if there is one for this walk and these languages.
fn stored_watch(
    conn: &Connection,
    walk: &WalkOptions,
    registry: &Registry,
) -> Option<(WalkWatch, Vec<String>)> {
    store::get_meta(conn, WALK_WATCH)
        .ok()
        .flatten()
        .and_then(|b| decode_watch(&b, walk, registry))
}

/// A listing by walking, as an explicit refresh (`cast index`) makes it: it always walks (what
/// a watch cannot see, such as a change hidden by a skewed clock, is found here), but records a
/// new watch only when the stored one no longer holds or listed other paths.
pub(crate) fn list_walking(
    conn: &Connection,
    root: &Path,
    walk: &WalkOptions,
    registry: &Registry,
) -> Listing {
    let holds = stored_watch(conn, walk, registry).filter(|(watch, _)| watch.unchanged());
    let mut listing = list_recording(root, walk, registry, holds.is_none());
    if let Some((_, paths)) = holds
        && listing.warnings.is_empty()
        && listing.listed.iter().map(|l| &l.rel).eq(paths.iter())
    {
        // The same paths as the stored watch's: it stays.
        listing.source = ListingSource::Watched;
    }
    listing
}

/// The listing of `root`, from the paths of the last walk when its stored watch says no folder
/// and no ignore file changed since (a `stat` per folder and per file), else by walking. With
/// `arm`, when the listing comes from the stored watch: a [`LiveWatch`] of its folders too,
/// armed before they are looked at, so it notes any change made while the listing is made.
/// The files' stats are shared out through `share`, so a thread done with its own work can
/// take some ([`StatShare::help`]).
pub(crate) fn list_watched(
    conn: &Connection,
    root: &Path,
    walk: &WalkOptions,
    registry: &Registry,
    arm: bool,
    share: &StatShare,
) -> (Listing, Option<LiveWatch>) {
    if let Some((watch, rels)) = stored_watch(conn, walk, registry) {
        let live = arm.then(|| LiveWatch::arm(&watch).ok()).flatten();
        if !watch.unchanged() {
            return (list(root, walk, registry), None);
        }
        let job = share.job.get_or_init(|| StatJob {
            from: StatFrom::new(root),
            stats: std::iter::repeat_with(OnceLock::new)
                .take(rels.len())
                .collect(),
            rels,
            next: AtomicUsize::new(0),
        });
        job.work();
        let mut hard_linked = false;
        let listed: Option<Vec<Listed>> = job
            .rels
            .iter()
            .zip(&job.stats)
            .map(|(rel, stat)| {
                // A chunk another thread took and has not finished is stat'ed here too (whichever
                // stat lands first counts: both were made during the check).
                let st = (*stat.get_or_init(|| job.from.stat(rel).ok()))?;
                // A file gone (its folder's mtime should have said so): walk after all.
                hard_linked |= st.nlink > 1;
                Some(Listed::of(root.join(rel), rel.clone(), &st))
            })
            .collect();
        // A file with another name elsewhere can be written through it unseen by the watch of
        // this folder.
        let live = live.filter(|_| !hard_linked);
        if let Some(listed) = listed {
            let listing = Listing {
                listed,
                warnings: Vec::new(),
                source: ListingSource::Watched,
            };
            return (listing, live);
        }
    }
    (list(root, walk, registry), None)
}

/// The stats of a check for changes, shared between the thread that checks and a thread that
/// has finished its own work. A one-shot query runs the check beside the query on the second
/// core; spreading the stats over both cores from the start made the query wait for a core (3–7
/// ms slower on the stdlib with site-packages, measured), but once the query is answered its
/// core would idle while the check goes on, so it takes chunks of what is left.
#[derive(Default)]
pub(crate) struct StatShare {
    job: OnceLock<StatJob>,
}

impl StatShare {
    /// Stats chunks of the files the check has not reached yet, if it is at the files.
    pub(crate) fn help(&self) {
        if let Some(job) = self.job.get() {
            job.work();
        }
    }
}

/// The files to stat (relative to the root, and stat'ed from it), the next chunk to take, and
/// each file's stat once made (`None`: the file could not be stat'ed).
struct StatJob {
    from: StatFrom,
    rels: Vec<String>,
    next: AtomicUsize,
    stats: Vec<OnceLock<Option<Stat>>>,
}

/// Files per chunk taken: small enough that the checking thread rarely waits for a chunk
/// another thread has, large enough that taking one costs nothing next to its stats.
const STAT_CHUNK: usize = 64;

impl StatJob {
    /// Takes chunks and stats them until none is left.
    fn work(&self) {
        loop {
            let from = self.next.fetch_add(STAT_CHUNK, Ordering::Relaxed);
            if from >= self.rels.len() {
                return;
            }
            let to = (from + STAT_CHUNK).min(self.rels.len());
            for (rel, stat) in self.rels[from..to].iter().zip(&self.stats[from..to]) {
                // Set by the checking thread already if it found this chunk unfinished.
                let _ = stat.set(self.from.stat(rel).ok());
            }
        }
    }
}

/// The `meta` key of the last walk's [`WalkWatch`], with the walk options and languages it
/// holds for and the relative paths it listed.
pub(crate) const WALK_WATCH: &str = "walk_watch";

/// The walk options as stored (`meta` key `walk`) and compared.
pub(crate) fn walk_text(walk: &WalkOptions) -> String {
    format!(
        "{},{},{},{}",
        u8::from(walk.hidden),
        u8::from(walk.no_ignore),
        u8::from(walk.follow_links),
        walk.max_filesize.unwrap_or(DEFAULT_MAX_FILESIZE)
    )
}

pub(crate) fn encode_watch(
    walk: &WalkOptions,
    registry: &Registry,
    watch: &WalkWatch,
    listed: &[Listed],
) -> Vec<u8> {
    let mut out = Vec::new();
    codec::put_str(&mut out, WATCH_FORMAT);
    codec::put_str(&mut out, &walk_text(walk));
    codec::put_str(&mut out, &registry.extensions().join(","));
    let watch = watch.encode();
    put_varint(&mut out, watch.len() as u64);
    out.extend_from_slice(&watch);
    codec::put_front_coded(&mut out, listed.iter().map(|l| l.rel.as_str()));
    out
}

/// Opens a stored watch: one written in another layout is not read (and a walk replaces it).
const WATCH_FORMAT: &str = "watch/2";

/// The stored watch and paths, if they were stored for this walk and these languages (a new
/// version of CAST that parses more languages lists more files from the same folders).
fn decode_watch(
    bytes: &[u8],
    walk: &WalkOptions,
    registry: &Registry,
) -> Option<(WalkWatch, Vec<String>)> {
    let mut r = Reader::new(bytes);
    if r.str()? != WATCH_FORMAT
        || r.str()? != walk_text(walk)
        || r.str()? != registry.extensions().join(",")
    {
        return None;
    }
    let n = r.varint()? as usize;
    let watch = WalkWatch::decode(r.bytes(n)?)?;
    let paths = r.front_coded()?;
    r.at_end().then_some((watch, paths))
}

impl Listing {
    /// A digest of every listed path with its size and mtime, in the walk's order (sorted):
    /// a refresh stores it, and an equal digest later means a refresh would change nothing.
    pub(crate) fn digest(&self) -> [u8; 32] {
        // The bytes are gathered first: one update of the whole is several times faster than
        // four small ones per file, and gives the same digest.
        let mut bytes = Vec::with_capacity(self.listed.iter().map(|l| l.rel.len() + 24).sum());
        for l in &self.listed {
            bytes.extend_from_slice(&(l.rel.len() as u64).to_le_bytes());
            bytes.extend_from_slice(l.rel.as_bytes());
            bytes.extend_from_slice(&l.size.to_le_bytes());
            bytes.extend_from_slice(&l.mtime_ns.to_le_bytes());
        }
        *blake3::hash(&bytes).as_bytes()
    }
}

/// Whether the index in `db` was last refreshed from this very listing (the same files, each
/// with the same size and mtime): then a refresh would change nothing.
pub(crate) fn is_current(conn: &Connection, listing: &Listing) -> rusqlite::Result<bool> {
    let stored = store::get_meta(conn, LISTING_DIGEST)?;
    Ok(stored.as_deref() == Some(listing.digest().as_slice()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Index;

    #[test]
    fn stats_shared_with_a_helping_thread_give_the_same_listing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("pkg")).unwrap();
        // Several chunks' worth of files.
        for i in 0..5 * STAT_CHUNK {
            std::fs::write(root.join(format!("pkg/m{i:03}.py")), format!("X = {i}\n")).unwrap();
        }
        let mut index = Index::open(root).unwrap();
        cast_test_support::age_tree(root);
        let walk = WalkOptions::default();
        index.refresh(&walk, &mut |_| {}).unwrap();
        let (db, registry) = (index.db_path().to_path_buf(), &index.registry);
        let check = |share: &StatShare| {
            std::thread::scope(|scope| {
                let checking = scope.spawn(|| {
                    let conn = store::connect(&db).unwrap();
                    list_watched(&conn, root, &walk, registry, false, share).0
                });
                while !checking.is_finished() {
                    share.help();
                }
                checking.join().unwrap()
            })
        };
        let listing = check(&StatShare::default());
        assert!(matches!(listing.source, ListingSource::Watched));
        assert_eq!(listing.listed.len(), 5 * STAT_CHUNK);
        assert!(listing.listed.windows(2).all(|w| w[0].rel < w[1].rel));
        assert!(is_current(&index.conn, &listing).unwrap());
        // A file written in place (its folder unchanged) is seen, whichever thread stats it.
        std::fs::write(root.join("pkg/m200.py"), "X = 'changed'\n").unwrap();
        let listing = check(&StatShare::default());
        assert!(matches!(listing.source, ListingSource::Watched));
        assert!(!is_current(&index.conn, &listing).unwrap());
    }

    /// The listing of `root` as a check of `index` makes it on one thread.
    fn listed(index: &Index, root: &Path, walk: &WalkOptions) -> Listing {
        let share = StatShare::default();
        list_watched(&index.conn, root, walk, &index.registry, false, &share).0
    }

    #[test]
    fn an_old_tree_is_listed_from_its_watch_and_a_changed_one_is_walked() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("pkg")).unwrap();
        std::fs::write(root.join("pkg/a.py"), "A = 1\n").unwrap();
        let mut index = Index::open(root).unwrap();
        // Opening made `.cast/` in the root just now: the walk that built the index came too
        // soon after that change to be watched. Once everything is old, a refresh stores one.
        cast_test_support::age_tree(root);
        let walk = WalkOptions::default();
        index.refresh(&walk, &mut |_| {}).unwrap();
        let listing = listed(&index, root, &walk);
        assert!(matches!(listing.source, ListingSource::Watched));
        assert_eq!(listing.listed.len(), 1);
        assert!(is_current(&index.conn, &listing).unwrap());
        // A watch stored in another layout (as the one before `WATCH_FORMAT`, which had no
        // format) is not read: the tree is walked.
        let stored = store::get_meta(&index.conn, WALK_WATCH).unwrap().unwrap();
        let older = &stored[1 + WATCH_FORMAT.len()..];
        store::set_meta(&index.conn, WALK_WATCH, older).unwrap();
        let listing = listed(&index, root, &walk);
        assert!(matches!(listing.source, ListingSource::Walked(_)));
        store::set_meta(&index.conn, WALK_WATCH, &stored).unwrap();
        // Other walk options: the watch does not hold for them.
        let hidden = WalkOptions {
            hidden: true,
            ..WalkOptions::default()
        };
        let listing = listed(&index, root, &hidden);
        assert!(matches!(listing.source, ListingSource::Walked(_)));
        // A new file: its folder changed, so the tree is walked (and, just changed, not
        // watched).
        std::fs::write(root.join("pkg/b.py"), "B = 1\n").unwrap();
        let listing = listed(&index, root, &walk);
        assert!(matches!(listing.source, ListingSource::Walked(None)));
        assert_eq!(listing.listed.len(), 2);
        assert!(!is_current(&index.conn, &listing).unwrap());
    }
}
