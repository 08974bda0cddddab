-- Billing moves to a file of its own (migrations/billing/0001): the store
-- copies these tables' rows there first, in a transaction of the billing
-- file (sqlite/billing.go), then this step drops them here. A crash
-- between the two leaves these tables as they were and the step to run
-- again, copy included.
DROP TABLE api_keys;
DROP TABLE ledger;
DROP TABLE idempotency_keys;
DROP TABLE upstream_ledger;
DROP TABLE upstream_budget;
DROP TABLE upstream_holds;
DELETE FROM versions WHERE name = 'keys';
