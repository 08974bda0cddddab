-- Deletions (social.Batch.DeletePosts and DeleteUsers; sqlstore/delete.go),
-- as SQLite's migration 0041: the tombstones of deleted posts and users,
-- which later writes leave out, the indexes that let every statement of a
-- deletion find its rows by an index, and the 'deletions' counter.
CREATE TABLE tombstones (
    kind       text   NOT NULL,
    id         bigint NOT NULL,
    deleted_at bigint NOT NULL,
    PRIMARY KEY (kind, id)
);

CREATE INDEX posts_repost_of ON posts (repost_of_id) WHERE repost_of_id <> 0;
CREATE INDEX highlights_by_post ON highlights (post_id);
CREATE INDEX reposts_by_user ON reposts (user_id);
CREATE INDEX affiliations_by_user ON affiliations (user_id);
CREATE INDEX list_members_by_user ON list_members (user_id);
CREATE INDEX community_members_by_user ON community_members (user_id);
CREATE INDEX spaces_creator ON spaces (creator_id);

INSERT INTO versions (name, n) VALUES ('deletions', 0);

-- The change log (migration 0031) gets two kinds: 5, a post deleted
-- (subject its author, object the post); 6, a user deleted (subject the
-- user).
