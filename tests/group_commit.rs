//! Group commit at the store: updates of many games submitted at once share
//! transactions, each keeps its own guard, and the per-game and per-player
//! event numbers stay gapless. Runs on SQLite, and on PostgreSQL when
//! `TEST_DATABASE_URL` is set.

use crate::common;

use common::Database;
use futures_util::future::join_all;
use serde_json::json;
use std::sync::Arc;

use tavoliere::domain::{GameStatus, Seat};
use tavoliere::store::{
    self, DeadlineChange, Event, GameUpdate, MoveRow, NewGame, NewPlayer, Player, PlayerEvent, PlayerResult,
    RatingChange, RatingValues, Reminder, Store, StoreError,
};

const GAMES: usize = 120;

/// A fresh store with two players.
async fn alice_and_bob() -> (Database, Arc<dyn Store>, Player, Player) {
    let database = Database::new().await;
    let store = store::connect(&database.url).await.expect("store");
    let alice = store.create_player(a_player("alice")).await.expect("alice");
    let bob = store.create_player(a_player("bob")).await.expect("bob");
    (database, store, alice, bob)
}

fn a_player(name: &str) -> NewPlayer {
    NewPlayer {
        name: name.to_owned(),
        name_key: name.to_owned(),
        email: None,
        password_hash: "x".to_owned(),
        bot: false,
        now: 0,
    }
}

fn seat(n: i64) -> Seat {
    Seat::try_from(n).expect("a seat")
}

/// A Gravity game with both seats taken, created by the first player.
fn a_game(players: (i64, i64)) -> NewGame {
    NewGame {
        game: "gravity".to_owned(),
        variant: "standard".to_owned(),
        public: true,
        created_by: players.0,
        time_control: None,
        seats: vec![(Some(players.0), None), (Some(players.1), None)],
        now: 0,
        events: vec![Event::of("created", &json!({}))],
        player_events: Vec::new(),
        rated: true,
        rating_min: None,
        rating_max: None,
        rematch_of: None,
        invite_code: None,
        clock: None,
        deadline: None,
        reminder_at: None,
    }
}

fn a_move(id: i64, expected_seq: i64, ply: i64, players: (i64, i64)) -> GameUpdate {
    let other = if ply % 2 == 1 { players.1 } else { players.0 };
    GameUpdate {
        id,
        expected_seq,
        status: GameStatus::Active,
        ply,
        to_move: Some(seat(ply % 2)),
        outcome: None,
        draw_offer: 0,
        takeback_offer: 0,
        now: 1_000 + ply,
        sit: Vec::new(),
        events: vec![a_move_event(ply)],
        player_events: vec![PlayerEvent::of(other, "your_turn", &json!({ "ply": ply }))],
        clock: None,
        deadline: None,
        reminder_at: None,
        ratings: Vec::new(),
        expected_rev: 0,
        conditional: None,
        tournament: None,
    }
}

/// Move `ply` (`a1`, `a2`, ...) as its event stores it: alice (seat 0)
/// plays the odd plies, bob the even ones.
fn a_move_event(ply: i64) -> Event {
    let mover = (ply - 1) % 2;
    let player = ["alice", "bob"][mover as usize];
    Event::of(
        "move",
        &json!({ "ply": ply, "seat": mover, "player": player,
                 "move": format!("a{ply}"), "effect": null, "message": null, "status": "active",
                 "to_move": 1 - mover }),
    )
}

/// Game `id`'s stored moves, in order (none when there is no game).
async fn history(store: &Arc<dyn Store>, id: i64) -> Vec<MoveRow> {
    match store.game(id).await.expect("read") {
        Some(record) => store.moves(&record, None).await.expect("moves"),
        None => Vec::new(),
    }
}

/// The notations of game `id`'s stored moves, in order.
async fn notations(store: &Arc<dyn Store>, id: i64) -> Vec<String> {
    history(store, id).await.into_iter().map(|m| m.notation).collect()
}

/// The numbers of `player`'s events, in order.
async fn stream(store: &Arc<dyn Store>, player: i64) -> Vec<i64> {
    let events = store.player_events(player, 0, 10_000).await.expect("a stream");
    events.iter().map(|e| e.seq).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_games_share_transactions_and_each_keeps_its_guard() {
    // Two players in every game: their streams receive events from many
    // updates of one batch.
    let (database, store, alice, bob) = alice_and_bob().await;
    let mut ids = Vec::new();
    for _ in 0..GAMES {
        let id = store.create_game(a_game((alice.id, bob.id))).await.expect("a game");
        ids.push(id);
    }
    let players = (alice.id, bob.id);
    let (frozen, ids) = ids.split_at(GAMES / 4);
    for ply in 1..=3 {
        // Every game moves. Stale updates, which must be refused alone,
        // come two ways: at odd plies for a game that also moves in the
        // same batch (on PostgreSQL, the batch is then written update by
        // update), at even plies for games that never move (on PostgreSQL,
        // written table by table).
        let updates = ids.iter().enumerate().flat_map(|(i, &id)| {
            let mut these = vec![a_move(id, ply, ply, players)];
            if ply % 2 == 1 && i % 3 == 0 {
                these.push(a_move(id, ply - 1, ply, players));
            }
            if ply % 2 == 0 {
                these.extend(frozen.get(i).map(|&f| a_move(f, ply, ply, players)));
            }
            these
        });
        let results = join_all(updates.map(|u| {
            let store = store.clone();
            let stale = u.expected_seq != ply || frozen.contains(&u.id);
            async move { (stale, store.update_game(u).await) }
        }))
        .await;
        for (stale, result) in results {
            match (stale, result) {
                (false, Ok(())) => {}
                (true, Err(StoreError::Conflict | StoreError::Unique)) => {}
                (stale, other) => panic!("stale {stale}: {other:?}"),
            }
        }
    }
    let stats = store.commit_stats();
    // The games' creations went through the writer too.
    assert_eq!(stats.updates, (GAMES + 3 * ids.len()) as u64, "{stats:?}");
    assert!(
        stats.transactions < stats.updates,
        "updates submitted together share transactions: {stats:?}"
    );
    for &id in frozen {
        let record = store.game(id).await.expect("read").expect("the game");
        assert_eq!((record.row.ply, record.row.event_seq), (0, 1), "game {id}");
        assert_eq!(
            store.game_events(id, 0, 100).await.expect("events").len(),
            1,
            "game {id}"
        );
    }
    for &id in ids {
        let record = store.game(id).await.expect("read").expect("the game");
        assert_eq!((record.row.ply, record.row.event_seq), (3, 4), "game {id}");
        assert_eq!(notations(&store, id).await, ["a1", "a2", "a3"], "game {id}");
        let seqs: Vec<i64> = store
            .game_events(id, 0, 100)
            .await
            .expect("events")
            .iter()
            .map(|e| e.seq)
            .collect();
        assert_eq!(seqs, [1, 2, 3, 4], "game {id}");
    }
    // Plies 1 and 3 tell bob, ply 2 tells alice: one event per game each,
    // numbered without gaps or repeats, each naming its game.
    let moving = ids.len();
    for (player, expected) in [(bob.id, 2 * moving), (alice.id, moving)] {
        let events = store.player_events(player, 0, 10_000).await.expect("stream");
        let seqs: Vec<i64> = events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (1..=expected as i64).collect::<Vec<_>>());
        assert!(events.iter().all(|e| e.payload["game"].as_i64().is_some()));
        assert_eq!(store.player_event_seq(player).await.expect("seq"), expected as i64);
    }
    drop(store);
    database.remove().await;
}

/// A change that fails half-way (its guard passed, then its seat was
/// taken) is rolled back whole, and fails alone: the changes batched with
/// it, creations among them, still commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_that_fails_half_way_fails_alone_and_leaves_nothing() {
    let (database, store, alice, bob) = alice_and_bob().await;
    let players = (alice.id, bob.id);
    let mut ids = Vec::new();
    for _ in 0..20 {
        ids.push(store.create_game(a_game(players)).await.expect("a game"));
    }
    let broken = ids[7];
    let mut bad = a_move(broken, 1, 1, players);
    // Seat 0 is alice's: the seat is refused after the game's row changed.
    bad.sit = vec![(Seat::FIRST, bob.id)];
    let moves = ids.iter().map(|&id| {
        let store = store.clone();
        let update = if id == broken {
            bad.clone()
        } else {
            a_move(id, 1, 1, players)
        };
        async move { (id, store.update_game(update).await) }
    });
    let creations = (0..10).map(|_| {
        let store = store.clone();
        let game = a_game(players);
        async move { store.create_game(game).await }
    });
    let (moved, created) = tokio::join!(join_all(moves), join_all(creations));
    for (id, result) in moved {
        match result {
            Err(StoreError::Conflict) if id == broken => {}
            Ok(()) if id != broken => {}
            other => panic!("game {id}: {other:?}"),
        }
    }
    let created: Vec<i64> = created.into_iter().map(|r| r.expect("a creation")).collect();
    for id in created {
        let record = store.game(id).await.expect("read").expect("created");
        assert_eq!(record.seats.len(), 2);
    }
    let record = store.game(broken).await.expect("read").expect("the game");
    assert_eq!(
        (record.row.ply, record.row.event_seq),
        (0, 1),
        "nothing of the failed change stays"
    );
    assert_eq!(store.game_events(broken, 0, 100).await.expect("events").len(), 1);
    // The good moves told alice nothing and bob once each: his stream has
    // no hole where the failed change's event was numbered.
    assert_eq!(
        stream(&store, bob.id).await,
        (1..=ids.len() as i64 - 1).collect::<Vec<_>>()
    );
    drop(store);
    database.remove().await;
}

/// A change naming a game or a player that does not exist is refused and
/// writes nothing, batched with good ones that commit. The logs have no
/// foreign keys to games and players: the writer's guards (the game's
/// guarded update, the player's stream counter) are what refuse it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_naming_a_missing_game_or_player_writes_nothing() {
    let (database, store, alice, bob) = alice_and_bob().await;
    let players = (alice.id, bob.id);
    let mut ids = Vec::new();
    for _ in 0..12 {
        ids.push(store.create_game(a_game(players)).await.expect("a game"));
    }
    let (told_nobody, ids) = ids.split_first().expect("games");
    let missing_game = ids.iter().max().expect("games") + 1_000;
    let missing_player = bob.id + 1_000;
    let mut to_nobody = a_move(*told_nobody, 1, 1, players);
    to_nobody.player_events = vec![PlayerEvent::of(missing_player, "your_turn", &json!({ "ply": 1 }))];
    let bad = [
        (*told_nobody, to_nobody),
        (missing_game, a_move(missing_game, 1, 1, players)),
    ];
    for round in 0..3_i64 {
        // The bad changes among good ones: first, last, and alone.
        let mut updates: Vec<(bool, GameUpdate)> = match round {
            0 => bad.iter().map(|(_, u)| (true, u.clone())).collect(),
            _ => Vec::new(),
        };
        if round < 2 {
            let ply = round + 1;
            updates.extend(ids.iter().map(|&id| (false, a_move(id, ply, ply, players))));
        }
        if round > 0 {
            updates.extend(bad.iter().map(|(_, u)| (true, u.clone())));
        }
        let results = join_all(updates.into_iter().map(|(bad, u)| {
            let store = store.clone();
            async move { (bad, u.id, store.update_game(u).await) }
        }))
        .await;
        for (bad, id, result) in results {
            match (bad, result) {
                (false, Ok(())) => {}
                (true, Err(StoreError::Conflict)) if id == missing_game => {}
                (true, Err(StoreError::NoSuchPlayer(player))) if id == *told_nobody && player == missing_player => {}
                (bad, other) => panic!("game {id} (bad: {bad}): {other:?}"),
            }
        }
    }
    for (id, _) in bad {
        assert!(history(&store, id).await.is_empty(), "game {id}");
        let events = store.game_events(id, 0, 100).await.expect("events").len();
        assert_eq!(events, usize::from(id != missing_game), "game {id}: only its creation");
    }
    assert!(store.game(missing_game).await.expect("read").is_none());
    let record = store.game(*told_nobody).await.expect("read").expect("the game");
    assert_eq!((record.row.ply, record.row.event_seq), (0, 1));
    assert!(store
        .player_events(missing_player, 0, 100)
        .await
        .expect("stream")
        .is_empty());
    for &id in ids {
        let record = store.game(id).await.expect("read").expect("the game");
        assert_eq!((record.row.ply, record.row.event_seq), (2, 3), "game {id}");
    }
    drop(store);
    database.remove().await;
}

/// A player's stream reads back whole, in order and each event once, after
/// every commit, however many events it gets: SQLite stores a player's new
/// events in small tables that take turns and files them into the large
/// one a range of players at a time, over many transactions
/// (`store/sqlite/filing.rs`); PostgreSQL stores them where they stay.
/// Read from the start and from the middle; events written by the game
/// writer and by a reminder (an insert through the `player_events` view on
/// SQLite) alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_players_stream_reads_whole_while_its_events_are_filed() {
    let (database, store, alice, bob) = alice_and_bob().await;
    let mut players = vec![alice.id, bob.id];
    for name in ["carol", "dave", "erin", "frank", "grace"] {
        players.push(store.create_player(a_player(name)).await.expect("a player").id);
    }
    let id = store.create_game(a_game((alice.id, bob.id))).await.expect("a game");
    // Each player's events as stored, by the `n` in their payloads.
    let mut expected: Vec<(i64, Vec<i64>)> = players.iter().map(|&p| (p, Vec::new())).collect();
    let mut n = 0;
    let mut next_event = |index: usize, kind: &'static str, expected: &mut Vec<(i64, Vec<i64>)>| {
        n += 1;
        expected[index].1.push(n);
        PlayerEvent::of(expected[index].0, kind, &json!({ "n": n }))
    };
    for ply in 1..=40 {
        let mut update = a_move(id, ply, ply, (alice.id, bob.id));
        // Alice hears of half of them (more than the writer files at once
        // of one player), the six others of the rest in turn.
        update.player_events = (0..100)
            .map(|i| {
                let index = if i % 2 == 0 {
                    0
                } else {
                    1 + (i / 2) % (players.len() - 1)
                };
                next_event(index, "your_turn", &mut expected)
            })
            .collect();
        store.update_game(update).await.expect("a move");
        if ply % 10 == 5 {
            let seq = ply + 1;
            let deadline = DeadlineChange {
                game_id: id,
                expected_seq: seq,
                deadline: Some(10_000),
                reminder_at: Some(9_000),
            };
            assert!(store.set_deadline(deadline).await.expect("a deadline"));
            let reminder = Reminder {
                game_id: id,
                expected_seq: seq,
                event: next_event(0, "reminder", &mut expected),
                now: 9_000,
            };
            assert!(store.send_reminder(reminder).await.expect("a reminder"));
        }
        for (player, ns) in &expected {
            let whole = store.player_events(*player, 0, 10_000).await.expect("a stream");
            let seqs: Vec<i64> = whole.iter().map(|e| e.seq).collect();
            assert_eq!(
                seqs,
                (1..=ns.len() as i64).collect::<Vec<_>>(),
                "player {player} after ply {ply}"
            );
            let stored: Vec<i64> = whole.iter().map(|e| e.payload["n"].as_i64().expect("n")).collect();
            assert_eq!(&stored, ns, "player {player} after ply {ply}");
            let middle = ns.len() as i64 / 2;
            let page = store.player_events(*player, middle, 7).await.expect("a page");
            let seqs: Vec<i64> = page.iter().map(|e| e.seq).collect();
            let upto = (middle + 7).min(ns.len() as i64);
            assert_eq!(
                seqs,
                (middle + 1..=upto).collect::<Vec<_>>(),
                "player {player} after ply {ply}"
            );
        }
    }
    if !database.is_postgres() {
        // And on SQLite they were filed as they went, not left in the
        // small tables: most of them are in the large one by now.
        let pool = sqlx::SqlitePool::connect(&database.url).await.expect("SQLite");
        let filed: i64 = sqlx::query_scalar("SELECT count(*) FROM player_events_filed")
            .fetch_one(&pool)
            .await
            .expect("a count");
        pool.close().await;
        assert!(filed >= n / 2, "{filed} of {n} events filed");
    }
    drop(store);
    database.remove().await;
}

/// A game's row as the store reads it: status, ply, event number, deadline
/// and reminder.
async fn row_of(store: &dyn Store, id: i64) -> (GameStatus, i64, i64, Option<i64>, Option<i64>) {
    let row = store.game(id).await.expect("read").expect("the game").row;
    (row.status, row.ply, row.event_seq, row.deadline, row.reminder_at)
}

/// An update leaves the game's row exactly as it says, status, deadline
/// and reminder included, however the writer writes it (SQLite's writer
/// writes a move's row in place when those three stay as they are), and
/// a stale one changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_update_writes_the_whole_row_or_nothing() {
    use GameStatus::{Active, Finished};
    let (database, store, alice, bob) = alice_and_bob().await;
    let players = (alice.id, bob.id);
    let id = store.create_game(a_game(players)).await.expect("a game");
    assert_eq!(row_of(&*store, id).await, (Active, 0, 1, None, None));

    // A move: status, deadline and reminder as they were.
    store.update_game(a_move(id, 1, 1, players)).await.expect("a move");
    assert_eq!(row_of(&*store, id).await, (Active, 1, 2, None, None));

    // An untimed game ends: of the three, only its status changes.
    let untimed = store.create_game(a_game(players)).await.expect("another game");
    let mut over = a_move(untimed, 1, 1, players);
    (over.status, over.to_move) = (Finished, None);
    store.update_game(over).await.expect("its end");
    assert_eq!(row_of(&*store, untimed).await, (Finished, 1, 2, None, None));

    // A clock starts: deadline and reminder change.
    let mut timed = a_move(id, 2, 2, players);
    (timed.deadline, timed.reminder_at) = (Some(5_000), Some(4_000));
    store.update_game(timed).await.expect("a timed move");
    assert_eq!(row_of(&*store, id).await, (Active, 2, 3, Some(5_000), Some(4_000)));

    // Written meanwhile, each keeping the event number: a vacation moving
    // the deadline, then the reminder cleared with the deadline kept. The
    // next update, decided on the copy from before, still leaves its own
    // deadline and reminder.
    for (seq, deadline) in [(3, 7_000), (4, 5_000)] {
        let meanwhile = DeadlineChange {
            game_id: id,
            expected_seq: seq,
            deadline: Some(deadline),
            reminder_at: None,
        };
        assert!(store.set_deadline(meanwhile).await.expect("written meanwhile"));
        let mut next = a_move(id, seq, seq, players);
        (next.deadline, next.reminder_at) = (Some(5_000), Some(4_000));
        store.update_game(next).await.expect("the next move");
        assert_eq!(
            row_of(&*store, id).await,
            (Active, seq, seq + 1, Some(5_000), Some(4_000))
        );
    }

    // Decided on a stale copy: refused, nothing written.
    let stale = store.update_game(a_move(id, 4, 5, players)).await;
    assert!(matches!(stale, Err(StoreError::Conflict)), "{stale:?}");
    let mut stale_end = a_move(id, 3, 5, players);
    stale_end.status = Finished;
    let stale = store.update_game(stale_end).await;
    assert!(matches!(stale, Err(StoreError::Conflict)), "{stale:?}");
    assert_eq!(row_of(&*store, id).await, (Active, 4, 5, Some(5_000), Some(4_000)));

    // The game ends: the status changes, the clock stops.
    let mut end = a_move(id, 5, 5, players);
    (end.status, end.to_move) = (Finished, None);
    store.update_game(end).await.expect("the end");
    assert_eq!(row_of(&*store, id).await, (Finished, 5, 6, None, None));
    drop(store);
    database.remove().await;
}

/// A database at the schema before the migration named `*_{name}` in this
/// backend's `migrations/` directory (which must hold one), with `rows`
/// (SQL statements) written at that schema: the store migrates the rest
/// when it connects.
async fn a_database_before(name: &str, rows: &[&str]) -> Database {
    let database = Database::new().await;
    let backend = if database.is_postgres() { "postgres" } else { "sqlite" };
    // The migrations before it, alone in a directory of their own.
    let before = std::env::temp_dir().join(format!("tavoliere-migrations-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&before).expect("a directory");
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("migrations")
        .join(backend);
    let mut files: Vec<_> = std::fs::read_dir(&source)
        .expect("migrations")
        .flatten()
        .map(|e| e.path())
        .collect();
    let file_name = |f: &std::path::PathBuf| f.file_name().map(|n| n.to_string_lossy().into_owned());
    let file = files
        .iter()
        .filter_map(file_name)
        .find(|f| f.ends_with(&format!("_{name}")))
        .unwrap_or_else(|| panic!("no migration *_{name} in {files:?}"));
    files.retain(|f| file_name(f).is_some_and(|f| f < file));
    for file in &files {
        std::fs::copy(file, before.join(file.file_name().expect("a name"))).expect("copied");
    }
    let migrator = sqlx::migrate::Migrator::new(before.as_path())
        .await
        .expect("the migrations before");
    if database.is_postgres() {
        let pool = sqlx::PgPool::connect(&database.url).await.expect("PostgreSQL");
        migrator.run(&pool).await.expect("migrated to the schema before");
        for row in rows {
            sqlx::query(row).execute(&pool).await.expect(row);
        }
        pool.close().await;
    } else {
        use std::str::FromStr;
        let options = sqlx::sqlite::SqliteConnectOptions::from_str(&database.url)
            .expect("a SQLite URL")
            .create_if_missing(true)
            .foreign_keys(true);
        let pool = sqlx::SqlitePool::connect_with(options).await.expect("SQLite");
        migrator.run(&pool).await.expect("migrated to the schema before");
        for row in rows {
            sqlx::query(row).execute(&pool).await.expect(row);
        }
        pool.close().await;
    }
    std::fs::remove_dir_all(&before).expect("removed");
    database
}

/// The migration that moved the players' stream counters off `players`
/// (`*_player_streams.sql`) keeps every player's numbers: a database at the
/// schema before it, with counters that had moved, is migrated when the
/// store connects, and the streams go on from where they were.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_counters_keep_their_numbers_across_their_migration() {
    // alice's stream at 7, 5 of them notified; bob's at 3, all notified.
    let old_players = "INSERT INTO players (name, name_key, password_hash, event_seq, notify_seq, created_at) \
                       VALUES ('alice', 'alice', 'x', 7, 5, 0), ('bob', 'bob', 'x', 3, 3, 0)";
    let database = a_database_before("player_streams.sql", &[old_players]).await;

    let store = store::connect(&database.url).await.expect("the store migrates it");
    let alice = store.player_by_name("alice").await.expect("read").expect("alice");
    let bob = store.player_by_name("bob").await.expect("read").expect("bob");
    assert_eq!(store.player_event_seq(alice.id).await.expect("seq"), 7);
    assert_eq!(store.player_event_seq(bob.id).await.expect("seq"), 3);
    let waiting = store.outbox(10).await.expect("the outbox");
    let waiting: Vec<(i64, i64, i64)> = waiting.iter().map(|w| (w.player_id, w.cursor, w.event_seq)).collect();
    assert_eq!(waiting, [(alice.id, 5, 7)], "only alice has events to notify");
    // The streams go on from there, and a new player's starts at 1.
    let carol = store.create_player(a_player("carol")).await.expect("carol");
    let id = store.create_game(a_game((alice.id, bob.id))).await.expect("a game");
    store
        .update_game(a_move(id, 1, 1, (alice.id, bob.id)))
        .await
        .expect("a move");
    let id = store.create_game(a_game((carol.id, alice.id))).await.expect("a game");
    store
        .update_game(a_move(id, 1, 1, (carol.id, alice.id)))
        .await
        .expect("a move");
    assert_eq!(store.player_event_seq(bob.id).await.expect("seq"), 4);
    assert_eq!(store.player_event_seq(alice.id).await.expect("seq"), 8);
    assert_eq!(store.player_event_seq(carol.id).await.expect("seq"), 0);
    assert_eq!(
        stream(&store, bob.id).await,
        [4],
        "the events before the migration were never stored here"
    );
    drop(store);
    database.remove().await;
}

/// The migration that took the logs' foreign keys to games and players off
/// (`*_log_guards.sql`; on SQLite the tables built again, their rows copied)
/// keeps every move and event: a game played before it reads back whole,
/// and goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_logs_keep_their_rows_across_their_migration() {
    let events = [
        "INSERT INTO game_events (game_id, seq, kind, payload, created_at) VALUES (1, 1, 'created', '{}', 1)"
            .to_owned(),
        stored_move_event(2, 1, "a1"),
        stored_move_event(3, 2, "b1"),
    ];
    let rows = [
        "INSERT INTO players (name, name_key, password_hash, created_at) VALUES ('alice', 'alice', 'x', 0), ('bob', 'bob', 'x', 0)",
        "INSERT INTO player_streams (player_id, event_seq) SELECT id, 1 FROM players",
        "INSERT INTO games (game, variant, status, public, ply, to_move, event_seq, created_by, created_at, updated_at) \
         SELECT 'gravity', 'standard', 'active', TRUE, 2, 0, 3, id, 0, 2 FROM players WHERE name = 'alice'",
        "INSERT INTO seats (game_id, seat, player_id) SELECT (SELECT max(id) FROM games), seat, id \
         FROM (SELECT 0 AS seat, 'alice' AS name UNION ALL SELECT 1, 'bob') s JOIN players USING (name)",
        "INSERT INTO moves (game_id, ply, seat, player_id, notation, created_at) \
         SELECT (SELECT max(id) FROM games), ply, ply - 1, id, notation, ply FROM \
         (SELECT 1 AS ply, 'a1' AS notation, 'alice' AS name UNION ALL SELECT 2, 'b1', 'bob') m JOIN players USING (name)",
        "INSERT INTO player_events (player_id, seq, kind, payload, created_at) SELECT id, 1, 'your_turn', '{}', 1 FROM players",
    ];
    let rows: Vec<&str> = rows.into_iter().chain(events.iter().map(String::as_str)).collect();
    let database = a_database_before("log_guards.sql", &rows).await;
    let store = store::connect(&database.url).await.expect("the store migrates it");
    let alice = store.player_by_name("alice").await.expect("read").expect("alice");
    let bob = store.player_by_name("bob").await.expect("read").expect("bob");
    // The database's only game.
    let id = 1;
    assert_eq!(notations(&store, id).await, ["a1", "b1"]);
    assert_eq!(store.game_events(id, 0, 100).await.expect("events").len(), 3);
    // The game goes on from where it was, and so do the streams.
    store
        .update_game(a_move(id, 3, 3, (alice.id, bob.id)))
        .await
        .expect("a move");
    assert_eq!(notations(&store, id).await, ["a1", "b1", "a3"]);
    assert_eq!(store.game_events(id, 0, 100).await.expect("events").len(), 4);
    assert_eq!(stream(&store, bob.id).await, [1, 2]);
    drop(store);
    database.remove().await;
}

/// The statement that stores move `ply` (`notation`) of the database's only
/// game as event `seq`, as the server writes it: alice (seat 0) plays the
/// odd plies, bob the even ones.
fn stored_move_event(seq: i64, ply: i64, notation: &str) -> String {
    let mover = (ply - 1) % 2;
    let player = ["alice", "bob"][mover as usize];
    format!(
        "INSERT INTO game_events (game_id, seq, kind, payload, created_at) VALUES (1, {seq}, 'move', \
         '{{\"ply\": {ply}, \"seat\": {mover}, \"player\": \"{player}\", \"move\": \"{notation}\", \
         \"effect\": null, \"message\": null, \"status\": \"active\", \"to_move\": {}}}', {seq})",
        1 - mover
    )
}

/// A database before the moves were read from their events
/// (`*_moves_in_events.sql`): one game at ply 3, whose third move `a3` was
/// taken back and `c3` played instead; its stored third move is `third`.
async fn a_game_with_a_takeback(third: &str) -> Database {
    let mut rows: Vec<String> = [
        "INSERT INTO players (name, name_key, password_hash, created_at) VALUES ('alice', 'alice', 'x', 0), ('bob', 'bob', 'x', 0)",
        "INSERT INTO player_streams (player_id, event_seq) SELECT id, 1 FROM players",
        "INSERT INTO games (game, variant, status, public, ply, to_move, event_seq, created_by, created_at, updated_at) \
         SELECT 'gravity', 'standard', 'active', TRUE, 3, 1, 6, id, 0, 6 FROM players WHERE name = 'alice'",
        "INSERT INTO seats (game_id, seat, player_id) SELECT 1, seat, id \
         FROM (SELECT 0 AS seat, 'alice' AS name UNION ALL SELECT 1, 'bob') s JOIN players USING (name)",
        "INSERT INTO game_events (game_id, seq, kind, payload, created_at) VALUES (1, 1, 'created', '{}', 1)",
        "INSERT INTO game_events (game_id, seq, kind, payload, created_at) \
         VALUES (1, 5, 'takeback_accepted', '{\"seat\": 1, \"ply\": 3}', 5)",
    ]
    .map(str::to_owned)
    .into();
    rows.extend([
        stored_move_event(2, 1, "a1"),
        stored_move_event(3, 2, "b1"),
        stored_move_event(4, 3, "a3"),
        stored_move_event(6, 3, "c3"),
    ]);
    rows.push(format!(
        "INSERT INTO moves (game_id, ply, seat, player_id, notation, created_at) \
         SELECT 1, ply, (ply - 1) % 2, id, notation, ply FROM \
         (SELECT 1 AS ply, 'a1' AS notation, 'alice' AS name UNION ALL SELECT 2, 'b1', 'bob' \
          UNION ALL SELECT 3, '{third}', 'alice') m JOIN players USING (name)"
    ));
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    a_database_before("moves_in_events.sql", &rows).await
}

/// The migration that reads the moves from their events
/// (`*_moves_in_events.sql`) drops the table of moves: a game played
/// before it, a move taken back and played again, reads back as it stood,
/// and goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_moves_read_from_their_events_are_the_moves_stored_before() {
    let database = a_game_with_a_takeback("c3").await;
    let store = store::connect(&database.url).await.expect("the store migrates it");
    let alice = store.player_by_name("alice").await.expect("read").expect("alice");
    let bob = store.player_by_name("bob").await.expect("read").expect("bob");
    let id = 1;
    assert_eq!(notations(&store, id).await, ["a1", "b1", "c3"]);
    let record = store.game(id).await.expect("read").expect("the game");
    let third = store.move_at(&record, 3).await.expect("read").expect("move 3");
    assert_eq!(
        (third.notation.as_str(), third.player_id, third.created_at),
        ("c3", alice.id, 6)
    );
    let first = store.move_at(&record, 1).await.expect("read").expect("move 1");
    assert_eq!((first.notation.as_str(), first.player_name.as_str()), ("a1", "alice"));
    assert!(store.move_at(&record, 4).await.expect("read").is_none());
    store
        .update_game(a_move(id, 6, 4, (alice.id, bob.id)))
        .await
        .expect("a move");
    assert_eq!(notations(&store, id).await, ["a1", "b1", "c3", "a4"]);
    drop(store);
    database.remove().await;
}

/// The same migration refuses a database whose stored moves are not all in
/// the log (here the third says `zz`, its event `c3`), and leaves it as it
/// was: nothing is dropped that the log would not give back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_move_missing_from_the_log_stops_its_migration() {
    let database = a_game_with_a_takeback("zz").await;
    for _ in 0..2 {
        assert!(store::connect(&database.url).await.is_err(), "the migration is refused");
    }
    let count = "SELECT count(*) FROM moves";
    let stored: i64 = if database.is_postgres() {
        let pool = sqlx::PgPool::connect(&database.url).await.expect("PostgreSQL");
        let stored = sqlx::query_scalar(count).fetch_one(&pool).await.expect("the moves");
        pool.close().await;
        stored
    } else {
        let pool = sqlx::SqlitePool::connect(&database.url).await.expect("SQLite");
        let stored = sqlx::query_scalar(count).fetch_one(&pool).await.expect("the moves");
        pool.close().await;
        stored
    };
    assert_eq!(stored, 3, "the moves stay stored");
    database.remove().await;
}

/// The reads every game makes (the invitee by name, the creator's standing,
/// the players' ratings, the game with its seats) answer what is stored,
/// missing rows and `NULL`s included. On SQLite they run on the calling
/// thread with a connection of their own (`store/sqlite/direct.rs`), on
/// PostgreSQL in the pool: the same answers from both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reads_every_game_makes_answer_what_is_stored() {
    let database = Database::new().await;
    let store = store::connect(&database.url).await.expect("store");
    let alice = store
        .create_player(NewPlayer {
            email: Some("alice@example.org".to_owned()),
            ..a_player("Alice")
        })
        .await
        .expect("alice");
    let bot = store
        .create_player(NewPlayer {
            bot: true,
            ..a_player("deep-gravity")
        })
        .await
        .expect("a bot");
    let carol = store.create_player(a_player("carol")).await.expect("carol");

    let found = store.player_by_name("Alice").await.expect("a read").expect("alice");
    assert_eq!(
        (found.id, found.name.as_str(), found.email.as_deref(), found.bot),
        (alice.id, "Alice", Some("alice@example.org"), false)
    );
    let found = store
        .player_by_name("deep-gravity")
        .await
        .expect("a read")
        .expect("the bot");
    assert_eq!((found.id, found.email, found.bot), (bot.id, None, true));
    assert!(
        store.player_by_name("alice").await.expect("a read").is_none(),
        "by the stored key only"
    );
    assert!(store.player_by_name("nobody").await.expect("a read").is_none());

    let standing_in = |variant: &'static str| {
        let store = store.clone();
        async move {
            let standing = store
                .creator_standing(alice.id, "gravity", variant)
                .await
                .expect("a read");
            (standing.open_games, standing.open_invitations, standing.rating)
        }
    };
    assert_eq!(standing_in("standard").await, (0, 0, None));
    // Two open games of alice's, one inviting carol; a game she plays in
    // counts for neither.
    for seats in [
        vec![(Some(alice.id), None), (None, Some(carol.id))],
        vec![(Some(alice.id), None), (None, None)],
    ] {
        let open = NewGame {
            seats,
            ..a_game((alice.id, carol.id))
        };
        store.create_game(open).await.expect("an open game");
    }
    let id = store.create_game(a_game((alice.id, carol.id))).await.expect("a game");
    // alice wins it, rated: her row and carol's are created.
    let change = |player_id: i64, result: PlayerResult, rating: f64| RatingChange {
        game_id: id,
        player_id,
        game: "gravity".to_owned(),
        variant: "standard".to_owned(),
        number: 1,
        ordinal: 1,
        result,
        before: RatingValues {
            rating: 1500.0,
            rd: 350.0,
            volatility: 0.06,
        },
        after: RatingValues {
            rating,
            rd: 290.25,
            volatility: 0.059_99,
        },
        played_at: 2_000,
    };
    store
        .update_game(GameUpdate {
            status: GameStatus::Finished,
            to_move: None,
            outcome: Some(json!({ "result": "1-0", "winners": [0] })),
            ratings: vec![
                change(alice.id, PlayerResult::Win, 1662.5),
                change(carol.id, PlayerResult::Loss, 1337.5),
            ],
            ..a_move(id, 1, 1, (alice.id, carol.id))
        })
        .await
        .expect("the end");

    assert_eq!(standing_in("standard").await, (2, 1, Some((1662.5, 290.25))));
    assert_eq!(standing_in("other").await, (2, 1, None), "no rating in another variant");

    let mut rows = store
        .ratings_of("gravity", "standard", &[carol.id, bot.id, alice.id])
        .await
        .expect("a read");
    rows.sort_by_key(|r| r.player_id);
    let shown: Vec<_> = rows
        .iter()
        .map(|r| {
            (
                r.player_id,
                r.name.as_str(),
                r.bot,
                r.game.as_str(),
                r.variant.as_str(),
                r.rating,
                r.rd,
                r.volatility,
                (r.games, r.wins, r.losses, r.draws),
                (r.last_played, r.last_order),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            (
                alice.id,
                "Alice",
                false,
                "gravity",
                "standard",
                1662.5,
                290.25,
                0.059_99,
                (1, 1, 0, 0),
                (2_000, 1)
            ),
            (
                carol.id,
                "carol",
                false,
                "gravity",
                "standard",
                1337.5,
                290.25,
                0.059_99,
                (1, 0, 1, 0),
                (2_000, 1)
            ),
        ],
        "each rated player's row as stored, and none for the unrated bot"
    );
    assert!(store
        .ratings_of("gravity", "standard", &[bot.id])
        .await
        .expect("a read")
        .is_empty());

    // A game with its seats, every column of its row as written: a private
    // rematch of the finished one, timed, rating-limited, alice sitting
    // (rated) and the bot invited.
    let rematch = NewGame {
        public: false,
        time_control: Some(json!({ "kind": "fischer", "initial_ms": 600_000, "increment_ms": 5_000 })),
        seats: vec![(Some(alice.id), None), (None, Some(bot.id))],
        now: 3_000,
        rating_min: Some(1_400),
        rating_max: Some(1_900),
        rematch_of: Some(id),
        invite_code: Some("q7KmP2xR".to_owned()),
        clock: Some(json!({ "remaining_ms": [600_000, 600_000], "since": 3_000 })),
        deadline: Some(603_000),
        reminder_at: Some(500_000),
        ..a_game((alice.id, bot.id))
    };
    let rematch_id = store.create_game(rematch.clone()).await.expect("a rematch");
    let record = store.game(rematch_id).await.expect("a read").expect("the rematch");
    assert_eq!(format!("{:?}", record.row), format!("{:?}", rematch.row(rematch_id)));
    let seats: Vec<_> = record
        .seats
        .iter()
        .map(|s| (i64::from(s.seat), s.player.clone(), s.invitee.clone(), s.bot, s.rating))
        .collect();
    assert_eq!(
        seats,
        [
            (
                0,
                Some((alice.id, "Alice".to_owned())),
                None,
                false,
                Some((1662.5, 290.25))
            ),
            (1, None, Some((bot.id, "deep-gravity".to_owned())), true, None),
        ],
        "in seat order, with the sitting player's rating in the variant"
    );
    let finished = store.game(id).await.expect("a read").expect("the finished game").row;
    assert_eq!(
        (finished.status, finished.ply, finished.to_move, finished.event_seq),
        (GameStatus::Finished, 1, None, 2)
    );
    assert_eq!(finished.outcome, Some(json!({ "result": "1-0", "winners": [0] })));
    assert_eq!((finished.rematch, finished.rematch_of), (Some(rematch_id), None));
    assert!(store.game(rematch_id + 1_000).await.expect("a read").is_none());
    drop(store);
    database.remove().await;
}
