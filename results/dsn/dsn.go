// Package dsn recognises PostgreSQL connection strings and takes their
// passwords out, so that no log line, stored configuration, export or
// printed configuration ever carries one.
package dsn

import (
	"net/url"
	"regexp"
	"strings"
)

// IsPostgres reports whether s names a PostgreSQL store: a URL
// (postgres://, postgresql://) or libpq's keyword form ("host=db
// dbname=kregress user=ci").
func IsPostgres(s string) bool {
	if strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		return true
	}
	return keywordRe.MatchString(s)
}

// keywordRe: a libpq keyword/value string holds at least one of the
// keywords that only a connection string has.
var keywordRe = regexp.MustCompile(`(?:^|\s)(?:host|hostaddr|dbname|user|port|sslmode|service)\s*=`)

// passwordKV matches password=VALUE in a keyword string or a URL query;
// VALUE may be single-quoted (libpq) with \' escapes.
var passwordKV = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*)`)

// Redact replaces any password in s with "xxx": the URL's user info,
// a password= query parameter, or a keyword string's password.
func Redact(s string) string {
	if strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		u, err := url.Parse(s)
		if err != nil {
			return "(unparsable PostgreSQL DSN)"
		}
		if u.User != nil {
			if _, ok := u.User.Password(); ok {
				u.User = url.UserPassword(u.User.Username(), "xxx")
			}
		}
		q := u.Query()
		for k := range q {
			if strings.EqualFold(k, "password") {
				q.Set(k, "xxx")
			}
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	return passwordKV.ReplaceAllString(s, "${1}xxx")
}
