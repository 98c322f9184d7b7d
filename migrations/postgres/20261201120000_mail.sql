-- Play by mail: the players' personal command addresses, the server's
-- reply-token secret and the inbox of received mail.

-- mail_key: the random part of the player's secret command address
-- (<name>.<mail_key>@<domain>); NULL until first shown. Replacing it makes
-- the old address unknown.
ALTER TABLE players ADD COLUMN mail_key TEXT;
CREATE UNIQUE INDEX players_mail_key ON players (mail_key);

-- The HMAC key of reply tokens: made once, so tokens in mails already sent
-- keep working across restarts and across server processes.
CREATE TABLE mail_secret (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    secret TEXT NOT NULL
);

-- Every mail accepted at the end of DATA, stored before the 250: processing
-- runs from here, so a crash after the 250 resumes on restart. The unique
-- key (Message-ID, or a hash of the message without one; per recipient)
-- means a mail delivered twice is processed once.
-- status: pending (to process), replying (commands run, the reply stored
-- in reply and not yet sent), done, ignored (a stranger's or a mail for an
-- address no longer valid: logged, never answered). claimed_until: the
-- lease of the process working on the row. Rows of one player are processed
-- in arrival (id) order.
CREATE TABLE mail_inbox (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_key   TEXT    NOT NULL,
    recipient     TEXT    NOT NULL,
    player_id     BIGINT  NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    envelope_from TEXT    NOT NULL,
    message       BYTEA   NOT NULL,
    received_at   BIGINT  NOT NULL,
    status        TEXT    NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'replying', 'done', 'ignored')),
    claimed_until BIGINT  NOT NULL DEFAULT 0,
    reply         TEXT,
    outcome       TEXT,
    updated_at    BIGINT  NOT NULL,
    UNIQUE (message_key, recipient)
);
CREATE INDEX mail_inbox_open ON mail_inbox (player_id, id) WHERE status IN ('pending', 'replying');
