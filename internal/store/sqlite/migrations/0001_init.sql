-- roost schema, version 1. Times are Unix microseconds (UTC); ids are the
-- network's 64-bit ids; 0 means "none" for optional references.

CREATE TABLE users (
    id                INTEGER PRIMARY KEY,
    screen_name       TEXT    NOT NULL,
    name              TEXT    NOT NULL DEFAULT '',
    location          TEXT    NOT NULL DEFAULT '',
    url               TEXT    NOT NULL DEFAULT '',
    description       TEXT    NOT NULL DEFAULT '',
    protected         INTEGER NOT NULL DEFAULT 0,
    verified          INTEGER NOT NULL DEFAULT 0,
    blue_verified     INTEGER NOT NULL DEFAULT 0,
    shadow_banned     INTEGER NOT NULL DEFAULT 0,
    can_dm            INTEGER NOT NULL DEFAULT 0,
    followers_count   INTEGER NOT NULL DEFAULT 0,
    friends_count     INTEGER NOT NULL DEFAULT 0,
    listed_count      INTEGER NOT NULL DEFAULT 0,
    favourites_count  INTEGER NOT NULL DEFAULT 0,
    statuses_count    INTEGER NOT NULL DEFAULT 0,
    media_count       INTEGER NOT NULL DEFAULT 0,
    created_at        INTEGER NOT NULL DEFAULT 0,
    banner_url        TEXT    NOT NULL DEFAULT '',
    image_url         TEXT    NOT NULL DEFAULT '',
    pinned_post_id    INTEGER NOT NULL DEFAULT 0,
    professional_type TEXT    NOT NULL DEFAULT '',
    stub              INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX users_screen_name ON users (screen_name COLLATE NOCASE);

CREATE TABLE posts (
    id                   INTEGER PRIMARY KEY,
    author_id            INTEGER NOT NULL,
    created_at           INTEGER NOT NULL,
    text                 TEXT    NOT NULL,
    source               TEXT    NOT NULL DEFAULT '',
    truncated            INTEGER NOT NULL DEFAULT 0,
    lang                 TEXT    NOT NULL DEFAULT '',
    reply_to_id          INTEGER NOT NULL DEFAULT 0,
    reply_to_user_id     INTEGER NOT NULL DEFAULT 0,
    reply_to_screen_name TEXT    NOT NULL DEFAULT '',
    quoted_id            INTEGER NOT NULL DEFAULT 0,
    repost_of_id         INTEGER NOT NULL DEFAULT 0,
    conversation_id      INTEGER NOT NULL DEFAULT 0,
    community_id         INTEGER NOT NULL DEFAULT 0,
    quote_count          INTEGER NOT NULL DEFAULT 0,
    reply_count          INTEGER NOT NULL DEFAULT 0,
    retweet_count        INTEGER NOT NULL DEFAULT 0,
    favorite_count       INTEGER NOT NULL DEFAULT 0,
    bookmark_count       INTEGER NOT NULL DEFAULT 0,
    views                INTEGER,
    score                INTEGER NOT NULL DEFAULT 0,
    flags                INTEGER NOT NULL DEFAULT 0,
    entities             TEXT    NOT NULL DEFAULT '{}'
);
CREATE INDEX posts_author ON posts (author_id, id);
CREATE INDEX posts_author_roots ON posts (author_id, id) WHERE reply_to_id = 0;
CREATE INDEX posts_conversation ON posts (conversation_id, id);
CREATE INDEX posts_community ON posts (community_id, id) WHERE community_id != 0;
CREATE INDEX posts_community_top ON posts (community_id, score, id) WHERE community_id != 0;
CREATE INDEX posts_quoted ON posts (quoted_id) WHERE quoted_id != 0;
CREATE INDEX posts_reply_to ON posts (reply_to_id) WHERE reply_to_id != 0;

-- The full-text index holds search.IndexText of each post (rowid = post id);
-- urls holds the expanded URLs, for url:.
CREATE VIRTUAL TABLE posts_fts USING fts5 (
    text, urls,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);

-- Lower-cased screen names mentioned by a post (mentions endpoint, @user).
CREATE TABLE post_mentions (
    name    TEXT    NOT NULL,
    post_id INTEGER NOT NULL,
    PRIMARY KEY (name, post_id)
) WITHOUT ROWID;

-- Lower-cased hashtags ('#tag') and cashtags ('$tag') of a post.
CREATE TABLE post_tags (
    tag     TEXT    NOT NULL,
    post_id INTEGER NOT NULL,
    PRIMARY KEY (tag, post_id)
) WITHOUT ROWID;

CREATE TABLE follows (
    follower_id INTEGER NOT NULL,
    followee_id INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (follower_id, followee_id)
) WITHOUT ROWID;
CREATE INDEX follows_following ON follows (follower_id, created_at, followee_id);
CREATE INDEX follows_followers ON follows (followee_id, created_at, follower_id);

CREATE TABLE reposts (
    post_id    INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (post_id, user_id)
) WITHOUT ROWID;
CREATE INDEX reposts_by_time ON reposts (post_id, created_at, user_id);

CREATE TABLE affiliations (
    org_id     INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (org_id, user_id)
) WITHOUT ROWID;
CREATE INDEX affiliations_by_time ON affiliations (org_id, created_at, user_id);

CREATE TABLE highlights (
    user_id    INTEGER NOT NULL,
    post_id    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, post_id)
) WITHOUT ROWID;
CREATE INDEX highlights_by_time ON highlights (user_id, created_at, post_id);

CREATE TABLE lists (
    id               INTEGER PRIMARY KEY,
    owner_id         INTEGER NOT NULL,
    name             TEXT    NOT NULL,
    description      TEXT    NOT NULL DEFAULT '',
    mode             TEXT    NOT NULL DEFAULT 'Public',
    created_at       INTEGER NOT NULL,
    member_count     INTEGER NOT NULL DEFAULT 0,
    subscriber_count INTEGER NOT NULL DEFAULT 0,
    banner_url       TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX lists_owner ON lists (owner_id, created_at, id);

CREATE TABLE list_members (
    list_id    INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (list_id, user_id)
) WITHOUT ROWID;
CREATE INDEX list_members_by_time ON list_members (list_id, created_at, user_id);

CREATE TABLE list_subscribers (
    list_id    INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (list_id, user_id)
) WITHOUT ROWID;
CREATE INDEX list_subscribers_by_user ON list_subscribers (user_id, created_at, list_id);

CREATE TABLE communities (
    id             INTEGER PRIMARY KEY,
    name           TEXT    NOT NULL,
    description    TEXT    NOT NULL DEFAULT '',
    creator_id     INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL,
    pinned_post_id INTEGER NOT NULL DEFAULT 0,
    member_count   INTEGER NOT NULL DEFAULT 0
);

-- sort_key orders members: admins, then moderators, then members, each
-- newest first: (2 − role rank) << 52 | joined_at.
CREATE TABLE community_members (
    community_id INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    role         TEXT    NOT NULL,
    joined_at    INTEGER NOT NULL,
    sort_key     INTEGER NOT NULL,
    PRIMARY KEY (community_id, user_id)
) WITHOUT ROWID;
CREATE INDEX community_members_order ON community_members (community_id, sort_key, user_id);

CREATE TABLE api_keys (
    id         INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL DEFAULT '',
    prefix     TEXT    NOT NULL,
    digest     BLOB    NOT NULL UNIQUE,
    balance    INTEGER NOT NULL CHECK (balance >= 0),
    rate_limit INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);

-- The ledger is append-only: every balance change is one row, and the
-- triggers below refuse to change or remove a row.
CREATE TABLE ledger (
    id            INTEGER PRIMARY KEY,
    key_id        INTEGER NOT NULL REFERENCES api_keys (id),
    kind          TEXT    NOT NULL CHECK (kind IN ('credit', 'debit')),
    request_id    TEXT    NOT NULL DEFAULT '',
    endpoint      TEXT    NOT NULL DEFAULT '',
    items         INTEGER NOT NULL DEFAULT 0,
    amount        INTEGER NOT NULL CHECK (amount > 0),
    balance_after INTEGER NOT NULL CHECK (balance_after >= 0),
    created_at    INTEGER NOT NULL
);
CREATE INDEX ledger_key ON ledger (key_id, id);
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
