-- Private games' invitation codes (issue 24): a random secret made at
-- creation that lets a player who was not invited take an open seat; shown
-- only to the game's participants. NULL for public games, and for private
-- games made before this migration (those are joined by invitation only).
ALTER TABLE games ADD COLUMN invite_code TEXT;

-- Sessions (issue 24): when each token was last used, written at most about
-- once a minute per token (src/players/tokens.rs), so that an idle token
-- expires (`--session-days`); and the User-Agent of the client that opened
-- it, so that a player can tell their sessions apart. NULL last_used_at:
-- not used since this migration, taken as last used when opened.
ALTER TABLE tokens ADD COLUMN last_used_at BIGINT;
ALTER TABLE tokens ADD COLUMN user_agent TEXT;
