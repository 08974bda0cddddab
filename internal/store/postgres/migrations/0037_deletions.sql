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

-- A write calls this before it reads the tombstones: it holds the
-- deletions lock shared until the write commits (a deletion holds it
-- exclusively, postgres/delete.go), so it waits for a deletion in progress,
-- and then says whether any tombstone exists. The query runs in a volatile
-- function, whose every query takes a snapshot of its own (READ
-- COMMITTED): it sees the deletion the lock waited for. One round trip.
CREATE FUNCTION roost_tombstones_guard() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(hashtext('roost deletions ' || current_schema()));
    RETURN EXISTS (SELECT 1 FROM tombstones);
END $$;

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
