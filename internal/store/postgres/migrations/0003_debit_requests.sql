-- A debit whose reply is lost with its connection may or may not have
-- committed. Each debit of a request (non-empty request_id) writes its
-- (key_id, request_id) here in the same statement; after a lost reply,
-- roost claims the same pair (postgres/debit.go): if the claim succeeds,
-- the debit never committed and now never can (it would conflict); if the
-- pair is taken, the debit committed and its ledger row holds the balance.
CREATE TABLE debit_requests (
    key_id     bigint NOT NULL,
    request_id text   NOT NULL,
    PRIMARY KEY (key_id, request_id)
);
