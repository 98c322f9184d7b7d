-- Ratings (Glicko-2), rating ranges on open games, rematches. PostgreSQL
-- flavour; keep in step with migrations/sqlite.

-- `rated`: whether the game's end changes its players' ratings. Games that
-- ended before ratings existed were never rated, so they are marked so:
-- `tavoliere ratings rebuild` recomputes what was rated, and only that.
ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT TRUE;
UPDATE games SET rated = FALSE WHERE status IN ('finished', 'aborted');
-- Who may take an open seat, by their rating in the game's variant.
ALTER TABLE games ADD COLUMN rating_min BIGINT;
ALTER TABLE games ADD COLUMN rating_max BIGINT;
-- The game this one is a rematch of, and the rematch offered after this one.
ALTER TABLE games ADD COLUMN rematch_of BIGINT REFERENCES games (id);
ALTER TABLE games ADD COLUMN rematch BIGINT REFERENCES games (id);

-- A player's rating in one game and variant, as their last rated game left
-- it. `games` is also the writers' guard: a game's end updates the row only
-- while it still counts the games it was computed from, so two servers
-- ending games of one player at once cannot both apply theirs over the
-- same value. `last_order` is the order of the player's last rated game
-- (see rating_changes.ordinal).
CREATE TABLE ratings (
    player_id   BIGINT  NOT NULL REFERENCES players (id),
    game        TEXT    NOT NULL,
    variant     TEXT    NOT NULL,
    rating      DOUBLE PRECISION NOT NULL,
    rd          DOUBLE PRECISION NOT NULL,
    volatility  DOUBLE PRECISION NOT NULL,
    games       BIGINT  NOT NULL,
    wins        BIGINT  NOT NULL,
    losses      BIGINT  NOT NULL,
    draws       BIGINT  NOT NULL,
    last_played BIGINT  NOT NULL,
    last_order  BIGINT  NOT NULL,
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
    game_id           BIGINT  NOT NULL REFERENCES games (id),
    player_id         BIGINT  NOT NULL REFERENCES players (id),
    game              TEXT    NOT NULL,
    variant           TEXT    NOT NULL,
    number            BIGINT  NOT NULL,
    ordinal           BIGINT  NOT NULL,
    result            TEXT    NOT NULL CHECK (result IN ('win', 'loss', 'draw')),
    rating_before     DOUBLE PRECISION NOT NULL,
    rd_before         DOUBLE PRECISION NOT NULL,
    volatility_before DOUBLE PRECISION NOT NULL,
    rating_after      DOUBLE PRECISION NOT NULL,
    rd_after          DOUBLE PRECISION NOT NULL,
    volatility_after  DOUBLE PRECISION NOT NULL,
    played_at         BIGINT  NOT NULL,
    PRIMARY KEY (game_id, player_id),
    UNIQUE (player_id, game, variant, number)
);
