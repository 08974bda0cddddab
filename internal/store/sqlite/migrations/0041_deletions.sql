-- Deletions (social.Batch.DeletePosts and DeleteUsers; sqlstore/delete.go).
-- A deleted post or user leaves its id here, so that no later write (an
-- import, a harvest, the gateway's fill, the living world) stores it
-- again: writes leave out whatever names a tombstoned id. kind is 'post'
-- or 'user'; deleted_at is when roost deleted it (unix microseconds).
CREATE TABLE tombstones (
    kind       TEXT    NOT NULL,
    id         INTEGER NOT NULL,
    deleted_at INTEGER NOT NULL,
    PRIMARY KEY (kind, id)
) WITHOUT ROWID;

-- What a deletion reaches that no index reached before: a post's native
-- reposts, the highlights of a post, and a user's reposts, affiliations,
-- list memberships, community memberships and spaces. With them every
-- statement of a deletion finds its rows by an index, however large the
-- database (sqlite/delete_test.go reads their plans).
CREATE INDEX posts_repost_of ON posts (repost_of_id) WHERE repost_of_id != 0;
CREATE INDEX highlights_by_post ON highlights (post_id);
CREATE INDEX reposts_by_user ON reposts (user_id);
CREATE INDEX affiliations_by_user ON affiliations (user_id);
CREATE INDEX list_members_by_user ON list_members (user_id);
CREATE INDEX community_members_by_user ON community_members (user_id);
CREATE INDEX spaces_creator ON spaces (creator_id);

-- 'deletions' moves with every write that deletes (sqlstore.VersionDeletions):
-- the gateway forgets the pages it holds in memory when it moves.
INSERT INTO versions (name, n) VALUES ('deletions', 0);

-- The change log (migration 0031) gets two kinds: 5, a post deleted
-- (subject its author, object the post); 6, a user deleted (subject the
-- user).
