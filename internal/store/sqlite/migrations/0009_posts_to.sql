-- to:NAME drives by the replies to NAME, newest first (search_plan.go):
-- without it a to: of a user few replied to read every post (16 s at ten
-- million posts).
CREATE INDEX posts_to ON posts (reply_to_screen_name COLLATE NOCASE, id) WHERE reply_to_id != 0;
