-- The sandbox that fails on request: a key's fault plan (the text of
-- package fault, e.g. "429=0.1,500=0.05,seed=7"); '' injects nothing.
ALTER TABLE api_keys ADD COLUMN fault text NOT NULL DEFAULT '';
