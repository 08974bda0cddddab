-- since:/until: become id bounds for posts whose id is a snowflake of their
-- creation time within a second (social.SinceID, social.UntilID), so that
-- a time range is read by the primary key instead of walking every newer
-- post. The posts for which that does not hold (imported sequential ids,
-- missing times) are listed here by triggers; a search uses the id bounds
-- only while this table is empty, so they never leave out a match. Same
-- rule as SQLite's migration 0002.
CREATE TABLE search_time_outliers (id bigint PRIMARY KEY);
INSERT INTO search_time_outliers (id)
    SELECT id FROM posts WHERE abs(created_at - ((id >> 22) + 1288834974657) * 1000) > 1000000;

CREATE FUNCTION search_time_outlier() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM search_time_outliers WHERE id = OLD.id;
    END IF;
    IF TG_OP <> 'DELETE' AND abs(NEW.created_at - ((NEW.id >> 22) + 1288834974657) * 1000) > 1000000 THEN
        INSERT INTO search_time_outliers (id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END;
$$;
-- Inserts call the function only for an outlier: a load of snowflake posts
-- pays one comparison a row.
CREATE TRIGGER search_time_outliers_insert AFTER INSERT ON posts
    FOR EACH ROW WHEN (abs(NEW.created_at - ((NEW.id >> 22) + 1288834974657) * 1000) > 1000000)
    EXECUTE FUNCTION search_time_outlier();
CREATE TRIGGER search_time_outliers_update AFTER UPDATE OF id, created_at ON posts
    FOR EACH ROW EXECUTE FUNCTION search_time_outlier();
CREATE TRIGGER search_time_outliers_delete AFTER DELETE ON posts
    FOR EACH ROW EXECUTE FUNCTION search_time_outlier();
