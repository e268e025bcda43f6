// Package dsn recognises PostgreSQL connection strings and takes their
// passwords out, so that no log line, stored configuration, export or
// printed configuration ever carries one.
package dsn

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Redacted is what Redact puts where a password was. A DSN that still
// carries it came from a stored or printed configuration: it is refused
// (see HasRedactedPassword), never sent to a server as a password.
const Redacted = "xxx"

// schemeRe: a URL's scheme ("postgres://", "pgsql://", "HTTP://").
var schemeRe = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// Normalize returns the store spec as kregress opens it: surrounding white
// space dropped and a PostgreSQL URL's scheme in lower case (pgx, like
// libpq, only knows "postgres://" and "postgresql://"). A URL of any other
// scheme is refused rather than taken as the path of a SQLite file; the
// error carries the spec without its password.
func Normalize(spec string) (string, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		return "", fmt.Errorf("empty results store: give a SQLite file path or a postgres:// DSN")
	}
	m := schemeRe.FindStringSubmatch(s)
	if m == nil {
		return s, nil
	}
	switch scheme := strings.ToLower(m[1]); scheme {
	case "postgres", "postgresql":
		return scheme + s[len(m[1]):], nil
	default:
		hint := ""
		if strings.Contains(scheme, "pg") || strings.Contains(scheme, "postgre") {
			hint = " (did you mean postgres://?)"
		}
		return "", fmt.Errorf("results store %s: unknown scheme %q%s: a store is a SQLite file path or a postgres:// or postgresql:// DSN", Redact(s), m[1]+"://", hint)
	}
}

// IsPostgres reports whether s names a PostgreSQL store: a URL
// (postgres://, postgresql://, in any case, after white space) or libpq's
// keyword form ("host=db dbname=kregress user=ci").
func IsPostgres(s string) bool {
	t := strings.ToLower(strings.TrimSpace(s))
	if strings.HasPrefix(t, "postgres://") || strings.HasPrefix(t, "postgresql://") {
		return true
	}
	return keywordRe.MatchString(s)
}

// keywordRe: a libpq keyword/value string holds at least one of the
// keywords that only a connection string has (a string with a password
// is never taken for a file name).
var keywordRe = regexp.MustCompile(`(?:^|\s)(?:host|hostaddr|dbname|user|port|sslmode|service|password|sslpassword)\s*=`)

// passwordKV matches a password in a keyword string (password=, and
// sslpassword= which ends the same): VALUE single-quoted with \ escapes,
// or unquoted up to white space that is not escaped. An unterminated
// quote runs to the end (libpq refuses such a string, but it may still
// be printed).
var passwordKV = regexp.MustCompile(`(?is)(password\s*=\s*)('(?:\\.|[^'\\])*(?:'|\\?$)|(?:\\.|[^\s\\])*\\?)`)

// isPasswordKey: the URL query parameters that carry a secret.
func isPasswordKey(k string) bool {
	return strings.HasSuffix(strings.ToLower(k), "password")
}

// Redact replaces any password in s with Redacted: a URL's user info
// and its password= (or sslpassword=) query parameters, whatever the
// scheme, or a keyword string's password values. A URL that does not
// parse is replaced whole.
func Redact(s string) string {
	return rewrite(s, func(string) (string, bool) { return Redacted, true })
}

// StripPassword removes the passwords from a DSN altogether, so that the
// client takes it from PGPASSWORD or ~/.pgpass.
func StripPassword(s string) string {
	return rewrite(s, func(string) (string, bool) { return "", false })
}

// HasRedactedPassword reports whether a DSN's password is Redacted: the
// DSN came from a stored or printed configuration, and the real
// password must be supplied.
func HasRedactedPassword(s string) bool {
	found := false
	rewrite(s, func(p string) (string, bool) {
		if p == Redacted || p == "'"+Redacted+"'" {
			found = true
		}
		return p, true
	})
	return found
}

// rewrite calls repl with each password of s and puts back what it
// returns (or drops the password when repl says keep=false).
func rewrite(s string, repl func(old string) (new string, keep bool)) string {
	t := strings.TrimSpace(s)
	if schemeRe.MatchString(t) {
		u, err := url.Parse(t)
		if err != nil {
			return "(unparsable DSN)"
		}
		if u.User != nil {
			if p, ok := u.User.Password(); ok {
				if np, keep := repl(p); keep {
					u.User = url.UserPassword(u.User.Username(), np)
				} else {
					u.User = url.User(u.User.Username())
				}
			}
		}
		if u.RawQuery != "" {
			q, err := url.ParseQuery(u.RawQuery)
			if err != nil {
				return "(unparsable DSN)"
			}
			for k, vs := range q {
				if !isPasswordKey(k) {
					continue
				}
				var out []string
				for _, v := range vs {
					if nv, keep := repl(v); keep {
						out = append(out, nv)
					}
				}
				if len(out) == 0 {
					q.Del(k)
				} else {
					q[k] = out
				}
			}
			u.RawQuery = q.Encode()
		}
		// A fragment is not part of a DSN, and may hold anything.
		u.Fragment, u.RawFragment = "", ""
		return u.String()
	}
	return passwordKV.ReplaceAllStringFunc(s, func(m string) string {
		sub := passwordKV.FindStringSubmatch(m)
		if nv, keep := repl(sub[2]); keep {
			return sub[1] + nv
		}
		return ""
	})
}
