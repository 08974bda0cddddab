-- Monitors and webhooks: the monitors of each key, each key's default
-- webhook and signing secret, the change log the data writes append to
-- (in their own transaction, only while a monitor exists), the
-- dispatcher's position in it, the outbox of events per monitor, and the
-- log of delivery attempts.
CREATE TABLE monitors (
    id              text PRIMARY KEY,           -- 26 lower-case letters and digits
    key_id          bigint NOT NULL,
    kind            text NOT NULL,              -- user_tweets, user_following, user_profile, search_keyword, search_pump_fun
    user_id         bigint NOT NULL DEFAULT 0, -- the monitored user (user monitors)
    params          text NOT NULL,              -- the parameters as answered (JSON)
    query           text NOT NULL DEFAULT '',   -- search monitors
    refresh_seconds bigint NOT NULL DEFAULT 0, -- search monitors
    webhook_url     text,                       -- NULL: the key's default webhook
    state           text NOT NULL,              -- active, paused (no balance)
    snapshot        text NOT NULL DEFAULT '',   -- user_profile: the profile fields last seen (JSON)
    watermark       bigint NOT NULL DEFAULT 0, -- search monitors: the largest post id looked at
    next_run_at     bigint NOT NULL DEFAULT 0, -- search monitors: unix microseconds
    lease_until     bigint NOT NULL DEFAULT 0, -- a deliverer holds the monitor until then (unix microseconds)
    attempts        bigint NOT NULL DEFAULT 0, -- attempts recorded: a lease is for the next one
    created_at      bigint NOT NULL
);
CREATE INDEX monitors_user ON monitors (user_id, kind);
CREATE INDEX monitors_key ON monitors (key_id, created_at, id);

CREATE TABLE webhooks (
    key_id bigint PRIMARY KEY,
    url    text,            -- the key's default webhook; NULL: none
    secret text NOT NULL    -- the key's signing secret (HMAC-SHA256)
);

CREATE TABLE changes (
    seq     bigserial PRIMARY KEY,
    kind    bigint NOT NULL,   -- 1 post, 2 profile, 3 follow, 4 unfollow
    subject bigint NOT NULL,   -- the author, the user, the follower
    object  bigint NOT NULL,   -- the post, 0, the followee
    at      bigint NOT NULL    -- unix microseconds
);

CREATE TABLE change_cursor (
    id  integer PRIMARY KEY CHECK (id = 1),
    seq bigint NOT NULL        -- the last change turned into events
);
INSERT INTO change_cursor (id, seq) VALUES (1, 0);

CREATE TABLE monitor_events (
    id           bigserial PRIMARY KEY,
    monitor_id   text NOT NULL,
    event        text NOT NULL,   -- new_tweet, new_following, profile_update
    dedup        text,            -- what the event is about, once per monitor (NULL: no such key)
    data         bytea NOT NULL,   -- the event's data (JSON)
    extra        bytea,            -- roost's additions beside data (JSON), e.g. a profile's changes
    state        text NOT NULL,   -- pending, delivered, dead
    attempts     bigint NOT NULL DEFAULT 0,
    next_at      bigint NOT NULL, -- unix microseconds
    created_at   bigint NOT NULL
);
CREATE UNIQUE INDEX monitor_events_dedup ON monitor_events (monitor_id, dedup);
CREATE INDEX monitor_events_pending ON monitor_events (monitor_id, id) WHERE state = 'pending';

CREATE TABLE monitor_deliveries (
    id          bigserial PRIMARY KEY,
    monitor_id  text NOT NULL,
    event_id    bigint NOT NULL,
    attempt     bigint NOT NULL,
    status      bigint NOT NULL,   -- the receiver's HTTP status; 0: no answer
    error       text NOT NULL,
    duration_us bigint NOT NULL,
    at          bigint NOT NULL
);
CREATE INDEX monitor_deliveries_monitor ON monitor_deliveries (monitor_id, id);
