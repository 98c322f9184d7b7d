-- The append-only logs no longer ask PostgreSQL to check, row by row, that
-- the game or player they name exists (issue 26). Each such check is a
-- query and a row lock per inserted row, run as a trigger: about four a
-- move, a sixth of the writer's time in the database. Each of these rows
-- is written behind a guard that already proves the same thing in the same
-- transaction:
--   moves.game_id, game_events.game_id: written only for a game whose
--     guarded update matched its row (or for the game just inserted), so
--     the game exists and stays locked until the commit;
--   player_events.player_id: numbered by the player's counter in
--     player_streams, moved in the same transaction (no counter, no
--     event), and player_streams keeps its own key to players.
-- Games and players are never deleted, so nothing relied on the cascades.
-- moves.player_id keeps its check: no guard of the writer proves it.
-- SQLite keeps all of them: a check there is a look-up in a page already
-- in memory, not a query.
ALTER TABLE moves DROP CONSTRAINT moves_game_id_fkey;
ALTER TABLE game_events DROP CONSTRAINT game_events_game_id_fkey;
ALTER TABLE player_events DROP CONSTRAINT player_events_player_id_fkey;
