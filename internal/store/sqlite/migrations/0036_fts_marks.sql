-- Marker tokens in the full-text index (sqlite/research_marks.go): the text
-- column of a post's row ends with a token for each of: a native repost, a
-- post flagged flagFTSInexact, a created_at in another second than its
-- id's time, a post with a hashtag. The research readers count and rank the
-- matches of words by the index alone through them. Posts stored before
-- get their rows again, with their markers; the functions are registered
-- by the binary. post_hashtags holds each post's hashtags (as post_tags
-- keys them: "#" and lower case) in one row by post id, for top values:
-- each "byte length:hashtag", concatenated.
CREATE TABLE post_hashtags (
    id   INTEGER PRIMARY KEY,
    tags TEXT NOT NULL
);
INSERT INTO post_hashtags (id, tags)
    SELECT post_id, group_concat(length(CAST(tag AS BLOB)) || ':' || tag, '') FROM post_tags
    WHERE tag >= '#' AND tag < '$' GROUP BY post_id;
DELETE FROM posts_fts WHERE rowid IN (SELECT id FROM posts WHERE roost_fts_marks(id, created_at, flags) <> '');
INSERT INTO posts_fts (rowid, text, urls)
    SELECT id, roost_fts_text(text, id, created_at, flags), roost_fts_urls(entities) FROM posts
    WHERE roost_fts_marks(id, created_at, flags) <> '' ORDER BY id;
