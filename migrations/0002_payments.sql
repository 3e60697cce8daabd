-- Reserved for the credits store: promotion codes, checkout sessions, subscriptions, webhook events (issue 10). Replace this line with the migration's SQL.
SELECT 1;
