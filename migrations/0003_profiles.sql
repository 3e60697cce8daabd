-- Reserved for profiles for the dashboard (issue 11). Replace this line with the migration's SQL.
SELECT 1;
