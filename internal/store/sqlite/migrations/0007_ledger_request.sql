-- A request is charged at most once per key (social.Accounts.Debit):
-- sqlite/debit.go looks a debit's request up here before charging it. Not
-- unique, so that ledgers copied in from before keep loading.
CREATE INDEX ledger_request ON ledger (key_id, request_id) WHERE kind = 'debit' AND request_id != '';
