-- Search planning (sqlite/search_plan.go).
--
-- Top pages over common terms scan posts by score, newest score first.
CREATE INDEX posts_score ON posts (score);

-- since:/until: become id bounds for posts whose id is a snowflake of their
-- creation time (within a second). The posts for which that does not hold
-- (imported sequential ids, missing times) are listed here by triggers; a
-- search uses time-derived id bounds only while this table is empty, so the
-- bounds are provably correct for every stored post.
CREATE TABLE search_time_outliers (id INTEGER PRIMARY KEY);
INSERT INTO search_time_outliers (id)
    SELECT id FROM posts WHERE abs(created_at - ((id >> 22) + 1288834974657) * 1000) > 1000000;
CREATE TRIGGER search_time_outliers_insert AFTER INSERT ON posts
    WHEN abs(NEW.created_at - ((NEW.id >> 22) + 1288834974657) * 1000) > 1000000
BEGIN
    INSERT OR IGNORE INTO search_time_outliers (id) VALUES (NEW.id);
END;
CREATE TRIGGER search_time_outliers_update AFTER UPDATE OF id, created_at ON posts
BEGIN
    DELETE FROM search_time_outliers WHERE id = OLD.id;
    INSERT OR IGNORE INTO search_time_outliers (id) SELECT NEW.id
        WHERE abs(NEW.created_at - ((NEW.id >> 22) + 1288834974657) * 1000) > 1000000;
END;
CREATE TRIGGER search_time_outliers_delete AFTER DELETE ON posts
BEGIN
    DELETE FROM search_time_outliers WHERE id = OLD.id;
END;

-- Top pages over a small candidate set sort the candidates by score from
-- this covering index, reading a post's row only for the candidates they
-- check in score order.
CREATE INDEX posts_id_score ON posts (id, score);

-- min_faves:N with a high N is rare: its posts are found by this index and
-- sorted, instead of scanning posts until enough match.
CREATE INDEX posts_faves ON posts (favorite_count);
