-- Tournaments and leagues (round robin, Swiss, Little Golem-style leagues).
-- PostgreSQL flavour; keep in step with migrations/sqlite.

-- A tournament. `round` is the Swiss round paired last, or the league's
-- season; `rev` is the writers' guard: every change of the tournament (a
-- join, a start, a game of it ending) moves it from the revision it was
-- decided on, so two servers ending the last two games of a round cannot
-- both pair the next one.
CREATE TABLE tournaments (
    id           BIGSERIAL PRIMARY KEY,
    name         TEXT    NOT NULL,
    game         TEXT    NOT NULL,
    variant      TEXT    NOT NULL,
    format       TEXT    NOT NULL,
    rounds       BIGINT NOT NULL,
    double_rr    BOOLEAN NOT NULL,
    group_size   BIGINT NOT NULL,
    time_control JSONB,
    rated        BOOLEAN NOT NULL,
    public       BOOLEAN NOT NULL,
    min_players  BIGINT NOT NULL,
    max_players  BIGINT NOT NULL,
    starts_at    BIGINT,
    organiser_id BIGINT NOT NULL REFERENCES players (id),
    status       TEXT    NOT NULL,
    round        BIGINT NOT NULL DEFAULT 0,
    rev          BIGINT NOT NULL DEFAULT 0,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);
CREATE INDEX tournaments_due ON tournaments (status, starts_at);

-- Who plays: `seed` is the order of joining; `left_at` when they left after
-- the start (their remaining games are forfeited); `grp` their league group
-- in the current season (NULL: waiting for the next season).
CREATE TABLE tournament_players (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id),
    player_id     BIGINT NOT NULL REFERENCES players (id),
    seed          BIGINT NOT NULL,
    joined_at     BIGINT NOT NULL,
    left_at       BIGINT,
    grp           BIGINT,
    PRIMARY KEY (tournament_id, player_id)
);
CREATE INDEX tournament_players_player ON tournament_players (player_id);

-- One pairing of a round (Swiss round, round robin round, league season):
-- a game between `first_id` (seat 0) and `second_id`, or a bye of
-- `first_id` (no game, no second). Written in the transaction that creates
-- its game.
CREATE TABLE tournament_pairings (
    id            BIGSERIAL PRIMARY KEY,
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id),
    round         BIGINT NOT NULL,
    grp           BIGINT NOT NULL,
    game_id       BIGINT UNIQUE REFERENCES games (id),
    first_id      BIGINT NOT NULL REFERENCES players (id),
    second_id     BIGINT REFERENCES players (id)
);
CREATE INDEX tournament_pairings_round ON tournament_pairings (tournament_id, round);
