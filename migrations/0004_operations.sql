-- Reserved for operations: idempotency keys, leases, private images (issue 12). Replace this line with the migration's SQL.
SELECT 1;
