-- Streamed answers (exports, networks) sent with an Idempotency-Key keep
-- their record in the key's row, beside the kept responses, so that one
-- primary key makes an Idempotency-Key one or the other: bound is the
-- newest post id when the first try began (NULL: a kept response),
-- paid_through the greatest post id charged so far and items the items
-- charged so far; a stream's debit moves both in its own transaction
-- (sqlite/debit.go). body is empty for a stream.
ALTER TABLE idempotency_keys ADD COLUMN bound INTEGER;
ALTER TABLE idempotency_keys ADD COLUMN paid_through INTEGER NOT NULL DEFAULT 0;
ALTER TABLE idempotency_keys ADD COLUMN items INTEGER NOT NULL DEFAULT 0;
