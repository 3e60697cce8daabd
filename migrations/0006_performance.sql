-- Reserved for performance: indexes (issue 13). Replace this line with the migration's SQL.
SELECT 1;
