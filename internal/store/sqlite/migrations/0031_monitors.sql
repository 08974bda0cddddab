-- Monitors and webhooks: the monitors of each key, each key's default
-- webhook and signing secret, the change log the data writes append to
-- (in their own transaction, only while a monitor exists), the
-- dispatcher's position in it, the outbox of events per monitor, and the
-- log of delivery attempts.
CREATE TABLE monitors (
    id              TEXT PRIMARY KEY,           -- 26 lower-case letters and digits
    key_id          INTEGER NOT NULL,
    kind            TEXT NOT NULL,              -- user_tweets, user_following, user_profile, search_keyword, search_pump_fun
    user_id         INTEGER NOT NULL DEFAULT 0, -- the monitored user (user monitors)
    params          TEXT NOT NULL,              -- the parameters as answered (JSON)
    query           TEXT NOT NULL DEFAULT '',   -- search monitors
    refresh_seconds INTEGER NOT NULL DEFAULT 0, -- search monitors
    webhook_url     TEXT,                       -- NULL: the key's default webhook
    state           TEXT NOT NULL,              -- active, paused (no balance)
    snapshot        TEXT NOT NULL DEFAULT '',   -- user_profile: the profile fields last seen (JSON)
    watermark       INTEGER NOT NULL DEFAULT 0, -- search monitors: the largest post id looked at
    next_run_at     INTEGER NOT NULL DEFAULT 0, -- search monitors: unix microseconds
    lease_until     INTEGER NOT NULL DEFAULT 0, -- a deliverer holds the monitor until then (unix microseconds)
    attempts        INTEGER NOT NULL DEFAULT 0, -- attempts recorded: a lease is for the next one
    created_at      INTEGER NOT NULL
);
CREATE INDEX monitors_user ON monitors (user_id, kind);
CREATE INDEX monitors_key ON monitors (key_id, created_at, id);

CREATE TABLE webhooks (
    key_id INTEGER PRIMARY KEY,
    url    TEXT,            -- the key's default webhook; NULL: none
    secret TEXT NOT NULL    -- the key's signing secret (HMAC-SHA256)
);

CREATE TABLE changes (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    kind    INTEGER NOT NULL,   -- 1 post, 2 profile, 3 follow, 4 unfollow
    subject INTEGER NOT NULL,   -- the author, the user, the follower
    object  INTEGER NOT NULL,   -- the post, 0, the followee
    at      INTEGER NOT NULL    -- unix microseconds
);

CREATE TABLE change_cursor (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL        -- the last change turned into events
);
INSERT INTO change_cursor (id, seq) VALUES (1, 0);

CREATE TABLE monitor_events (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    monitor_id   TEXT NOT NULL,
    event        TEXT NOT NULL,   -- new_tweet, new_following, profile_update
    dedup        TEXT,            -- what the event is about, once per monitor (NULL: no such key)
    data         BLOB NOT NULL,   -- the event's data (JSON)
    extra        BLOB,            -- roost's additions beside data (JSON), e.g. a profile's changes
    state        TEXT NOT NULL,   -- pending, delivered, dead
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_at      INTEGER NOT NULL, -- unix microseconds
    created_at   INTEGER NOT NULL
);
CREATE UNIQUE INDEX monitor_events_dedup ON monitor_events (monitor_id, dedup);
CREATE INDEX monitor_events_pending ON monitor_events (monitor_id, id) WHERE state = 'pending';

CREATE TABLE monitor_deliveries (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    monitor_id  TEXT NOT NULL,
    event_id    INTEGER NOT NULL,
    attempt     INTEGER NOT NULL,
    status      INTEGER NOT NULL,   -- the receiver's HTTP status; 0: no answer
    error       TEXT NOT NULL,
    duration_us INTEGER NOT NULL,
    at          INTEGER NOT NULL
);
CREATE INDEX monitor_deliveries_monitor ON monitor_deliveries (monitor_id, id);
