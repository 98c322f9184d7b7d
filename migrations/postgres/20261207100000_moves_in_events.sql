-- A game's moves are read from its `move` events (issue 26), as on SQLite
-- (migrations/sqlite/20261207100000_moves_in_events.sql says why). Each
-- event carries its move, written in the same transaction as the move's
-- row in `moves` since the first migration: the row was a second copy,
-- and its statement one of the writer's four a move. A move taken back
-- stays in the log; the game's row, a ply back, says it is gone
-- (src/store/model/history.rs reads the log back).
--
-- Nothing is dropped unless every stored move is in the log: a move whose
-- event is missing (or says another move) fails the migration, and the
-- database stays as it was.
DO $$
DECLARE
    missing BIGINT;
BEGIN
    SELECT count(*) INTO missing FROM moves m WHERE NOT EXISTS (
        SELECT 1 FROM game_events e
        WHERE e.game_id = m.game_id AND e.kind = 'move'
          AND (e.payload ->> 'ply')::BIGINT = m.ply AND e.payload ->> 'move' = m.notation);
    IF missing > 0 THEN
        RAISE EXCEPTION '% stored moves have no move event: moves kept', missing;
    END IF;
END
$$;

DROP TABLE moves;
