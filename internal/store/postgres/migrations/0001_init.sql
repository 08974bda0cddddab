-- roost schema for PostgreSQL, version 1. It mirrors the SQLite schema so
-- that both engines answer alike and data copies between them verbatim:
-- times are Unix microseconds (UTC) in bigint, ids are the network's 64-bit
-- ids, and 0 means "none" for optional references. Tables live in the first
-- schema of the connection's search_path.

CREATE TABLE users (
    id                bigint  PRIMARY KEY,
    screen_name       text    NOT NULL,
    name              text    NOT NULL DEFAULT '',
    location          text    NOT NULL DEFAULT '',
    url               text    NOT NULL DEFAULT '',
    description       text    NOT NULL DEFAULT '',
    protected         boolean NOT NULL DEFAULT false,
    verified          boolean NOT NULL DEFAULT false,
    blue_verified     boolean NOT NULL DEFAULT false,
    shadow_banned     boolean NOT NULL DEFAULT false,
    can_dm            boolean NOT NULL DEFAULT false,
    followers_count   bigint  NOT NULL DEFAULT 0,
    friends_count     bigint  NOT NULL DEFAULT 0,
    listed_count      bigint  NOT NULL DEFAULT 0,
    favourites_count  bigint  NOT NULL DEFAULT 0,
    statuses_count    bigint  NOT NULL DEFAULT 0,
    media_count       bigint  NOT NULL DEFAULT 0,
    created_at        bigint  NOT NULL DEFAULT 0,
    banner_url        text    NOT NULL DEFAULT '',
    image_url         text    NOT NULL DEFAULT '',
    pinned_post_id    bigint  NOT NULL DEFAULT 0,
    professional_type text    NOT NULL DEFAULT '',
    stub              boolean NOT NULL DEFAULT false
);
-- Screen names match ASCII-case-insensitively, like SQLite's NOCASE; the
-- store passes names already lower-cased.
CREATE INDEX users_screen_name ON users (lower(screen_name));

-- tsv holds the tokens of search.IndexText(text), made in Go, so the
-- 'simple' configuration only splits them on spaces. urls holds the
-- lower-cased expanded URLs, one a line, which url: matches by substring;
-- url_tsv their tokens, a superset index for it.
CREATE TABLE posts (
    id                   bigint   PRIMARY KEY,
    author_id            bigint   NOT NULL,
    created_at           bigint   NOT NULL,
    text                 text     NOT NULL,
    source               text     NOT NULL DEFAULT '',
    truncated            boolean  NOT NULL DEFAULT false,
    lang                 text     NOT NULL DEFAULT '',
    reply_to_id          bigint   NOT NULL DEFAULT 0,
    reply_to_user_id     bigint   NOT NULL DEFAULT 0,
    reply_to_screen_name text     NOT NULL DEFAULT '',
    quoted_id            bigint   NOT NULL DEFAULT 0,
    repost_of_id         bigint   NOT NULL DEFAULT 0,
    conversation_id      bigint   NOT NULL DEFAULT 0,
    community_id         bigint   NOT NULL DEFAULT 0,
    quote_count          bigint   NOT NULL DEFAULT 0,
    reply_count          bigint   NOT NULL DEFAULT 0,
    retweet_count        bigint   NOT NULL DEFAULT 0,
    favorite_count       bigint   NOT NULL DEFAULT 0,
    bookmark_count       bigint   NOT NULL DEFAULT 0,
    views                bigint,
    score                bigint   NOT NULL DEFAULT 0,
    flags                bigint   NOT NULL DEFAULT 0,
    entities             text     NOT NULL DEFAULT '{}',
    tsv                  tsvector NOT NULL DEFAULT ''::tsvector,
    urls                 text     NOT NULL DEFAULT '',
    url_tsv              tsvector NOT NULL DEFAULT ''::tsvector
);
CREATE INDEX posts_author ON posts (author_id, id);
CREATE INDEX posts_author_roots ON posts (author_id, id) WHERE reply_to_id = 0;
CREATE INDEX posts_conversation ON posts (conversation_id, id);
CREATE INDEX posts_community ON posts (community_id, id) WHERE community_id <> 0;
CREATE INDEX posts_community_top ON posts (community_id, score, id) WHERE community_id <> 0;
CREATE INDEX posts_quoted ON posts (quoted_id) WHERE quoted_id <> 0;
CREATE INDEX posts_reply_to ON posts (reply_to_id) WHERE reply_to_id <> 0;
CREATE INDEX posts_score ON posts (score, id);
CREATE INDEX posts_tsv ON posts USING gin (tsv);
-- Most posts have no link: only those with URL tokens are indexed.
CREATE INDEX posts_url_tsv ON posts USING gin (url_tsv) WHERE url_tsv <> ''::tsvector;

-- Lower-cased screen names mentioned by a post (mentions endpoint, @user).
CREATE TABLE post_mentions (
    name    text   NOT NULL,
    post_id bigint NOT NULL,
    PRIMARY KEY (name, post_id)
);
CREATE INDEX post_mentions_post ON post_mentions (post_id);

-- Lower-cased hashtags ('#tag') and cashtags ('$tag') of a post.
CREATE TABLE post_tags (
    tag     text   NOT NULL,
    post_id bigint NOT NULL,
    PRIMARY KEY (tag, post_id)
);
CREATE INDEX post_tags_post ON post_tags (post_id);

CREATE TABLE follows (
    follower_id bigint NOT NULL,
    followee_id bigint NOT NULL,
    created_at  bigint NOT NULL,
    PRIMARY KEY (follower_id, followee_id)
);
CREATE INDEX follows_following ON follows (follower_id, created_at, followee_id);
CREATE INDEX follows_followers ON follows (followee_id, created_at, follower_id);

CREATE TABLE reposts (
    post_id    bigint NOT NULL,
    user_id    bigint NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (post_id, user_id)
);
CREATE INDEX reposts_by_time ON reposts (post_id, created_at, user_id);

CREATE TABLE affiliations (
    org_id     bigint NOT NULL,
    user_id    bigint NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (org_id, user_id)
);
CREATE INDEX affiliations_by_time ON affiliations (org_id, created_at, user_id);

CREATE TABLE highlights (
    user_id    bigint NOT NULL,
    post_id    bigint NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (user_id, post_id)
);
CREATE INDEX highlights_by_time ON highlights (user_id, created_at, post_id);

CREATE TABLE lists (
    id               bigint PRIMARY KEY,
    owner_id         bigint NOT NULL,
    name             text   NOT NULL,
    description      text   NOT NULL DEFAULT '',
    mode             text   NOT NULL DEFAULT 'Public',
    created_at       bigint NOT NULL,
    member_count     bigint NOT NULL DEFAULT 0,
    subscriber_count bigint NOT NULL DEFAULT 0,
    banner_url       text   NOT NULL DEFAULT ''
);
CREATE INDEX lists_owner ON lists (owner_id, created_at, id);

CREATE TABLE list_members (
    list_id    bigint NOT NULL,
    user_id    bigint NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (list_id, user_id)
);
CREATE INDEX list_members_by_time ON list_members (list_id, created_at, user_id);

CREATE TABLE list_subscribers (
    list_id    bigint NOT NULL,
    user_id    bigint NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (list_id, user_id)
);
CREATE INDEX list_subscribers_by_user ON list_subscribers (user_id, created_at, list_id);

CREATE TABLE communities (
    id             bigint PRIMARY KEY,
    name           text   NOT NULL,
    description    text   NOT NULL DEFAULT '',
    creator_id     bigint NOT NULL DEFAULT 0,
    created_at     bigint NOT NULL,
    pinned_post_id bigint NOT NULL DEFAULT 0,
    member_count   bigint NOT NULL DEFAULT 0
);

-- sort_key orders members: admins, then moderators, then members, each
-- newest first: (2 − role rank) << 52 | joined_at.
CREATE TABLE community_members (
    community_id bigint NOT NULL,
    user_id      bigint NOT NULL,
    role         text   NOT NULL,
    joined_at    bigint NOT NULL,
    sort_key     bigint NOT NULL,
    PRIMARY KEY (community_id, user_id)
);
CREATE INDEX community_members_order ON community_members (community_id, sort_key, user_id);

CREATE TABLE api_keys (
    id         bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    name       text   NOT NULL DEFAULT '',
    prefix     text   NOT NULL,
    digest     bytea  NOT NULL UNIQUE,
    balance    bigint NOT NULL CHECK (balance >= 0),
    rate_limit bigint NOT NULL DEFAULT 0,
    created_at bigint NOT NULL,
    revoked_at bigint
);

-- The ledger is append-only: every balance change is one row, and the
-- trigger below refuses to change or remove a row.
CREATE TABLE ledger (
    id            bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    key_id        bigint NOT NULL REFERENCES api_keys (id),
    kind          text   NOT NULL CHECK (kind IN ('credit', 'debit')),
    request_id    text   NOT NULL DEFAULT '',
    endpoint      text   NOT NULL DEFAULT '',
    items         bigint NOT NULL DEFAULT 0,
    amount        bigint NOT NULL CHECK (amount > 0),
    balance_after bigint NOT NULL CHECK (balance_after >= 0),
    created_at    bigint NOT NULL
);
CREATE INDEX ledger_key ON ledger (key_id, id);

CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger is append-only';
END;
$$;
CREATE TRIGGER ledger_no_change BEFORE UPDATE OR DELETE ON ledger
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();

-- Rate-limit windows shared by every replica: one row per key and minute.
CREATE TABLE rate_windows (
    key_id   bigint NOT NULL,
    minute   bigint NOT NULL,
    requests bigint NOT NULL,
    PRIMARY KEY (key_id, minute)
);
