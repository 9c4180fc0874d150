"""Tools around the rule engine (bot.engine): lint, explain, the YAML rule-test runner and the
threaded reload service that swaps a new rule base in when the files change. The engine itself
(schema, operators, compiler, session, encoding, rule base, fact kinds, vocabulary) needs none of
them."""
