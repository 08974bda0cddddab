-- Counters that move with every change of their kind, in its transaction,
-- so that a cache of what was read under a version stays current while
-- the counter has not moved (the API's page and key caches). 'content'
-- moves with every data write (the store's Write); 'keys' with every
-- change of a key other than a debit, made here by triggers so that every
-- writer (roost keys, the admin API, another process) moves it.
CREATE TABLE versions (
    name TEXT PRIMARY KEY,
    n    INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO versions (name, n) VALUES ('content', 0), ('keys', 0);
CREATE TRIGGER versions_key_credit AFTER INSERT ON ledger WHEN NEW.kind != 'debit'
BEGIN UPDATE versions SET n = n + 1 WHERE name = 'keys'; END;
CREATE TRIGGER versions_key_update AFTER UPDATE OF revoked_at, rate_limit, fault, digest, prefix ON api_keys
BEGIN UPDATE versions SET n = n + 1 WHERE name = 'keys'; END;
CREATE TRIGGER versions_key_delete AFTER DELETE ON api_keys
BEGIN UPDATE versions SET n = n + 1 WHERE name = 'keys'; END;
