-- Reserved for hosted image models: prompts, per-angle state (issue 14). Replace this line with the migration's SQL.
SELECT 1;
