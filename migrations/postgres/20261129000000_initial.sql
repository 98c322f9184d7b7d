-- Tavoliere schema, PostgreSQL flavour. Keep in step with migrations/sqlite.
-- Times are Unix milliseconds (BIGINT); JSON is JSONB.

-- A registered player. `name_key` is the lower-cased name: names are unique
-- regardless of case. `event_seq` is the last number used in player_events.
CREATE TABLE players (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name          TEXT    NOT NULL,
    name_key      TEXT    NOT NULL UNIQUE,
    email         TEXT,
    password_hash TEXT    NOT NULL,
    event_seq     BIGINT NOT NULL DEFAULT 0,
    created_at    BIGINT NOT NULL
);

-- Bearer tokens, stored as the hex SHA-256 of the token: a leaked table
-- gives nobody a usable token.
CREATE TABLE tokens (
    token_hash TEXT    PRIMARY KEY,
    player_id  BIGINT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL
);
CREATE INDEX tokens_player ON tokens (player_id);

-- A game: a board of a catalogue game and variant.
-- status: open (seats to fill), active, finished, aborted.
-- draw_offer / takeback_offer: bit set of the seats that said yes.
-- event_seq: the last number used in game_events; every change of the game
-- bumps it, and writers check it (optimistic concurrency across processes).
CREATE TABLE games (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game           TEXT    NOT NULL,
    variant        TEXT    NOT NULL,
    status         TEXT    NOT NULL CHECK (status IN ('open', 'active', 'finished', 'aborted')),
    public         BOOLEAN NOT NULL,
    ply            BIGINT NOT NULL DEFAULT 0,
    to_move        BIGINT,
    outcome        JSONB,
    draw_offer     BIGINT NOT NULL DEFAULT 0,
    takeback_offer BIGINT NOT NULL DEFAULT 0,
    event_seq      BIGINT NOT NULL DEFAULT 0,
    created_by     BIGINT NOT NULL REFERENCES players (id),
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);
CREATE INDEX games_status ON games (status, id);

-- The seats of a game, numbered from 0 in turn order. `invitee_id` names the
-- player a seat is reserved for; `player_id` is set once someone sits.
CREATE TABLE seats (
    game_id    BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat       BIGINT NOT NULL,
    player_id  BIGINT REFERENCES players (id),
    invitee_id BIGINT REFERENCES players (id),
    PRIMARY KEY (game_id, seat)
);
-- Nobody sits twice at one table (NULLs, the open seats, do not collide).
CREATE UNIQUE INDEX seats_player ON seats (game_id, player_id);
CREATE INDEX seats_by_player ON seats (player_id, game_id);
CREATE INDEX seats_by_invitee ON seats (invitee_id, game_id);

-- The moves of a game. The primary key is the never-double guarantee: two
-- racing submissions of move number `ply` cannot both be stored.
CREATE TABLE moves (
    game_id    BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply        BIGINT NOT NULL,
    seat       BIGINT NOT NULL,
    player_id  BIGINT NOT NULL REFERENCES players (id),
    notation   TEXT    NOT NULL,
    effect     TEXT,
    message    TEXT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, ply)
);

-- Every change of a game, numbered per game, written in the same transaction
-- as the change: what live clients resume from.
CREATE TABLE game_events (
    game_id    BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL,
    kind       TEXT    NOT NULL,
    payload    JSONB   NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, seq)
);

-- What each player should hear about (invited, game started, your turn, game
-- over), numbered per player.
CREATE TABLE player_events (
    player_id  BIGINT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL,
    kind       TEXT    NOT NULL,
    payload    JSONB   NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (player_id, seq)
);
