-- Likes, audio spaces and the extended bio (endpoints beyond the seventeen:
-- /user/{id}/likes, /tweets/{id}/liking_users, /space/{id},
-- /user/{username}/extended-bio).

ALTER TABLE users ADD COLUMN extended_bio text NOT NULL DEFAULT '';

CREATE TABLE likes (
    post_id    bigint NOT NULL,
    user_id    bigint NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (post_id, user_id)
);
CREATE INDEX likes_by_post ON likes (post_id, created_at, user_id);
CREATE INDEX likes_by_user ON likes (user_id, created_at, post_id);

CREATE TABLE spaces (
    id              text    PRIMARY KEY,
    creator_id      bigint  NOT NULL,
    title           text    NOT NULL DEFAULT '',
    state           text    NOT NULL,
    created_at      bigint  NOT NULL DEFAULT 0,
    scheduled_start bigint  NOT NULL DEFAULT 0,
    started_at      bigint  NOT NULL DEFAULT 0,
    ended_at        bigint  NOT NULL DEFAULT 0,
    updated_at      bigint  NOT NULL DEFAULT 0,
    listeners       bigint  NOT NULL DEFAULT 0,
    replay_watched  bigint  NOT NULL DEFAULT 0,
    replay          boolean NOT NULL DEFAULT false
);

-- role: 0 admin, 1 speaker; position orders each role as the source did.
CREATE TABLE space_participants (
    space_id text     NOT NULL,
    role     smallint NOT NULL,
    position integer  NOT NULL,
    user_id  bigint   NOT NULL,
    PRIMARY KEY (space_id, role, position)
);
