//! The game writer's VFS: SQLite's own (`unix`) with one difference, a
//! WAL's frames reach the file in a `pwrite` or two a commit (runs of up
//! to 31 frames) instead of two a frame.
//!
//! SQLite writes a WAL frame as its 24-byte header, then its page: two
//! system calls, and three page-cache pages touched for one 4 KiB page (a
//! frame is 4,120 bytes, so its page straddles two). A commit of a batch
//! of moves writes 30 to 50 frames, one after the other. Here the writes of
//! a run that follows on from the last are kept in memory and handed to
//! the file together: before the WAL is synced, read, truncated, sized or
//! closed, and before any write elsewhere in it (issue 26, BENCHMARKS.md).
//!
//! What it promises: nothing reaches another connection, or survives a
//! crash, later than SQLite meant. A commit publishes its frames to readers
//! (the WAL index) only after syncing the WAL, and the sync writes the run
//! out first; with `synchronous = FULL`, which the writer always sets, every
//! commit syncs, so no frame is held past the commit, nor past the write
//! lock. A run that fails to reach the file fails the sync, and the commit
//! with it. Every other file (the database, its index, temporary files) is
//! SQLite's own, untouched.
//!
//! One of the crate's two modules of `unsafe` code (the other is the global
//! allocator's): a VFS is SQLite's C interface, function pointers over
//! memory SQLite owns.
#![allow(unsafe_code)]

use std::ffi::{c_int, c_void, CStr};
use std::ptr;
use std::sync::OnceLock;

use rusqlite::ffi;

/// The name connections open the database with.
pub const NAME: &CStr = c"tavoliere-wal";

/// The most bytes held before they are written anyway: what SQLite's
/// `unix` write takes at once (it asserts, and masks, a size under
/// 128 KiB). 31 frames of 4 KiB pages; a larger commit writes a run of
/// them at a time.
const MOST_HELD: usize = 0x1_ffff;

/// Registers the VFS (once); `false` when SQLite has no `unix` VFS to
/// build it on, and the caller opens with the default.
pub fn register() -> bool {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    *REGISTERED.get_or_init(|| {
        // SAFETY: the default VFS lives as long as the process; the new
        // one is leaked, so it does too, as SQLite requires of a VFS.
        unsafe {
            let unix = ffi::sqlite3_vfs_find(c"unix".as_ptr());
            if unix.is_null() {
                return false;
            }
            let mut vfs = *unix;
            vfs.zName = NAME.as_ptr();
            vfs.szOsFile = HEADER as c_int + (*unix).szOsFile;
            vfs.xOpen = Some(open);
            vfs.pNext = ptr::null_mut();
            let _ = UNIX.set(Unix(unix));
            ffi::sqlite3_vfs_register(Box::into_raw(Box::new(vfs)), 0) == ffi::SQLITE_OK
        }
    })
}

/// The `unix` VFS the new one forwards to.
struct Unix(*mut ffi::sqlite3_vfs);
// SAFETY: SQLite's VFS objects are immutable once registered and safe to use
// from any thread.
unsafe impl Send for Unix {}
unsafe impl Sync for Unix {}

static UNIX: OnceLock<Unix> = OnceLock::new();

/// Bytes written after one another, not yet passed to the file: the run
/// starts at `start`.
#[derive(Debug, Default)]
struct Run {
    start: i64,
    bytes: Vec<u8>,
}

impl Run {
    /// Whether `len` bytes at `offset` follow on from the run (or start
    /// one) and still fit in it.
    fn takes(&self, offset: i64, len: usize) -> bool {
        let follows = self.bytes.is_empty() || offset == self.end();
        follows && self.bytes.len() + len <= MOST_HELD
    }

    fn push(&mut self, offset: i64, data: &[u8]) {
        if self.bytes.is_empty() {
            self.start = offset;
        }
        self.bytes.extend_from_slice(data);
    }

    fn end(&self) -> i64 {
        self.start + self.bytes.len() as i64
    }
}

/// An open WAL: SQLite's `unix` file, placed after this header in the
/// memory SQLite gives the VFS, and the run it holds.
#[repr(C)]
struct WalFile {
    base: ffi::sqlite3_file,
    unix: *mut ffi::sqlite3_file,
    run: *mut Run,
}

/// The header's size, rounded up so the `unix` file after it is aligned.
const HEADER: usize = std::mem::size_of::<WalFile>().next_multiple_of(16);

// SAFETY, for every method below: SQLite calls them only with a `file`
// that `open` set up (its methods are these only once the `unix` file
// opened), one call at a time for a file (the writer's connection is used
// by one thread), and never after `close`. `file` is then a `WalFile`
// whose `unix` points at the open `unix` file after it and whose `run` is
// the `Box` `open` allocated, freed only by `close`.
static WAL_METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 1,
    xClose: Some(close),
    xRead: Some(read),
    xWrite: Some(write),
    xTruncate: Some(truncate),
    xSync: Some(sync),
    xFileSize: Some(file_size),
    xLock: Some(lock),
    xUnlock: Some(unlock),
    xCheckReservedLock: Some(check_reserved_lock),
    xFileControl: Some(file_control),
    xSectorSize: Some(sector_size),
    xDeviceCharacteristics: Some(device_characteristics),
    xShmMap: None,
    xShmLock: None,
    xShmBarrier: None,
    xShmUnmap: None,
    xFetch: None,
    xUnfetch: None,
};

/// Opens a file with `unix`: a WAL wrapped, any other file as it is.
unsafe extern "C" fn open(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const std::ffi::c_char,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    let Some(Unix(unix)) = UNIX.get() else {
        return ffi::SQLITE_CANTOPEN;
    };
    let Some(unix_open) = (**unix).xOpen else {
        return ffi::SQLITE_CANTOPEN;
    };
    if flags & ffi::SQLITE_OPEN_WAL == 0 {
        return unix_open(*unix, name, file, flags, out_flags);
    }
    let wal = file.cast::<WalFile>();
    let inner = file.cast::<u8>().add(HEADER).cast::<ffi::sqlite3_file>();
    (*file).pMethods = ptr::null();
    let rc = unix_open(*unix, name, inner, flags, out_flags);
    if rc != ffi::SQLITE_OK {
        return rc;
    }
    ptr::addr_of_mut!((*wal).unix).write(inner);
    ptr::addr_of_mut!((*wal).run).write(Box::into_raw(Box::default()));
    (*file).pMethods = &WAL_METHODS;
    ffi::SQLITE_OK
}

/// The `unix` file's methods.
unsafe fn methods(file: *mut ffi::sqlite3_file) -> (*mut ffi::sqlite3_file, &'static ffi::sqlite3_io_methods) {
    let unix = (*file.cast::<WalFile>()).unix;
    (unix, &*(*unix).pMethods)
}

/// Writes the run out, if any; emptied either way (a failed write fails
/// the sync or read that asked for it, and SQLite writes those frames
/// again).
unsafe fn flush(file: *mut ffi::sqlite3_file) -> c_int {
    let run = &mut *(*file.cast::<WalFile>()).run;
    if run.bytes.is_empty() {
        return ffi::SQLITE_OK;
    }
    let (unix, methods) = methods(file);
    let rc = match (methods.xWrite, c_int::try_from(run.bytes.len())) {
        (Some(write), Ok(len)) => write(unix, run.bytes.as_ptr().cast(), len, run.start),
        _ => ffi::SQLITE_IOERR_WRITE,
    };
    run.bytes.clear();
    rc
}

unsafe extern "C" fn write(file: *mut ffi::sqlite3_file, data: *const c_void, amount: c_int, offset: i64) -> c_int {
    let Ok(len) = usize::try_from(amount) else {
        return ffi::SQLITE_IOERR_WRITE;
    };
    let run = &mut *(*file.cast::<WalFile>()).run;
    if !run.takes(offset, len) {
        let rc = flush(file);
        if rc != ffi::SQLITE_OK {
            return rc;
        }
    }
    let run = &mut *(*file.cast::<WalFile>()).run;
    if run.takes(offset, len) {
        run.push(offset, std::slice::from_raw_parts(data.cast::<u8>(), len));
        return ffi::SQLITE_OK;
    }
    // Larger than a run: straight to the file.
    let (unix, methods) = methods(file);
    match methods.xWrite {
        Some(write) => write(unix, data, amount, offset),
        None => ffi::SQLITE_IOERR_WRITE,
    }
}

unsafe extern "C" fn close(file: *mut ffi::sqlite3_file) -> c_int {
    let flushed = flush(file);
    let wal = file.cast::<WalFile>();
    drop(Box::from_raw((*wal).run));
    (*wal).run = ptr::null_mut();
    let (unix, methods) = methods(file);
    let closed = methods.xClose.map_or(ffi::SQLITE_OK, |close| close(unix));
    (*file).pMethods = ptr::null();
    if flushed != ffi::SQLITE_OK {
        flushed
    } else {
        closed
    }
}

/// Forwards a method to `unix`'s; `after flush:` writes the run out first,
/// for the methods that need it.
macro_rules! forward {
    (@ $flush_first:literal, $name:ident, $method:ident, $failed:expr, ($($arg:ident: $ty:ty),*)) => {
        unsafe extern "C" fn $name(file: *mut ffi::sqlite3_file, $($arg: $ty),*) -> c_int {
            if $flush_first {
                let rc = flush(file);
                if rc != ffi::SQLITE_OK {
                    return rc;
                }
            }
            let (unix, methods) = methods(file);
            match methods.$method {
                Some(method) => method(unix, $($arg),*),
                None => $failed,
            }
        }
    };
    (after flush: $($method:tt)*) => {
        forward!(@ true, $($method)*);
    };
    ($($method:tt)*) => {
        forward!(@ false, $($method)*);
    };
}

forward!(after flush: read, xRead, ffi::SQLITE_IOERR_READ, (buffer: *mut c_void, amount: c_int, offset: i64));
forward!(after flush: truncate, xTruncate, ffi::SQLITE_IOERR_TRUNCATE, (size: i64));
forward!(after flush: sync, xSync, ffi::SQLITE_IOERR_FSYNC, (flags: c_int));
forward!(after flush: file_size, xFileSize, ffi::SQLITE_IOERR_FSTAT, (size: *mut i64));
// A size hint may extend the file: the run first, as for a truncation.
forward!(after flush: file_control, xFileControl, ffi::SQLITE_NOTFOUND, (op: c_int, arg: *mut c_void));
forward!(lock, xLock, ffi::SQLITE_IOERR_LOCK, (level: c_int));
forward!(unlock, xUnlock, ffi::SQLITE_IOERR_UNLOCK, (level: c_int));
forward!(check_reserved_lock, xCheckReservedLock, ffi::SQLITE_IOERR_CHECKRESERVEDLOCK, (out: *mut c_int));
forward!(sector_size, xSectorSize, 4096, ());
forward!(device_characteristics, xDeviceCharacteristics, 0, ());

#[cfg(test)]
mod tests;
