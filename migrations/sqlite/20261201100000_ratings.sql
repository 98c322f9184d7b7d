-- Ratings (Glicko-2), rating ranges on open games, rematches. SQLite
-- flavour; keep in step with migrations/postgres.

-- `rated`: whether the game's end changes its players' ratings. Games that
-- ended before ratings existed were never rated, so they are marked so:
-- `tavoliere ratings rebuild` recomputes what was rated, and only that.
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 1;
UPDATE games SET rated = 0 WHERE status IN ('finished', 'aborted');
-- Who may take an open seat, by their rating in the game's variant.
ALTER TABLE games ADD COLUMN rating_min INTEGER;
ALTER TABLE games ADD COLUMN rating_max INTEGER;
-- The game this one is a rematch of, and the rematch offered after this one.
ALTER TABLE games ADD COLUMN rematch_of INTEGER REFERENCES games (id);
ALTER TABLE games ADD COLUMN rematch INTEGER REFERENCES games (id);

-- A player's rating in one game and variant, as their last rated game left
-- it. `games` is also the writers' guard: a game's end updates the row only
-- while it still counts the games it was computed from, so two servers
-- ending games of one player at once cannot both apply theirs over the
-- same value. `last_order` is the order of the player's last rated game
-- (see rating_changes.ordinal).
CREATE TABLE ratings (
    player_id   INTEGER NOT NULL REFERENCES players (id),
    game        TEXT    NOT NULL,
    variant     TEXT    NOT NULL,
    rating      REAL    NOT NULL,
    rd          REAL    NOT NULL,
    volatility  REAL    NOT NULL,
    games       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    losses      INTEGER NOT NULL,
    draws       INTEGER NOT NULL,
    last_played INTEGER NOT NULL,
    last_order  INTEGER NOT NULL,
    PRIMARY KEY (player_id, game, variant)
);
CREATE INDEX ratings_board ON ratings (game, variant, rating DESC, player_id);

-- What each rated game did to each of its players' ratings, written in the
-- game's ending transaction. `number` counts the player's rated games in
-- the variant (1 for the first). `ordinal` orders rated games so that each
-- player's come in the order they were rated (one more than the largest
-- `last_order` of the game's players, a Lamport clock): rebuilding in
-- (ordinal, game_id) order replays every player's history as it happened,
-- whichever server ended which game.
CREATE TABLE rating_changes (
    game_id           INTEGER NOT NULL REFERENCES games (id),
    player_id         INTEGER NOT NULL REFERENCES players (id),
    game              TEXT    NOT NULL,
    variant           TEXT    NOT NULL,
    number            INTEGER NOT NULL,
    ordinal           INTEGER NOT NULL,
    result            TEXT    NOT NULL CHECK (result IN ('win', 'loss', 'draw')),
    rating_before     REAL    NOT NULL,
    rd_before         REAL    NOT NULL,
    volatility_before REAL    NOT NULL,
    rating_after      REAL    NOT NULL,
    rd_after          REAL    NOT NULL,
    volatility_after  REAL    NOT NULL,
    played_at         INTEGER NOT NULL,
    PRIMARY KEY (game_id, player_id),
    UNIQUE (player_id, game, variant, number)
);
