-- A player's new events are written to a small table and filed into the
-- large one a few at a time (issue 26; SQLite only, whose commits write
-- whole pages). Each player's stream is a run of its own in the large
-- table's key (player, number), so every event put one more page into its
-- commit: of the 57 pages a commit wrote with 100 games in flight, 28 were
-- that key's, about one a `your_turn` notice. A small table's key fits in a
-- few pages, whoever the players are.
--
-- Two small tables take turns: new events go to the `target` one; once it
-- holds enough, the other (by then empty) becomes the target, and the game
-- writer files the full one into `player_events_filed`, a range of players
-- in each of its transactions, all of a player's events side by side (one
-- page of the large key for many events). `filed_below`: the players of the
-- table being filed whose events are filed already (their rows stay until
-- the whole table is filed, then it is emptied in one statement); NULL when
-- no table is being filed.
--
-- `player_events` is the three tables read as one, without the rows filed
-- already, so every statement that reads a player's stream (and
-- PostgreSQL's same statements) reads it unchanged: SQLite merges the
-- tables' keys in order. An insert into it goes to the target table. A
-- stream's numbers stay unique across the tables: its counter in
-- `player_streams` gives each number once, under the write lock.
ALTER TABLE player_events RENAME TO player_events_filed;

CREATE TABLE player_events_recent_0 (
    player_id  INTEGER NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    payload    TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (player_id, seq)
);

CREATE TABLE player_events_recent_1 (
    player_id  INTEGER NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    payload    TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (player_id, seq)
);

CREATE TABLE player_events_filing (
    target      INTEGER NOT NULL CHECK (target IN (0, 1)),
    filed_below INTEGER
);
INSERT INTO player_events_filing (target, filed_below) VALUES (0, NULL);

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
