-- Top pages with min_faves:, min_retweets: or min_replies: read each bucket
-- of posts_bucket_score only down to the least score such a post can have
-- (sqlite/search_floor.go): engagement is at least the count asked for,
-- since no count is negative. The posts for which that does not hold (a
-- negative count or view count, as an import may carry) are listed here by
-- triggers; a search uses the floor only while this table is empty, so it
-- never leaves out a match.
CREATE TABLE search_count_outliers (id INTEGER PRIMARY KEY);
INSERT INTO search_count_outliers (id)
    SELECT id FROM posts WHERE min(favorite_count, retweet_count, quote_count, reply_count, coalesce(views, 0)) < 0;
CREATE TRIGGER search_count_outliers_insert AFTER INSERT ON posts
    WHEN min(NEW.favorite_count, NEW.retweet_count, NEW.quote_count, NEW.reply_count, coalesce(NEW.views, 0)) < 0
BEGIN
    INSERT OR IGNORE INTO search_count_outliers (id) VALUES (NEW.id);
END;
CREATE TRIGGER search_count_outliers_update AFTER UPDATE OF id, favorite_count, retweet_count, quote_count, reply_count, views ON posts
BEGIN
    DELETE FROM search_count_outliers WHERE id = OLD.id;
    INSERT OR IGNORE INTO search_count_outliers (id) SELECT NEW.id
        WHERE min(NEW.favorite_count, NEW.retweet_count, NEW.quote_count, NEW.reply_count, coalesce(NEW.views, 0)) < 0;
END;
CREATE TRIGGER search_count_outliers_delete AFTER DELETE ON posts
BEGIN
    DELETE FROM search_count_outliers WHERE id = OLD.id;
END;
