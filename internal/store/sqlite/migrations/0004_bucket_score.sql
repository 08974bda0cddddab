-- Top pages (sqlite/search_top.go) walk posts by score within buckets of
-- ids (id >> 51: about six days of snowflake ids), so that a query bounded
-- in time never walks the newer posts first. This index replaces the plain
-- index by score (which a bulk load that died may have left to rebuild).
CREATE INDEX posts_bucket_score ON posts ((id >> 51), score);
DROP INDEX IF EXISTS posts_score;
DELETE FROM bulk_restore WHERE name = 'index posts_score';
