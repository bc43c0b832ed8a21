//! tree-sitter's C core allocates through mimalloc, as the Rust code of the `cast` binaries
//! does (their global allocator). A parse allocates a syntax node at a time, on every core;
//! with glibc's malloc, a sixth of `cast symbols`'s CPU went to malloc and free (their locks,
//! arena growth and consolidation).
//!
//! The one place in CAST with `unsafe`: handing C four allocation functions cannot be safe.
#![allow(unsafe_code)]

use std::ffi::c_void;

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

/// Makes tree-sitter allocate with mimalloc.
///
/// # Safety
///
/// Call it first thing in `main`, before any tree-sitter object exists (one freed later by
/// the other allocator would corrupt it), and before any second thread starts.
pub unsafe fn tree_sitter_allocates_with_mimalloc() {
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
