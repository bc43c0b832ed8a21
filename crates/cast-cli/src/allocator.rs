//! How the `cast` binaries allocate, set up first thing in `main` ([`set_up`]):
//!
//! - tree-sitter's C core allocates through mimalloc, as the Rust code does (the binaries'
//!   global allocator). A parse allocates a syntax node at a time, on every core; with glibc's
//!   malloc, a sixth of `cast symbols`'s CPU went to malloc and free (their locks, arena growth
//!   and consolidation).
//! - SQLite allocates through mimalloc too. An index build shrinks its page cache before
//!   resolution (`cast_index`'s writer); glibc kept the pages SQLite then freed, mimalloc
//!   returns them (a cold build of three copies of the standard library peaks about 55 MB
//!   lower; see docs/analyzer.md).
//! - mimalloc hands freed pages back to the system after 50 ms instead of its default second
//!   while `cast symbols` lists a tree, 250 ms in every other command ([`hold_freed_pages`]).
//!   A listing or a build frees each file's syntax tree as the next is parsed; held for a
//!   second, those pages were most of the listing's peak (`cast symbols` over the standard
//!   library: 57-68 MB, 39-47 MB with 50 ms, no slower). An index build's peak is its catalog,
//!   not the trees, and pages handed back every 50 ms came back as page faults: a cold build
//!   of the standard library took 20.1 s of CPU with 50 ms, 18.7 s with 250 ms (peak 163 MiB,
//!   173 MiB), three copies 61 s and 54 s (271 MB, 276 MB).
//!
//! The one place in CAST with `unsafe`: handing C four allocation functions cannot be safe.
#![allow(unsafe_code)]

use std::ffi::{c_int, c_long, c_void};

use rusqlite::ffi as sqlite;

use libmimalloc_sys::{mi_free, mi_malloc, mi_realloc, mi_zalloc};

/// As tree-sitter's own default: a failed allocation ends the process (its callers cannot
/// handle one).
fn out_of_memory(bytes: usize) -> ! {
    eprintln!("cast: out of memory: tree-sitter could not allocate {bytes} bytes");
    std::process::abort()
}

unsafe extern "C" fn ts_malloc(size: usize) -> *mut c_void {
    // SAFETY: mi_malloc takes any size.
    let p = unsafe { mi_malloc(size) };
    if p.is_null() && size != 0 {
        out_of_memory(size)
    }
    p
}

unsafe extern "C" fn ts_calloc(count: usize, size: usize) -> *mut c_void {
    let Some(bytes) = count.checked_mul(size) else {
        out_of_memory(usize::MAX)
    };
    // SAFETY: mi_zalloc takes any size and returns zeroed memory, as calloc does.
    let p = unsafe { mi_zalloc(bytes) };
    if p.is_null() && bytes != 0 {
        out_of_memory(bytes)
    }
    p
}

unsafe extern "C" fn ts_realloc(ptr: *mut c_void, size: usize) -> *mut c_void {
    // SAFETY: tree-sitter passes null or a pointer this allocator returned.
    let p = unsafe { mi_realloc(ptr, size) };
    if p.is_null() && size != 0 {
        out_of_memory(size)
    }
    p
}

unsafe extern "C" fn ts_free(ptr: *mut c_void) {
    // SAFETY: tree-sitter passes null or a pointer this allocator returned.
    unsafe { mi_free(ptr) }
}

// Not in libmimalloc-sys's bindings (its `extended` ones name mimalloc 2's options).
unsafe extern "C" {
    fn mi_version() -> c_int;
    fn mi_option_set(option: c_int, value: c_long);
    fn mi_usable_size(p: *const c_void) -> usize;
    fn mi_good_size(size: usize) -> usize;
}

// SQLite's allocator (`sqlite3_mem_methods`): sizes are C `int`s, and a failed allocation is
// a null it reports as SQLITE_NOMEM, so these do not abort.

unsafe extern "C" fn sqlite_malloc(size: c_int) -> *mut c_void {
    match usize::try_from(size) {
        // SAFETY: mi_malloc takes any size.
        Ok(size) => unsafe { mi_malloc(size) },
        Err(_) => std::ptr::null_mut(),
    }
}

unsafe extern "C" fn sqlite_free(ptr: *mut c_void) {
    // SAFETY: SQLite passes null or a pointer sqlite_malloc or sqlite_realloc returned.
    unsafe { mi_free(ptr) }
}

unsafe extern "C" fn sqlite_realloc(ptr: *mut c_void, size: c_int) -> *mut c_void {
    match usize::try_from(size) {
        // SAFETY: as sqlite_free; mi_realloc keeps the contents up to the smaller size.
        Ok(size) => unsafe { mi_realloc(ptr, size) },
        Err(_) => std::ptr::null_mut(),
    }
}

unsafe extern "C" fn sqlite_size(ptr: *mut c_void) -> c_int {
    // SAFETY: SQLite asks only of pointers this allocator returned.
    let size = unsafe { mi_usable_size(ptr) };
    c_int::try_from(size).unwrap_or(c_int::MAX)
}

unsafe extern "C" fn sqlite_roundup(size: c_int) -> c_int {
    let Ok(bytes) = usize::try_from(size) else {
        return size;
    };
    // SAFETY: a plain function of its argument.
    c_int::try_from(unsafe { mi_good_size(bytes) }).unwrap_or(size)
}

unsafe extern "C" fn sqlite_init(_: *mut c_void) -> c_int {
    sqlite::SQLITE_OK
}

unsafe extern "C" fn sqlite_shutdown(_: *mut c_void) {}

/// `mi_option_purge_delay`'s place in mimalloc 3's `mi_option_t` (include/mimalloc.h); set
/// only when the linked mimalloc says it is version 3 (`mi_version()` is major·10000 + minor·100
/// + patch).
const MI3_OPTION_PURGE_DELAY: c_int = 15;
/// How long mimalloc keeps freed pages before it returns them while `cast symbols` lists a
/// tree, in milliseconds.
const PURGE_DELAY_MS: c_long = 50;
/// The same in every other command, which may build an index ([`hold_freed_pages`]).
const BUILD_PURGE_DELAY_MS: c_long = 250;

/// Sets how long mimalloc keeps freed pages: 50 ms when `listing` (`cast symbols`), else
/// 250 ms (see the module documentation).
///
/// # Safety
///
/// As [`set_up`]: before any second thread starts.
pub unsafe fn hold_freed_pages(listing: bool) {
    // SAFETY: before other threads (the caller's promise).
    unsafe {
        set_purge_delay(if listing {
            PURGE_DELAY_MS
        } else {
            BUILD_PURGE_DELAY_MS
        })
    }
}

/// Sets mimalloc's purge delay to `ms`, on the version whose option list
/// [`MI3_OPTION_PURGE_DELAY`] was read from (others keep their own).
///
/// # Safety
///
/// As [`set_up`]: before any second thread starts.
unsafe fn set_purge_delay(ms: c_long) {
    // SAFETY: plain calls into the linked mimalloc.
    unsafe {
        if (30_000..40_000).contains(&mi_version()) {
            mi_option_set(MI3_OPTION_PURGE_DELAY, ms);
        }
    }
}

/// Sets up allocation as the module documentation says.
///
/// # Safety
///
/// Call it first thing in `main`, before any tree-sitter object or SQLite connection exists
/// (one freed later by the other allocator would corrupt it), and before any second thread
/// starts.
pub unsafe fn set_up() {
    // SAFETY: the caller's promise: first thing in `main`, one thread.
    unsafe {
        set_purge_delay(PURGE_DELAY_MS);
        tree_sitter_allocates_with_mimalloc();
        sqlite_allocates_with_mimalloc();
    }
}

/// Makes SQLite allocate with mimalloc (see [`set_up`] for when it may be called: before
/// SQLite is initialised, which the first connection does). Should SQLite refuse (it was
/// initialised already), it keeps its own allocator, which is only less frugal.
unsafe fn sqlite_allocates_with_mimalloc() {
    let methods = sqlite::sqlite3_mem_methods {
        xMalloc: Some(sqlite_malloc),
        xFree: Some(sqlite_free),
        xRealloc: Some(sqlite_realloc),
        xSize: Some(sqlite_size),
        xRoundup: Some(sqlite_roundup),
        xInit: Some(sqlite_init),
        xShutdown: Some(sqlite_shutdown),
        pAppData: std::ptr::null_mut(),
    };
    // SAFETY: SQLite copies the methods before it returns; they are one allocator family
    // with malloc's alignment; no connection exists yet (the caller's promise).
    let _ = unsafe {
        sqlite::sqlite3_config(
            sqlite::SQLITE_CONFIG_MALLOC,
            &methods as *const sqlite::sqlite3_mem_methods,
        )
    };
    // Without SQLite's allocation statistics (no CAST code reads them, and no soft heap limit
    // is set): with them, every allocation of every connection takes one process-wide mutex,
    // and a cold build allocates on four SQLite threads at once.
    // SAFETY: a plain integer option, set before SQLite is initialised (as above).
    let _ = unsafe { sqlite::sqlite3_config(sqlite::SQLITE_CONFIG_MEMSTATUS, 0 as c_int) };
}

/// Makes tree-sitter allocate with mimalloc (see [`set_up`] for when it may be called).
unsafe fn tree_sitter_allocates_with_mimalloc() {
    let allocator = tree_sitter::Allocator {
        malloc: ts_malloc,
        calloc: ts_calloc,
        realloc: ts_realloc,
        free: ts_free,
    };
    // SAFETY: the four functions are one allocator family, never return null for a non-zero
    // size, and return memory aligned as malloc's; the caller upholds the rest.
    unsafe { tree_sitter::set_allocator(Some(allocator)) }
}
