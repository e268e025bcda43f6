package store

// Recognising PostgreSQL connection strings and taking their passwords
// out, so that no log line, stored configuration, export or printed
// configuration ever carries one.

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// Redacted is what Redact puts where a password was. A DSN that still
// carries it came from a stored or printed configuration: it is refused
// (see HasRedactedPassword), never sent to a server as a password.
const Redacted = "xxx"

// schemeRe: a URL's scheme ("postgres://", "pgsql://", "HTTP://").
var schemeRe = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// normalizeScheme returns the store spec as kregress opens it: surrounding white
// space dropped and a PostgreSQL URL's scheme in lower case (pgx, like
// libpq, only knows "postgres://" and "postgresql://"). A URL of any other
// scheme is refused rather than taken as the path of a SQLite file; the
// error carries the spec without its password.
func normalizeScheme(spec string) (string, error) {
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
		u := scheme + s[len(m[1]):]
		if err := checkURLUserInfo(u); err != nil {
			return "", err
		}
		return u, nil
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
// is never taken for a file name). Any case: "HOST=db PASSWORD=pw" is
// a connection string with its keywords mistyped, never a file name.
var keywordRe = regexp.MustCompile(`(?i)(?:^|[\t\n\v\f\r ])(host|hostaddr|dbname|user|port|sslmode|service|password|sslpassword)[\t\n\v\f\r ]*=`)

// checkKeywordCase refuses a keyword string whose keywords are not in
// lower case: libpq refuses them ("invalid connection option"), and pgx
// would send them to the server as run-time parameters, a password
// included, instead of using them.
func checkKeywordCase(spec string) error {
	if isPostgresURL(spec) {
		return nil
	}
	for _, m := range keywordRe.FindAllStringSubmatch(spec, -1) {
		if k := m[1]; k != strings.ToLower(k) {
			return fmt.Errorf("results store %s: connection keyword %q is not lower case: PostgreSQL's keywords are host=, port=, dbname=, user=, password=, sslmode=, ... (write %s=)", Redact(spec), k, strings.ToLower(k))
		}
	}
	return nil
}

// checkURLUserInfo refuses a PostgreSQL URL whose user info is not
// written as the driver reads it, where the driver (and Redact, which
// follows its grammar) would take part of the password for a host, a
// database name or a query, and print it:
//   - more than one '@' before the path: an unencoded '@' in the
//     password (the driver prints "lookup <rest of password>@host");
//   - an '@' in the path, or in the query before its first '=': an
//     unencoded '/' or '?' in the password, which ended the user info
//     early.
//
// The message shows nothing of what comes before the last such '@'.
func checkURLUserInfo(u string) error {
	scheme := u[:strings.Index(u, "://")+3]
	rest := u[len(scheme):]
	authority, tail := rest, ""
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		authority, tail = rest[:end], rest[end:]
	}
	masked := func(at int) string { return Redact(scheme + Redacted + "@" + rest[at+1:]) }
	if strings.Count(authority, "@") > 1 {
		return fmt.Errorf("results store %s: more than one '@' before the database name: an '@' in the user or password must be written %%40", masked(strings.LastIndexByte(authority, '@')))
	}
	path, query, _ := strings.Cut(tail, "?")
	if at := strings.LastIndexByte(path, '@'); at >= 0 {
		return fmt.Errorf("results store %s: an '@' after the host: a '/' or '#' in the user or password must be written %%2F or %%23", masked(len(authority)+at))
	}
	if at := strings.IndexByte(query, '@'); at >= 0 && !strings.Contains(query[:at], "=") {
		return fmt.Errorf("results store %s: an '@' in the query before any '=': a '?' in the user or password must be written %%3F", masked(len(authority)+len(path)+1+at))
	}
	return nil
}

// passwordKV matches a password in a keyword string (password=, and
// sslpassword= which ends the same): VALUE up to white space that is
// neither escaped (\) nor quoted ('...'). An unterminated quote runs to
// the end, and text glued to a closing quote is taken too (libpq refuses
// both, but such a string may still be printed).
var passwordKV = regexp.MustCompile(`(?is)(password[\t\n\v\f\r ]*=[\t\n\v\f\r ]*)((?:'(?:\\.|[^'\\])*(?:'|\\?$)|\\.|[^\t\n\v\f\r \\'])*\\?)`)

// isPostgresURL: s is a URL that pgx parses as one (its scheme exactly
// postgres:// or postgresql://, as Redact and Normalize write it).
func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// passwordKVInURL is passwordKV for the keyword pass over a URL (one with
// white space): there '&' ends a query value, as pgx splits the query on
// it first; taking it into the value would glue the next parameter to the
// marker ("password=xxx\f0", which pgx reads as that password).
var passwordKVInURL = regexp.MustCompile(`(?is)(password[\t\n\v\f\r ]*=[\t\n\v\f\r ]*)((?:'(?:\\.|[^'\\])*(?:'|\\?$)|\\.|[^\t\n\v\f\r \\'&])*\\?)`)

// isPasswordKey: the URL query parameters that carry a secret.
func isPasswordKey(k string) bool {
	return strings.HasSuffix(strings.ToLower(k), "password")
}

// Redact replaces any password in s with Redacted: a URL's user info
// and its password= (or sslpassword=) query parameters, whatever the
// scheme, or a keyword string's password values.
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
//
// A URL is cut up by libpq's grammar, which pgx follows (and which is not
// net/url's): the user info ends at the first '@' before any '/', the
// password is what follows its first ':', the query is '&'-separated
// key=value pairs after the first '?'. To be safe with input that is not
// well formed, the password runs to the last '@' before any '/' (pgx's
// password is within it either way), and a string with white space also
// gets the keyword-form treatment. Everything else is kept byte for byte.
func rewrite(s string, repl func(old string) (new string, keep bool)) string {
	t := strings.TrimSpace(s)
	m := schemeRe.FindString(t)
	if m == "" {
		return rewriteKeywords(s, passwordKV, repl)
	}
	rest := t[len(m):]
	var b strings.Builder
	b.WriteString(strings.ToLower(m))
	authEnd := strings.IndexByte(rest, '/')
	if authEnd < 0 {
		authEnd = len(rest)
	}
	if at := strings.LastIndexByte(rest[:authEnd], '@'); at >= 0 {
		user, pw, has := strings.Cut(rest[:at], ":")
		b.WriteString(user)
		if has {
			if np, keep := repl(uriDecode(pw)); keep {
				b.WriteString(":" + url.PathEscape(np))
			}
		}
		b.WriteByte('@')
		rest = rest[at+1:]
	}
	path, query, hasQuery := strings.Cut(rest, "?")
	b.WriteString(path)
	if hasQuery {
		pairs := strings.Split(query, "&")
		var kept []string
		for _, pair := range pairs {
			k, v, hasValue := strings.Cut(pair, "=")
			if !hasValue || !isPasswordKey(uriDecode(k)) {
				kept = append(kept, pair)
				continue
			}
			if nv, keep := repl(uriDecode(v)); keep {
				kept = append(kept, k+"="+url.QueryEscape(nv))
			}
		}
		b.WriteString("?" + strings.Join(kept, "&"))
	}
	out := b.String()
	if strings.ContainsAny(out, " \t\n\r\v\f") {
		// pgx reads only postgres:// and postgresql:// as URLs (where '&'
		// ends a value); any other scheme is keyword text to it.
		re := passwordKV
		if isPostgresURL(out) {
			re = passwordKVInURL
		}
		out = rewriteKeywords(out, re, repl)
	}
	return out
}

// rewriteKeywords rewrites the passwords of a keyword/value string.
func rewriteKeywords(s string, re *regexp.Regexp, repl func(old string) (new string, keep bool)) string {
	return re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		if nv, keep := repl(sub[2]); keep {
			return sub[1] + nv
		}
		return ""
	})
}

// secrets are the passwords of dsn in each spelling a driver's error
// may print: as written, percent-decoded, and without libpq's quotes
// and escapes.
func secrets(dsn string) []string {
	var out []string
	add := func(p string) {
		if p != "" && p != Redacted {
			out = append(out, p)
		}
	}
	rewrite(dsn, func(p string) (string, bool) {
		add(p)
		add(uriDecode(p))
		add(unquoteKeyword(p))
		return p, true
	})
	// The raw text of a URL's user-info password and query passwords,
	// as pgx echoes them before decoding.
	for _, part := range strings.FieldsFunc(dsn, func(r rune) bool { return r == '&' || r == '?' }) {
		if k, v, ok := strings.Cut(part, "="); ok && isPasswordKey(uriDecode(strings.TrimSpace(k))) {
			add(v)
		}
	}
	if isPostgresURL(dsn) {
		rest := dsn[strings.Index(dsn, "://")+3:]
		if end := strings.IndexByte(rest, '/'); end >= 0 {
			rest = rest[:end]
		}
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
				add(pw)
			}
		}
	}
	// The password of the service the DSN names, from its service file.
	for _, p := range servicePasswords(dsn) {
		add(p)
	}
	// Longest first, so that a password containing another is taken
	// out whole.
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// unquoteKeyword is a keyword value without libpq's single quotes and
// backslash escapes ('it\'s' is it's).
func unquoteKeyword(v string) string {
	v = strings.TrimPrefix(v, "'")
	v = strings.TrimSuffix(v, "'")
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// RedactText takes out of text (a driver's error message) every password
// of dsn, however the driver spelt it, and any keyword-form password the
// text itself carries (a driver may print the connection string with its
// own, narrower, redaction).
func RedactText(text, dsn string) string {
	for _, p := range secrets(dsn) {
		text = strings.ReplaceAll(text, p, Redacted)
	}
	return rewriteKeywords(text, passwordKV, func(old string) (string, bool) {
		// Already the marker, with the punctuation of the message glued
		// to it ("password = xxx`: invalid port"): kept as it is.
		if rest, ok := strings.CutPrefix(old, Redacted); ok && strings.Trim(rest, "`'\":;,.)]}") == "" {
			return old, true
		}
		return Redacted, true
	})
}

// redactedError is a driver error whose text went through RedactText. It
// does not unwrap: the driver's own error value may carry the DSN (pgx's
// ParseConfigError.ConnString), and what is printed is only this text.
type redactedError struct{ text string }

func (e *redactedError) Error() string { return e.text }

// redactErr is err with every password of dsn taken out of its text (err
// itself when its text carries none, so that errors.Is still sees what
// it wraps).
func redactErr(err error, dsn string) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	if r := RedactText(text, dsn); r != text {
		return &redactedError{text: r}
	}
	return err
}

// uriDecode percent-decodes a URL component as far as it can (what does
// not decode is taken as it is).
func uriDecode(s string) string {
	if d, err := url.PathUnescape(s); err == nil {
		return d
	}
	return s
}

// oneLineError is an error whose text is put on one line; it unwraps
// to the error it rewrites.
type oneLineError struct {
	err  error
	text string
}

func (e *oneLineError) Error() string { return e.text }
func (e *oneLineError) Unwrap() error { return e.err }

// oneLine is err with its text on one line: the driver writes each host
// it tried on a line of its own, the same line again for each attempt
// (with and without TLS), under a header; kregress's errors are one
// sentence. Repeated lines are dropped, the rest joined with "; ".
func oneLine(err error) error {
	text := err.Error()
	if !strings.Contains(text, "\n") {
		return err
	}
	var parts []string
	seen := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		parts = append(parts, l)
	}
	joined := ""
	for i, p := range parts {
		switch {
		case i == 0:
			joined = p
		case strings.HasSuffix(joined, ":"):
			joined += " " + p
		default:
			joined += "; " + p
		}
	}
	return &oneLineError{err: err, text: joined}
}
