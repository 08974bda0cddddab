-- Top pages over common matches walk posts_bucket_score in score order
-- (sqlite/search_top.go). With flags and lang in the index, SQLite tests
-- the conditions on them (filter:, lang:, the exclusion of native reposts,
-- which search compiles as a flag test) from the index entry alone and
-- reads a post's row only for the entries that pass them.
DROP INDEX IF EXISTS posts_bucket_score;
CREATE INDEX posts_bucket_score ON posts ((id >> 51), score, flags, lang);
DELETE FROM bulk_restore WHERE name = 'index posts_bucket_score';
