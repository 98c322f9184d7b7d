-- Each player's stream counters, moved off the wide `players` row (issue
-- 26). Every player event moves `event_seq`, and an UPDATE rewrites the
-- whole row on its page: the players' rows (names, password hashes,
-- notification settings) spread over many pages, where these narrow rows
-- fit in a few, so a commit of a batch of moves writes fewer pages.
-- event_seq: the last number used in player_events. notify_seq: the last
-- player event turned into deliveries (the notifier's cursor). Every
-- player has a row, written with the player.
CREATE TABLE player_streams (
    player_id  BIGINT PRIMARY KEY REFERENCES players (id) ON DELETE CASCADE,
    event_seq  BIGINT NOT NULL DEFAULT 0,
    notify_seq BIGINT NOT NULL DEFAULT 0
);
INSERT INTO player_streams (player_id, event_seq, notify_seq) SELECT id, event_seq, notify_seq FROM players;
ALTER TABLE players DROP COLUMN event_seq, DROP COLUMN notify_seq;
