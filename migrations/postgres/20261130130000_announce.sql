-- Other server processes sharing this database hear of committed events
-- through NOTIFY, which PostgreSQL delivers at commit, only for committed
-- transactions, in commit order. One notification per statement (the
-- writer inserts a whole batch's events in one), naming the newest event per
-- game or player as `id:seq,id:seq,…`, in chunks of 150 that stay well under
-- NOTIFY's 8000-byte payload limit.
--
-- Two functions alike rather than one taking the column as an argument: that
-- one would need EXECUTE, planned anew each time (pgbench, 35 rows a
-- statement: 0.31 ms added against 0.13 ms for these).

CREATE FUNCTION announce_game_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tavoliere_game_events', string_agg(game_id || ':' || seq, ','))
    FROM (SELECT game_id, max(seq) AS seq, (row_number() OVER (ORDER BY game_id) - 1) / 150 AS chunk
          FROM inserted GROUP BY game_id) AS newest
    GROUP BY chunk;
    RETURN NULL;
END
$$;

CREATE TRIGGER game_events_announced AFTER INSERT ON game_events
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION announce_game_events();

CREATE FUNCTION announce_player_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tavoliere_player_events', string_agg(player_id || ':' || seq, ','))
    FROM (SELECT player_id, max(seq) AS seq, (row_number() OVER (ORDER BY player_id) - 1) / 150 AS chunk
          FROM inserted GROUP BY player_id) AS newest
    GROUP BY chunk;
    RETURN NULL;
END
$$;

CREATE TRIGGER player_events_announced AFTER INSERT ON player_events
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION announce_player_events();
