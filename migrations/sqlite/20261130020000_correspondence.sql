-- Correspondence play: time controls, clocks, deadlines, reminders, vacation.
-- Times are Unix milliseconds.

-- time_control: the JSON the game was created with (NULL: no clock).
-- clock: {"remaining_ms": [per seat], "turn_started_at": ms}; for
-- correspondence `remaining_ms` is each seat's bank, for live its time left.
-- deadline: when the player to move loses on time (NULL: no clock running);
-- reminder_at: when that player is reminded (NULL: none due for this move).
-- The background sweeper finds due games through the two indexes.
ALTER TABLE games ADD COLUMN time_control TEXT;
ALTER TABLE games ADD COLUMN clock TEXT;
ALTER TABLE games ADD COLUMN deadline INTEGER;
ALTER TABLE games ADD COLUMN reminder_at INTEGER;
CREATE INDEX games_deadline ON games (deadline) WHERE deadline IS NOT NULL;
CREATE INDEX games_reminder ON games (reminder_at) WHERE reminder_at IS NOT NULL;

-- Declared vacations: [starts_at, ends_at) stops the player's correspondence
-- clocks. Kept (not overwritten) so a turn spanning an old vacation keeps
-- its credit, and so the yearly allowance can be counted.
CREATE TABLE vacations (
    player_id INTEGER NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    starts_at INTEGER NOT NULL,
    ends_at   INTEGER NOT NULL,
    PRIMARY KEY (player_id, starts_at)
);

-- Notification settings. notify: {"your_turn": ["email", "webhook"], …}
-- (NULL: the defaults). webhook_secret signs the webhook requests.
-- notify_seq: the last player event turned into deliveries (the outbox
-- cursor); existing players start at their current event so nothing old is
-- sent.
ALTER TABLE players ADD COLUMN notify TEXT;
ALTER TABLE players ADD COLUMN webhook_url TEXT;
ALTER TABLE players ADD COLUMN webhook_secret TEXT;
ALTER TABLE players ADD COLUMN digest INTEGER NOT NULL DEFAULT 0;
ALTER TABLE players ADD COLUMN notify_seq INTEGER NOT NULL DEFAULT 0;
UPDATE players SET notify_seq = event_seq;

-- One row per player event and channel: the unique key means a crash or a
-- second process never creates a notification twice; the row is the
-- delivery log the player reads. status: pending (next_attempt_at says
-- when), sent, failed (attempts exhausted), skipped (e.g. the player was
-- connected, so no mail).
CREATE TABLE deliveries (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    player_id       INTEGER NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    event_seq       INTEGER NOT NULL,
    channel         TEXT NOT NULL CHECK (channel IN ('email', 'webhook')),
    kind            TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'skipped')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error      TEXT,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    UNIQUE (player_id, event_seq, channel)
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_by_player ON deliveries (player_id, id);
