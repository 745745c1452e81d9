package storagetest

// Injections are texts that would change a query built by pasting them into SQL: quotes that
// close a string, statements after a semicolon, comments, placeholders of every dialect, LIKE
// wildcards and escapes. A store must take every one as a parameter — stored and returned
// verbatim, finding exactly what it names. storage.TestEveryStringIsAParameter passes them to
// the store directly, gateway.TestSQLInjectionStoredVerbatim through the API: one list, so a
// text added for one is tried by both.
var Injections = []string{
	`'; DROP TABLE inquiries; --`,
	`x' OR '1'='1`,
	`" OR "1"="1`,
	`x'); DELETE FROM tokens; --`,
	`1; UPDATE inquiries SET status='answered'`,
	`x' UNION SELECT secret_hash FROM tokens --`,
	`$1`, `?`, `:id`, `%`, `_`, `\`, `\'`, `''`, `--`, `/*`,
	`x'||(SELECT name FROM tokens LIMIT 1)||'`,
	`'; SELECT pg_sleep(10); --`,
	`é'; --`,
}
