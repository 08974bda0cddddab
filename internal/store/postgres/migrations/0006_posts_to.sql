-- to:NAME: the replies to NAME by this index, newest first, instead of a
-- walk of every post (search_compile.go compiles to: on the same expression).
CREATE INDEX posts_to ON posts (lower(reply_to_screen_name), id) WHERE reply_to_id <> 0;
