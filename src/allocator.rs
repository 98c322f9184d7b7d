//! The server's global allocator: mimalloc, asked the way its fast path
//! expects.
//!
//! The `mimalloc` crate's allocator, which this one replaces, passes every
//! allocation through `mi_malloc_aligned`, whatever its alignment. In
//! mimalloc 3 that call takes the fast path only while its size class has a
//! free block at hand; otherwise an allocation whose rounded size is not a
//! power of two (48, 56, 80 bytes…) is over-allocated by `alignment - 1`
//! bytes into the next size class, on a slower path, even for an alignment
//! of 1 or 8. Every block mimalloc hands out is aligned to a word at least,
//! so an allocation that asks no more than that goes to plain `mi_malloc`;
//! larger alignments (a tokio task's 128) still go through
//! `mi_malloc_aligned`.
//!
//! Promise: what `GlobalAlloc` asks: a block of at least the layout's size at
//! the layout's alignment, or null; `realloc` keeps the contents and the
//! alignment.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;
use std::mem;

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc, mi_zalloc_aligned,
};

/// Alignment every mimalloc block has, whatever its size: a word (blocks
/// are carved at multiples of their size class, and every size class is a
/// multiple of a word).
const BLOCK_ALIGNMENT: usize = mem::size_of::<usize>();

/// A block for `layout` from `plain` when a word's alignment is enough, from
/// `aligned` otherwise (`mi_malloc` and `mi_malloc_aligned`, or their
/// zeroing twins).
///
/// # Safety
///
/// `layout` has a non-zero size (`GlobalAlloc`'s contract).
#[inline]
unsafe fn allocate(
    layout: Layout,
    plain: unsafe extern "C" fn(usize) -> *mut c_void,
    aligned: unsafe extern "C" fn(usize, usize) -> *mut c_void,
) -> *mut u8 {
    // SAFETY: mimalloc's allocation calls take any size, and `aligned` any
    // power-of-two alignment, which `Layout` guarantees.
    unsafe {
        if layout.align() <= BLOCK_ALIGNMENT {
            plain(layout.size()).cast()
        } else {
            aligned(layout.size(), layout.align()).cast()
        }
    }
}

/// mimalloc as the global allocator (`#[global_allocator]` in `main.rs`).
pub struct Mimalloc;

// SAFETY: every method hands mimalloc what its C interface asks: a size (and a
// power-of-two alignment, which `Layout` guarantees) for an allocation, and
// for `realloc`/`dealloc` a pointer mimalloc returned, which `GlobalAlloc`'s
// callers guarantee. mimalloc is thread-safe, and `mi_free` takes any block
// whichever call made it. Blocks from `mi_malloc` are word-aligned, so they
// meet any layout that asks no more than `BLOCK_ALIGNMENT`.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        unsafe { allocate(layout, mi_malloc, mi_malloc_aligned) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        unsafe { allocate(layout, mi_zalloc, mi_zalloc_aligned) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (the caller's promise).
        unsafe { mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout` (the caller's
        // promise); the block it returns has the same alignment.
        unsafe {
            if layout.align() <= BLOCK_ALIGNMENT {
                mi_realloc(ptr.cast(), new_size).cast()
            } else {
                mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allocations of every size class up to a few pages and every alignment
    /// up to a page come back aligned, hold what is written, and keep it
    /// through `realloc` up and down.
    #[test]
    fn blocks_are_aligned_and_keep_their_contents() {
        let allocator = Mimalloc;
        for align in [1, 2, 4, 8, 16, 32, 64, 128, 4096] {
            for size in (1..=600).chain([1000, 1024, 4000, 4096, 20_000, 300_000]) {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a non-zero size; every block is freed with its layout.
                unsafe {
                    let block = allocator.alloc(layout);
                    assert!(!block.is_null(), "{size} bytes at {align}");
                    assert_eq!(block as usize % align, 0, "{size} bytes at {align}");
                    std::ptr::write_bytes(block, 0xa5, size);

                    let zeroed = allocator.alloc_zeroed(layout);
                    assert_eq!(zeroed as usize % align, 0, "zeroed {size} at {align}");
                    assert!((0..size).all(|i| *zeroed.add(i) == 0), "zeroed {size}");
                    allocator.dealloc(zeroed, layout);

                    let grown = size * 3 + 7;
                    let block = allocator.realloc(block, layout, grown);
                    assert_eq!(block as usize % align, 0, "{size} → {grown} at {align}");
                    assert!((0..size).all(|i| *block.add(i) == 0xa5), "{size} → {grown}");
                    std::ptr::write_bytes(block, 0x5a, grown);

                    let shrunk = (size / 2).max(1);
                    let grown_layout = Layout::from_size_align(grown, align).unwrap();
                    let block = allocator.realloc(block, grown_layout, shrunk);
                    assert_eq!(block as usize % align, 0, "{grown} → {shrunk} at {align}");
                    assert!((0..shrunk).all(|i| *block.add(i) == 0x5a), "{grown} → {shrunk}");
                    allocator.dealloc(block, Layout::from_size_align(shrunk, align).unwrap());
                }
            }
        }
    }
}
