-- Bot accounts (issue 20): a player may declare their account a bot, like
-- Lichess's bot accounts, at registration or before their first game; the
-- flag is shown wherever the name is (profiles, leaderboards, seats). The
-- server's own bots (the `bots` table) are bot accounts too.
ALTER TABLE players ADD COLUMN bot BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE players SET bot = TRUE WHERE id IN (SELECT player_id FROM bots);
