package store

import (
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://ci:s3cret@db:5432/kregress?sslmode=disable", "postgres://ci:xxx@db:5432/kregress?sslmode=disable"},
		{"postgresql://ci@db/kregress?password=s3cret&sslmode=require", "postgresql://ci@db/kregress?password=xxx&sslmode=require"},
		{"host=db user=ci password=s3cret dbname=kregress", "host=db user=ci password=xxx dbname=kregress"},
		{`host=db password='it\'s a secret' dbname=k`, "host=db password=xxx dbname=k"},
		{"/var/lib/kregress/kregress.db", "/var/lib/kregress/kregress.db"},
		// Another case, a leading space, sslpassword, another scheme.
		{"POSTGRES://ci:s3cret@db/k", "postgres://ci:xxx@db/k"},
		{" postgres://ci:s3cret@db/k", "postgres://ci:xxx@db/k"},
		{"postgres://ci@db/k?sslpassword=s3cret&sslmode=verify-full", "postgres://ci@db/k?sslpassword=xxx&sslmode=verify-full"},
		{"pgsql://ci:s3cret@db/k", "pgsql://ci:xxx@db/k"},
		{"host=db sslpassword=s3cret", "host=db sslpassword=xxx"},
		// libpq's escapes: a backslash-escaped space does not end the value.
		{`host=db password=a\ s3cret dbname=k`, "host=db password=xxx dbname=k"},
		{`host=db password='unterminated s3cret`, "host=db password=xxx"},
		{"postgres://ci:s3cret@db/%zz", "postgres://ci:xxx@db/%zz"},
		{"postgres://ci:s3c@ret@db/k", "postgres://ci:xxx@db/k"},
		{"postgres://?:s3cret@0", "postgres://?:xxx@0"},
		{"postgres://ci@db/k?sslmode=disable&password=s3cret&application_name=x", "postgres://ci@db/k?sslmode=disable&password=xxx&application_name=x"},
		{"mysql://x?a=b password=s3cret", "mysql://x?a=b password=xxx"},
	} {
		got := Redact(c.in)
		if strings.Contains(got, "s3cret") || strings.Contains(got, "secret") {
			t.Errorf("Redact(%q) = %q: the password is still there", c.in, got)
		}
		if got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestIsPostgres(t *testing.T) {
	for s, want := range map[string]bool{
		"postgres://a@b/c":        true,
		"postgresql://a@b/c":      true,
		"POSTGRES://a@b/c":        true,
		"  PostgreSQL://a@b/c":    true,
		"host=db dbname=kregress": true,
		"dbname=kregress":         true,
		"password=s3cret":         true,
		"/tmp/kregress.db":        false,
		"results/host=weird/k.db": false,
		"kregress.db":             false,
	} {
		if IsPostgres(s) != want {
			t.Errorf("IsPostgres(%q) = %v", s, !want)
		}
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"POSTGRES://ci:pw@db/k":        "postgres://ci:pw@db/k",
		" \tPostgreSQL://ci@db/k \n":   "postgresql://ci@db/k",
		"  /var/lib/kregress/k.db  ":   "/var/lib/kregress/k.db",
		"host=db user=ci password=pw ": "host=db user=ci password=pw",
		"relative/k?x.db":              "relative/k?x.db",
	} {
		if got, err := normalizeScheme(in); err != nil || got != want {
			t.Errorf("normalizeScheme(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"pgsql://ci:s3cret@db/k":   "did you mean postgres://",
		"mysql://ci:s3cret@db/k":   `unknown scheme "mysql://"`,
		"sqlite:///tmp/k.db":       `unknown scheme "sqlite://"`,
		"   ":                      "empty results store",
		"Postgress://ci:s3cret@db": "did you mean postgres://",
	} {
		_, err := normalizeScheme(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("normalizeScheme(%q): %v, want an error with %q", in, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("normalizeScheme(%q) error carries the password: %v", in, err)
		}
	}
}

func TestRedactedPassword(t *testing.T) {
	for in, want := range map[string]bool{
		"postgres://ci:xxx@db/k":              true,
		"postgres://ci@db/k?password=xxx":     true,
		"host=db password=xxx":                true,
		"host=db password='xxx'":              true,
		"postgres://ci:real@db/k":             false,
		"postgres://ci@db/k":                  false,
		"host=db password=xxxy":               false,
		Redact("postgres://ci:s3cret@db/k"):   true,
		Redact("host=db password='a b' u=ci"): true,
	} {
		if got := HasRedactedPassword(in); got != want {
			t.Errorf("HasRedactedPassword(%q) = %v", in, got)
		}
	}
	for in, want := range map[string]string{
		"postgres://ci:xxx@db:5432/k?sslmode=disable":   "postgres://ci@db:5432/k?sslmode=disable",
		"postgres://ci@db/k?password=xxx&sslmode=allow": "postgres://ci@db/k?sslmode=allow",
		"host=db password=xxx dbname=k":                 "host=db  dbname=k",
	} {
		if got := StripPassword(in); got != want {
			t.Errorf("StripPassword(%q) = %q, want %q", in, got, want)
		}
	}
}

// pgPassword is the password pgx itself reads from s (the oracle the
// fuzz targets hold Redact to), or "" when s is not a DSN to pgx.
func pgPassword(s string) string {
	cfg, err := pgconn.ParseConfig(s)
	if err != nil {
		return ""
	}
	return cfg.Password
}

// noEnvPassword keeps pgx from taking a password from the environment or
// a password file, so that every password the oracle sees is in s.
func noEnvPassword(f *testing.F) {
	for _, k := range []string{"PGPASSWORD", "PGPASSFILE", "PGSERVICE", "PGSERVICEFILE", "PGSSLPASSWORD"} {
		if v, ok := os.LookupEnv(k); ok {
			os.Unsetenv(k)
			f.Cleanup(func() { os.Setenv(k, v) })
		}
	}
	os.Setenv("PGPASSFILE", "/nonexistent/kregress-fuzz-pgpass")
	f.Cleanup(func() { os.Unsetenv("PGPASSFILE") })
}

var seeds = []string{
	"postgres://ci:s3cret@db:5432/kregress?sslmode=disable",
	"postgresql://ci@db/kregress?password=s3cret&sslmode=require",
	"POSTGRES://ci:s3cret@db/k",
	" postgres://ci:s3cret@db/k",
	"postgres://ci:s3c%40ret@db/k",
	"postgres://ci:s3cret@db1:5432,db2:5433/k?target_session_attrs=read-write",
	"postgres://ci@db/k?sslpassword=s3cret&password=other1",
	"host=db user=ci password=s3cret dbname=kregress",
	`host=db password='it\'s a s3cret' dbname=k`,
	`host=db password=a\ s3cret dbname=k`,
	"host=db sslpassword=s3cret",
	"password = s3cret host=db",
	// Spellings users write: spaces around '=', upper-case keywords, an
	// unencoded '@' in a URL's password, a port the driver cannot parse
	// (its error quotes the DSN).
	"host=127.0.0.1 port=notaport password = S3CRETpw",
	"HOST=127.0.0.1 PASSWORD=S3CRETpw",
	"Host=db Password = 'S3CRET pw'",
	"postgres://u:p@ssS3CRETpw@127.0.0.1:1/db",
	"postgres://u:S3CRETpw@127.0.0.1:notaport/db",
	"postgresql://u@db:notaport/k?password=S3CRETpw",
	"host=db port=notaport sslpassword=S3CRETpw password='a\\ b'",
	"pgsql://ci:s3cret@db/k",
	// Services: the password may also be in the DSN, beside the service
	// (its own file is FuzzServicePassword's).
	"service=kr",
	"service=kr password = S3CRETpw",
	"SERVICE=kr PASSWORD=S3CRETpw",
	"servicefile=/nonexistent/pg_service.conf service = 'k r' password='S3CRET pw'",
	"postgres:///k?service=kr&password=S3CRETpw",
	"postgresql://u:S3CRETpw@/k?service=kr",
	"/var/lib/kregress/kregress.db",
	"results/host=weird/k.db",
	"",
}

// FuzzRedact: for any string, Redact does not panic, and a password pgx
// would send (appearing once in the input, at least 4 bytes) is not in
// its output; what Redact returns never gives pgx a password but the
// marker. Normalize never takes a string with a password for a path,
// and its errors never carry the password.
func FuzzRedact(f *testing.F) {
	noEnvPassword(f)
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		out := Redact(s)
		_ = StripPassword(s)
		_ = HasRedactedPassword(s)
		pw := pgPassword(s)
		if p := pgPassword(out); p != "" && p != Redacted {
			t.Fatalf("Redact(%q) = %q, which pgx reads with password %q", s, out, p)
		}
		if len(pw) < 4 || strings.Count(s, pw) != 1 {
			return
		}
		if strings.Contains(out, pw) {
			t.Fatalf("Redact(%q) = %q: password %q still there", s, out, pw)
		}
		// pgx's own error for s (a parse error quotes the DSN) carries no
		// password once kregress has redacted it.
		if _, perr := pgconn.ParseConfig(s); perr != nil {
			if e := redactErr(perr, s).Error(); strings.Contains(e, pw) {
				t.Fatalf("the driver's error for %q, redacted, still carries password %q: %s", s, pw, e)
			}
		}
		if _, err := Normalize(s); err != nil && strings.Contains(err.Error(), pw) {
			t.Fatalf("Normalize(%q) error carries password %q: %v", s, pw, err)
		}
		norm, err := normalizeScheme(s)
		if err != nil {
			if strings.Contains(err.Error(), pw) {
				t.Fatalf("normalizeScheme(%q) error carries password %q: %v", s, pw, err)
			}
			return
		}
		if !IsPostgres(norm) {
			t.Fatalf("normalizeScheme(%q) = %q, taken for a SQLite path although pgx reads password %q from it", s, norm, pw)
		}
	})
}

// FuzzRedactBuilt builds DSNs around a password in each form kregress
// accepts and checks that Redact takes it out.
func FuzzRedactBuilt(f *testing.F) {
	noEnvPassword(f)
	f.Add("ci", "s3cret", "db", "kregress", uint8(0))
	f.Add("ci", "p@ss:w/rd?#&=", "db:5432", "k", uint8(1))
	f.Add("ci", "it's a \\secret", "db", "k", uint8(2))
	f.Add("ci", "xxxx", "db", "k", uint8(3))
	f.Add("ci", "S3CRETpw", "127.0.0.1 port=notaport", "k", uint8(4))
	f.Add("ci", "S3CRETpw", "127.0.0.1", "k", uint8(5))
	f.Add("ci", "p@ssS3CRETpw", "127.0.0.1:1", "db", uint8(6))
	f.Fuzz(func(t *testing.T, user, pw, host, db string, form uint8) {
		if len(pw) < 4 || len(user)+len(pw)+len(host)+len(db) > 1024 || strings.ContainsRune(pw, 0) {
			return
		}
		build := func(pw string) string {
			switch form % 7 {
			case 4: // keyword, spaces around '=', libpq's quotes
				q := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw)
				return "host = '" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(host) + "' password = '" + q + "' dbname = k"
			case 5: // keyword in capitals
				q := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw)
				return "HOST='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(host) + "' PASSWORD='" + q + "'"
			case 6: // a URL whose password is not percent-encoded
				return "postgres://" + url.PathEscape(user) + ":" + pw + "@" + url.PathEscape(host) + "/k"
			case 0: // user info
				return (&url.URL{Scheme: "postgres", User: url.UserPassword(user, pw), Host: host, Path: "/" + db}).String()
			case 1: // query parameter
				return (&url.URL{Scheme: "postgresql", User: url.User(user), Host: host, Path: "/" + db, RawQuery: url.Values{"password": {pw}}.Encode()}).String()
			case 2: // keyword, quoted with libpq's escapes
				q := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw)
				return "host='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(host) + "' password='" + q + "' dbname=k"
			default: // sslpassword as a query parameter, scheme in capitals
				return "POSTGRES://" + url.User(user).String() + "@" + url.PathEscape(host) + "/k?" + url.Values{"sslpassword": {pw}}.Encode()
			}
		}
		s := build(pw)
		if form%7 == 6 && strings.ContainsAny(pw+user, "/?#%@:") {
			// A password written unencoded, with a character that ends
			// the user info (or is an escape): it is not a password to
			// the driver, and Normalize must refuse it without showing
			// it (the '@' is still somewhere after it).
			if _, err := Normalize(s); err != nil && strings.Contains(err.Error(), pw) && !strings.Contains(Redact(build("")), pw) {
				t.Fatalf("Normalize(%q) error carries the password: %v", s, err)
			}
			return
		}
		// The same DSN without the password: if the password's text is
		// in it (part of the user, host or name, or made by the quoting
		// around it), finding it in the output proves nothing.
		rest := build("")
		for _, enc := range []string{pw, url.QueryEscape(pw), url.PathEscape(pw), url.UserPassword("", pw).String()[1:]} {
			if strings.Contains(rest, enc) {
				return
			}
		}
		out := Redact(s)
		// What Redact makes of the DSN without a password: the marker
		// (xxx) and the text around it may spell the password by chance.
		outRest := Redact(rest)
		for _, enc := range []string{pw, url.QueryEscape(pw), url.PathEscape(pw)} {
			if len(enc) >= 4 && strings.Contains(out, enc) && !strings.Contains(outRest, enc) {
				t.Fatalf("Redact(%q) = %q: the password (%q) is still there", s, out, enc)
			}
		}
		if p := pgPassword(out); p != "" && p != Redacted {
			t.Fatalf("Redact(%q) = %q, which pgx reads with password %q", s, out, p)
		}
		// Refused, taken for a path, or the driver's error: none of
		// them carries the password.
		if _, err := Normalize(s); err != nil && strings.Contains(err.Error(), pw) && !strings.Contains(Redact(rest), pw) {
			t.Fatalf("Normalize(%q) error carries the password: %v", s, err)
		}
		if !IsPostgres(s) {
			t.Fatalf("IsPostgres(%q) = false: it would be taken for a SQLite file named with the password", s)
		}
		if _, perr := pgconn.ParseConfig(s); perr != nil {
			if e := redactErr(perr, s).Error(); strings.Contains(e, pw) && !strings.Contains(RedactText(perr.Error(), rest), pw) {
				t.Fatalf("the driver's error for %q, redacted, carries the password: %s", s, e)
			}
		}
	})
}
