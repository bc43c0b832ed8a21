//! How the `cast` binaries allocate, set up first thing in `main` ([`set_up`]):
//!
//! - tree-sitter's C core allocates through mimalloc, as the Rust code does (the binaries'
//!   global allocator). A parse allocates a syntax node at a time, on every core; with glibc's
//!   malloc, a sixth of `cast symbols`'s CPU went to malloc and free (their locks, arena growth
//!   and consolidation).
//! - mimalloc hands freed pages back to the system after 50 ms instead of its default second.
//!   A listing or a build frees each file's syntax tree as the next is parsed; held for a
//!   second, those pages were most of the peak (`cast symbols` over the standard library:
//!   57-68 MB, 39-47 MB with 50 ms, no slower; a cold `cast index` 262 MB, 250 MB).
//!
//! The one place in CAST with `unsafe`: handing C four allocation functions cannot be safe.
#![allow(unsafe_code)]

use std::ffi::{c_int, c_long, c_void};

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
}

/// `mi_option_purge_delay`'s place in mimalloc 3's `mi_option_t` (include/mimalloc.h); set
/// only when the linked mimalloc says it is version 3 (`mi_version()` is major·10000 + minor·100
/// + patch).
const MI3_OPTION_PURGE_DELAY: c_int = 15;
/// How long mimalloc keeps freed pages before it returns them, in milliseconds.
const PURGE_DELAY_MS: c_long = 50;

/// Sets up allocation as the module documentation says.
///
/// # Safety
///
/// Call it first thing in `main`, before any tree-sitter object exists (one freed later by
/// the other allocator would corrupt it), and before any second thread starts.
pub unsafe fn set_up() {
    // SAFETY: both are plain calls into the linked mimalloc; the option is set only on the
    // version whose option list the constant was read from.
    unsafe {
        if (30_000..40_000).contains(&mi_version()) {
            mi_option_set(MI3_OPTION_PURGE_DELAY, PURGE_DELAY_MS);
        }
        tree_sitter_allocates_with_mimalloc();
    }
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
