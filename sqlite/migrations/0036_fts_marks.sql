-- Marker tokens in the full-text index (sqlite/research_marks.go): the text
-- column of a post's row ends with a token for each of: a native repost, a
-- post flagged flagFTSInexact, a created_at in another second than its
-- id's time, a post with a hashtag. The research readers count and rank the
-- matches of words by the index alone through them. Posts stored before
-- get their rows again, with their markers; the functions are registered
-- by the binary. post_tags_post finds a post's hashtags for top values.
CREATE INDEX post_tags_post ON post_tags (post_id, tag);
DELETE FROM posts_fts WHERE rowid IN (SELECT id FROM posts WHERE roost_fts_marks(id, created_at, flags) <> '');
INSERT INTO posts_fts (rowid, text, urls)
    SELECT id, roost_fts_text(text, id, created_at, flags), roost_fts_urls(entities) FROM posts
    WHERE roost_fts_marks(id, created_at, flags) <> '' ORDER BY id;
