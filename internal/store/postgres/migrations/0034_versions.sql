-- Counters that move with every change of their kind, in its transaction,
-- so that a cache of what was read under a version stays current while
-- the counter has not moved (the API's page and key caches). 'content'
-- moves with every data write (the store's Write); 'keys' with every
-- change of a key other than a debit, made here by triggers so that every
-- writer (roost keys, the admin API, another replica) moves it.
CREATE TABLE versions (
    name text PRIMARY KEY,
    n    bigint NOT NULL
);
INSERT INTO versions (name, n) VALUES ('content', 0), ('keys', 0);
CREATE FUNCTION versions_keys() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE versions SET n = n + 1 WHERE name = 'keys';
    RETURN NULL;
END $$;
CREATE TRIGGER versions_key_credit AFTER INSERT ON ledger
    FOR EACH ROW WHEN (NEW.kind <> 'debit') EXECUTE FUNCTION versions_keys();
CREATE TRIGGER versions_key_update AFTER UPDATE OF revoked_at, rate_limit, fault, digest, prefix ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION versions_keys();
CREATE TRIGGER versions_key_delete AFTER DELETE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION versions_keys();
