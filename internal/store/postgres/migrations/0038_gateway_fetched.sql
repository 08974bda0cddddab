-- The gateway (roost serve --upstream): when it last stored each post and
-- user from an upstream page, and what that page's shape carried of it
-- (ledger.Fetched), so that by-id reads answer from the stored copies
-- fetched lately and ask upstream only for the rest. Written by the
-- gateway alone: imports and other writers leave it alone.
CREATE TABLE gateway_fetched (
    kind       text     NOT NULL,  -- 'post' or 'user'
    id         bigint   NOT NULL,
    fetched_at bigint   NOT NULL,  -- unix microseconds
    shape      smallint NOT NULL,  -- ledger.Shape: 0 part, 1 all but one field, 2 whole
    pinned     smallint NOT NULL,  -- posts' is_pinned (ledger.Pinned): 0 unknown, 1 no, 2 yes
    PRIMARY KEY (kind, id)
);
