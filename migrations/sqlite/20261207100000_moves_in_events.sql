-- A game's moves are read from its `move` events (issue 26). Each event
-- carries its move (ply, seat, player, notation, effect, message), written
-- in the same transaction as the move's row in `moves` since the first
-- migration: the row was a second copy, and its table and key a fifth of
-- the pages a commit wrote (BENCHMARKS.md, twenty-second round). A move
-- taken back stays in the log; the game's row, a ply back, says it is
-- gone, and the next `move` event at that ply stands in its place
-- (src/store/model/history.rs reads the log back).
--
-- Nothing is dropped unless every stored move is in the log: a move whose
-- event is missing (or says another move) fails the migration here, on
-- the CHECK, and the database stays as it was.
CREATE TEMP TABLE move_events AS
    SELECT game_id, json_extract(payload, '$.ply') AS ply, json_extract(payload, '$.move') AS notation
    FROM game_events WHERE kind = 'move';
CREATE INDEX temp.move_events_key ON move_events (game_id, ply, notation);
CREATE TEMP TABLE moves_without_events (
    moves INTEGER NOT NULL CHECK (moves = 0)
);
INSERT INTO moves_without_events (moves)
    SELECT count(*) FROM moves m WHERE NOT EXISTS (
        SELECT 1 FROM move_events e
        WHERE e.game_id = m.game_id AND e.ply = m.ply AND e.notation = m.notation);
DROP TABLE moves_without_events;
DROP TABLE move_events;

DROP TABLE moves;
