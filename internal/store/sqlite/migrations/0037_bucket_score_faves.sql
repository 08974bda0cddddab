-- Top pages walk posts_bucket_score in score order (sqlite/search_top.go).
-- With favorite_count in the index too, SQLite tests min_faves: and
-- -min_faves: from the index entry alone. -min_faves:N (at most N likes)
-- keeps the posts of little engagement, the last a walk by score reaches:
-- on 10M generated posts, `que -filter:retweets -min_faves:2` passed about
-- 38,000 entries to find its first page, of which about 190 had at most
-- two likes; the other rows are no longer read (the page went from 230 ms
-- to 30-50 ms).
DROP INDEX IF EXISTS posts_bucket_score;
CREATE INDEX posts_bucket_score ON posts ((id >> 51), score, flags, lang, favorite_count);
DELETE FROM bulk_restore WHERE name = 'index posts_bucket_score';
