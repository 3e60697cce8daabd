-- Reserved for security: shared rate limits, session families (issue 12). Replace this line with the migration's SQL.
SELECT 1;
