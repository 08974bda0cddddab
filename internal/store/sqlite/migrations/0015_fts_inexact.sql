-- The research readers (sqlite/research_fts.go) trust a full-text match of
-- a word or phrase without re-tokenising the post, unless the post's
-- IndexText may tokenize otherwise in FTS5. Such posts carry flag bit 40
-- (1099511627776): the writer sets it from now on; this marks those
-- already stored (roost_fts_faithful is registered by the binary).
UPDATE posts SET flags = flags | 1099511627776 WHERE roost_fts_faithful(text) = 0;
