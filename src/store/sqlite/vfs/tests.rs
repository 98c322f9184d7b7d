use rusqlite::{Connection, OpenFlags};

use super::*;

/// A run takes what follows on from it, up to its size, and nothing
/// else: a write elsewhere, or one that would overflow it, goes to the
/// file first.
#[test]
fn a_run_takes_the_writes_that_follow_on() {
    let mut run = Run::default();
    assert!(run.takes(32, 24), "an empty run takes any write");
    run.push(32, &[1; 24]);
    assert!(run.takes(56, 4096));
    run.push(56, &[2; 4096]);
    assert_eq!((run.start, run.end()), (32, 32 + 24 + 4096));
    assert!(!run.takes(32, 24), "a frame written again in place");
    assert!(!run.takes(run.end() + 1, 24), "a gap");
    assert!(!run.takes(run.end(), MOST_HELD), "too large to hold");
    assert!(run.takes(run.end(), MOST_HELD - run.bytes.len()));
}

fn open(path: &std::path::Path, vfs: Option<&CStr>) -> Connection {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = match vfs {
        Some(vfs) => Connection::open_with_flags_and_vfs(path, flags, vfs.to_str().expect("a UTF-8 name")),
        None => Connection::open_with_flags(path, flags),
    }
    .expect("opens");
    connection
        .execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;")
        .expect("WAL, FULL");
    connection
}

/// The write system calls this thread has made so far (`syscw` of
/// `/proc/thread-self/io`: `write`, `pwrite` and their vector forms).
fn writes_so_far() -> u64 {
    let io = std::fs::read_to_string("/proc/thread-self/io").expect("this thread's I/O counters");
    io.lines()
        .find_map(|line| line.strip_prefix("syscw: "))
        .and_then(|n| n.parse().ok())
        .expect("syscw")
}

/// The write system calls one transaction of `rows` rows of 1 KiB makes.
fn writes_for(connection: &Connection, rows: usize) -> u64 {
    let before = writes_so_far();
    connection
        .execute_batch(&format!(
            "BEGIN IMMEDIATE; \
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {rows}) \
             INSERT INTO t (v) SELECT randomblob(1024) FROM n; \
             COMMIT;"
        ))
        .expect("a transaction");
    writes_so_far() - before
}

/// Through the VFS a commit of some 200 KiB is two writes to the WAL
/// (runs of at most [`MOST_HELD`] bytes) where SQLite's own VFS makes two
/// a page; what it committed is read by a
/// connection of SQLite's own at once, survives a checkpoint that empties
/// the WAL, and is whole when the database is opened again.
#[test]
fn a_commit_writes_its_frames_at_once_and_readers_see_it() {
    assert!(register(), "the unix VFS is there to build on");
    let dir = std::env::temp_dir().join(format!("tavoliere-vfs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let path = dir.join("vfs.db");
    let writer = open(&path, Some(NAME));
    writer
        .execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL)")
        .expect("a table");
    let reader = open(&path, None);
    let count = |c: &Connection| -> i64 { c.query_row("SELECT count(*) FROM t", [], |r| r.get(0)).expect("counts") };

    let mut rows = 0;
    for round in 0..5 {
        let writes = writes_for(&writer, 150);
        rows += 150;
        // Two runs, and at most a WAL header (written and synced apart at
        // the WAL's start) besides.
        assert!(
            writes <= 3,
            "round {round}: {writes} writes for one commit through the VFS"
        );
        assert_eq!(count(&reader), rows, "round {round}: the reader sees the commit");
    }
    let plain = writes_for(&reader, 150);
    rows += 150;
    assert!(plain >= 80, "SQLite's own VFS writes a frame in two: {plain} writes");
    assert_eq!(count(&writer), rows, "the writer reads what another connection wrote");

    writer
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .expect("a checkpoint");
    assert!(writes_for(&writer, 150) <= 3);
    rows += 150;
    assert_eq!(count(&reader), rows);
    drop((writer, reader));

    let again = open(&path, Some(NAME));
    assert_eq!(count(&again), rows, "every committed row is there after reopening");
    let check: String = again
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("checks");
    assert_eq!(check, "ok");
    drop(again);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The VFS holds a commit's frames until the WAL is synced, which is safe
/// only because every commit syncs: the game writer's connection goes
/// through it in WAL mode with `synchronous = FULL`, and a commit of its
/// writes the WAL in runs.
#[test]
fn the_writers_connection_goes_through_it_and_syncs_every_commit() {
    let dir = std::env::temp_dir().join(format!("tavoliere-vfs-writer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let path = dir.join("writer.db");
    drop(open(&path, None));
    let writer = crate::store::sqlite::writer::open(&path).expect("the writer's connection");
    let mode: String = writer
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("its journal");
    let synchronous: i64 = writer
        .query_row("PRAGMA synchronous", [], |r| r.get(0))
        .expect("its sync");
    assert_eq!((mode.as_str(), synchronous), ("wal", 2), "WAL, FULL");
    // Its commits leave checkpoints to `checkpoint.rs`'s thread.
    let checkpoints_past: u32 = writer
        .query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0))
        .expect("its checkpoints");
    assert_eq!(checkpoints_past, crate::store::sqlite::checkpoint::BACKSTOP);
    writer
        .execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL)")
        .expect("a table");
    let writes = writes_for(&writer, 150);
    assert!(writes <= 3, "{writes} writes for one commit of the writer's");
    drop(writer);
    let _ = std::fs::remove_dir_all(&dir);
}
