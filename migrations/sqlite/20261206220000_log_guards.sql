-- The append-only logs no longer ask SQLite to check, row by row, that the
-- game or player they name exists (issue 26), as on PostgreSQL
-- (migrations/postgres/20261206210000_log_guards.sql, which says why each
-- row is written behind a guard that proves the same thing in the same
-- transaction: the game's guarded update, the player's stream counter).
-- A check here is a look-up of the parent's row, a cursor opened and
-- closed, for every inserted row: five a move (the move's game and player,
-- its event's game, the opponent's notice when written and when filed).
-- Without four of them a move takes 9,100 fewer of its 186,000
-- instructions (callgrind; BENCHMARKS.md, seventeenth round).
-- moves.player_id keeps its check, as on PostgreSQL: no guard of the
-- writer proves it.
--
-- SQLite cannot drop a constraint: each table is built again without it
-- and its rows copied over, once (about 2 s for a 90 MB database of
-- 238,000 moves, 267,000 game events and 275,000 player events). The
-- `player_events` view and its trigger name the events' tables, so they go
-- first and come back unchanged
-- (migrations/sqlite/20261206200000_player_events_filed.sql says what they
-- do).
DROP VIEW player_events;

CREATE TABLE moves_new (
    game_id    INTEGER NOT NULL,
    ply        INTEGER NOT NULL,
    seat       INTEGER NOT NULL,
    player_id  INTEGER NOT NULL REFERENCES players (id),
    notation   TEXT    NOT NULL,
    effect     TEXT,
    message    TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
);
INSERT INTO moves_new (game_id, ply, seat, player_id, notation, effect, message, created_at)
    SELECT game_id, ply, seat, player_id, notation, effect, message, created_at FROM moves;
DROP TABLE moves;
ALTER TABLE moves_new RENAME TO moves;

CREATE TABLE game_events_new (
    game_id    INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    payload    TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
);
INSERT INTO game_events_new (game_id, seq, kind, payload, created_at)
    SELECT game_id, seq, kind, payload, created_at FROM game_events;
DROP TABLE game_events;
ALTER TABLE game_events_new RENAME TO game_events;

CREATE TABLE player_events_filed_new (
    player_id  INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    payload    TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (player_id, seq)
);
INSERT INTO player_events_filed_new (player_id, seq, kind, payload, created_at)
    SELECT player_id, seq, kind, payload, created_at FROM player_events_filed;
DROP TABLE player_events_filed;
ALTER TABLE player_events_filed_new RENAME TO player_events_filed;

CREATE TABLE player_events_recent_0_new (
    player_id  INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    payload    TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (player_id, seq)
);
INSERT INTO player_events_recent_0_new (player_id, seq, kind, payload, created_at)
    SELECT player_id, seq, kind, payload, created_at FROM player_events_recent_0;
DROP TABLE player_events_recent_0;
ALTER TABLE player_events_recent_0_new RENAME TO player_events_recent_0;

CREATE TABLE player_events_recent_1_new (
    player_id  INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    payload    TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (player_id, seq)
);
INSERT INTO player_events_recent_1_new (player_id, seq, kind, payload, created_at)
    SELECT player_id, seq, kind, payload, created_at FROM player_events_recent_1;
DROP TABLE player_events_recent_1;
ALTER TABLE player_events_recent_1_new RENAME TO player_events_recent_1;

CREATE VIEW player_events AS
    SELECT player_id, seq, kind, payload, created_at FROM player_events_filed
    UNION ALL
    SELECT player_id, seq, kind, payload, created_at FROM player_events_recent_0
    WHERE player_id >= (SELECT CASE WHEN target = 0 THEN -9223372036854775808
                                    ELSE coalesce(filed_below, -9223372036854775808) END
                        FROM player_events_filing)
    UNION ALL
    SELECT player_id, seq, kind, payload, created_at FROM player_events_recent_1
    WHERE player_id >= (SELECT CASE WHEN target = 1 THEN -9223372036854775808
                                    ELSE coalesce(filed_below, -9223372036854775808) END
                        FROM player_events_filing);

CREATE TRIGGER player_events_insert INSTEAD OF INSERT ON player_events
BEGIN
    INSERT INTO player_events_recent_0 (player_id, seq, kind, payload, created_at)
    SELECT NEW.player_id, NEW.seq, NEW.kind, NEW.payload, NEW.created_at
    FROM player_events_filing WHERE target = 0;
    INSERT INTO player_events_recent_1 (player_id, seq, kind, payload, created_at)
    SELECT NEW.player_id, NEW.seq, NEW.kind, NEW.payload, NEW.created_at
    FROM player_events_filing WHERE target = 1;
END;
