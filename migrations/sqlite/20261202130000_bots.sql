-- The built-in bots: player accounts the server plays itself (issue 20).
-- A bot's account has a password hash no password matches, so nobody signs
-- in as a bot; `level` names its search budget (src/bots). A server with
-- bots enabled creates the missing ones at start.
CREATE TABLE bots (
    player_id  INTEGER PRIMARY KEY REFERENCES players (id) ON DELETE CASCADE,
    level      TEXT   NOT NULL,
    created_at INTEGER NOT NULL
);
