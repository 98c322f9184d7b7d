-- Conditional moves ("if you play this, I play that"). Keep in step with
-- migrations/postgres.

-- conditional_rev: the version of the game's conditional trees. Every write
-- of a tree (set, cleared, advanced by a reply) bumps it, and every write of
-- the game checks it beside event_seq: a move decided without a tree that
-- another process set meanwhile is refused and decided again. Setting a tree
-- adds no event to the public log, which would tell the opponent.
ALTER TABLE games ADD COLUMN conditional_rev INTEGER NOT NULL DEFAULT 0;

-- A player's tree of conditional moves, as canonical lines (a JSON array of
-- arrays of moves: their move, my reply, their move, …), valid in the
-- position after move `ply` (the opponent to move). Changed only in the same
-- transaction as the game's row, by the group-commit writer.
CREATE TABLE conditionals (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    player_id  INTEGER NOT NULL REFERENCES players (id),
    ply        INTEGER NOT NULL,
    lines      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (game_id, player_id)
);
