-- url:SUB finds posts whose expanded URLs contain SUB. The unicode61 tokens
-- of posts_fts.urls cannot drive a substring (its first word may be the
-- tail of a longer token), so URLs get a trigram index of their own: FTS5's
-- trigram tokenizer answers a string of three or more characters by the
-- rows that contain it anywhere, ignoring case (sqlite/search_url.go).
-- rowid = post id; urls = the expanded URLs separated by spaces and
-- lower-cased (by Go's rules when written, by SQLite's lower(), ASCII only,
-- here; the tokenizer folds the case of the rest); posts without URLs have
-- no row.
CREATE VIRTUAL TABLE post_urls USING fts5 (
    urls,
    content = '', contentless_delete = 1,
    tokenize = 'trigram'
);
-- 256 is social.FlagLinks: the posts with a URL entity.
INSERT INTO post_urls (rowid, urls)
    SELECT p.id, lower(group_concat(json_extract(u.value, '$.expanded_url'), ' '))
    FROM posts p, json_each(p.entities, '$.urls') u
    WHERE (p.flags & 256) != 0
    GROUP BY p.id;
