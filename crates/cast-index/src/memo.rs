//! What a query decodes from the database's `meta` blobs or reads of every file, kept while the
//! database is unchanged.
//!
//! Every search decodes the stored ranks of all symbols and files and the file graph (300,000
//! ranks and 80,000 edges on the standard library with site-packages: 5–15 ms); every map also
//! reads every file's row (17,000). A process that
//! keeps its index open ([`crate::KeptIndex`]) asks again and again of the same database, so the
//! decoded values are kept, tagged with SQLite's `data_version` (which moves when another
//! connection commits) and dropped whenever this index writes ([`Memo::clear`], called by every
//! refresh). A one-query process pays one `PRAGMA` for it.

use std::any::Any;
use std::cell::RefCell;
use std::sync::Arc;

use rusqlite::Connection;
use rustc_hash::FxHashMap;

type Entry = Arc<dyn Any + Send + Sync>;

/// Decoded `meta` blobs of one connection. See the module documentation.
#[derive(Default)]
pub(crate) struct Memo {
    inner: RefCell<Inner>,
}

#[derive(Default)]
struct Inner {
    /// `PRAGMA data_version` when the entries were decoded.
    version: Option<i64>,
    entries: FxHashMap<&'static str, Entry>,
}

impl Memo {
    /// The value `decode` makes of the `meta` blob `key` (`None` when there is none), decoded
    /// once while the database is unchanged.
    pub(crate) fn get<T: Any + Send + Sync>(
        &self,
        conn: &Connection,
        key: &'static str,
        decode: impl FnOnce(Option<Vec<u8>>) -> T,
    ) -> rusqlite::Result<Arc<T>> {
        self.get_with(
            conn,
            key,
            |e| e,
            || Ok(decode(crate::store::get_meta(conn, key)?)),
        )
    }

    /// The value `make` reads from the database, made once while the database is unchanged and
    /// kept under `key`; `err` turns a failure to ask the database's version into `E`.
    pub(crate) fn get_with<T: Any + Send + Sync, E>(
        &self,
        conn: &Connection,
        key: &'static str,
        err: impl Fn(rusqlite::Error) -> E,
        make: impl FnOnce() -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        let version = crate::store::data_version(conn).map_err(err)?;
        {
            let mut inner = self.inner.borrow_mut();
            if inner.version != Some(version) {
                inner.entries.clear();
                inner.version = Some(version);
            }
            if let Some(value) = inner
                .entries
                .get(key)
                .and_then(|e| Arc::clone(e).downcast::<T>().ok())
            {
                return Ok(value);
            }
        }
        // Read after the version: a commit in between moves the version, and the next query
        // reads again.
        let value = Arc::new(make()?);
        self.inner
            .borrow_mut()
            .entries
            .insert(key, Arc::clone(&value) as Entry);
        Ok(value)
    }

    /// Forgets every decoded value: this connection wrote (its own commits do not move
    /// `data_version`).
    pub(crate) fn clear(&self) {
        let mut inner = self.inner.borrow_mut();
        inner.entries.clear();
        inner.version = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_decoded_once_until_the_database_changes() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.sqlite");
        let conn = crate::store::connect(&db).unwrap();
        // The `meta` table as the schema makes it.
        conn.execute_batch("CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID")
            .unwrap();
        crate::store::set_meta(&conn, "k", b"one").unwrap();
        let memo = Memo::default();
        let decodes = std::cell::Cell::new(0);
        let get = |conn: &Connection| {
            memo.get(conn, "k", |b| {
                decodes.set(decodes.get() + 1);
                String::from_utf8(b.unwrap_or_default()).unwrap()
            })
            .unwrap()
        };
        assert_eq!(*get(&conn), "one");
        assert_eq!(*get(&conn), "one");
        assert_eq!(decodes.get(), 1);
        // Another connection commits: the version moves, the value is read again.
        let other = crate::store::connect(&db).unwrap();
        crate::store::set_meta(&other, "k", b"two").unwrap();
        assert_eq!(*get(&conn), "two");
        assert_eq!(decodes.get(), 2);
        // This connection writes: only clearing tells.
        crate::store::set_meta(&conn, "k", b"three").unwrap();
        assert_eq!(*get(&conn), "two");
        memo.clear();
        assert_eq!(*get(&conn), "three");
        assert_eq!(decodes.get(), 3);
    }
}
