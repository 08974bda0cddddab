-- Likes, audio spaces and the extended bio (endpoints beyond the seventeen:
-- /user/{id}/likes, /tweets/{id}/liking_users, /space/{id},
-- /user/{username}/extended-bio).

ALTER TABLE users ADD COLUMN extended_bio TEXT NOT NULL DEFAULT '';

CREATE TABLE likes (
    post_id    INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (post_id, user_id)
) WITHOUT ROWID;
CREATE INDEX likes_by_post ON likes (post_id, created_at, user_id);
CREATE INDEX likes_by_user ON likes (user_id, created_at, post_id);

CREATE TABLE spaces (
    id              TEXT    PRIMARY KEY,
    creator_id      INTEGER NOT NULL,
    title           TEXT    NOT NULL DEFAULT '',
    state           TEXT    NOT NULL,
    created_at      INTEGER NOT NULL DEFAULT 0,
    scheduled_start INTEGER NOT NULL DEFAULT 0,
    started_at      INTEGER NOT NULL DEFAULT 0,
    ended_at        INTEGER NOT NULL DEFAULT 0,
    updated_at      INTEGER NOT NULL DEFAULT 0,
    listeners       INTEGER NOT NULL DEFAULT 0,
    replay_watched  INTEGER NOT NULL DEFAULT 0,
    replay          INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

-- role: 0 admin, 1 speaker; position orders each role as the source did.
CREATE TABLE space_participants (
    space_id TEXT    NOT NULL,
    role     INTEGER NOT NULL,
    position INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    PRIMARY KEY (space_id, role, position)
) WITHOUT ROWID;
