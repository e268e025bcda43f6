package store

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestDriverErrorsCarryNoPassword: every DSN spelling PostgreSQL accepts,
// made to fail inside the driver (a port that does not parse, a port
// nothing listens on) or before it, gives an error without the password,
// opened for reading and for writing; none is taken for a SQLite path
// (no file named with the password appears).
func TestDriverErrorsCarryNoPassword(t *testing.T) {
	dir := t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })
	for _, spec := range []string{
		"host=127.0.0.1 port=notaport password = S3CRETpw",
		"host=127.0.0.1 port=notaport password=S3CRETpw",
		"password=S3CRETpw host=127.0.0.1 port=notaport",
		"host=127.0.0.1 port=notaport password='S3CRET pw'",
		`host=127.0.0.1 port=notaport password='S3CRET\'pw'`,
		"host=127.0.0.1 port=notaport sslpassword=S3CRETpw",
		"host=127.0.0.1 port=1 user=u password=S3CRETpw dbname=db",
		"postgres://u:p@ssS3CRETpw@127.0.0.1:1/db",
		"postgres://u:S3CRETpw@127.0.0.1:notaport/db",
		"postgres://u:S3CRET%20pw@127.0.0.1:notaport/db",
		"postgresql://u@127.0.0.1:notaport/db?password=S3CRETpw",
		"POSTGRES://u:S3CRETpw@127.0.0.1:1/db",
		"HOST=127.0.0.1 PASSWORD=S3CRETpw",
		"Host=127.0.0.1 Password = S3CRETpw",
		"host=127.0.0.1 PASSWORD=S3CRETpw",
	} {
		if !IsPostgres(spec) {
			t.Errorf("IsPostgres(%q) = false", spec)
		}
		for name, open := range map[string]func(string) (*Store, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
			s, err := open(spec)
			if err == nil {
				s.Close()
				t.Errorf("%s(%q) succeeded", name, spec)
				continue
			}
			if strings.Contains(err.Error(), "S3CRET") {
				t.Errorf("%s(%q): the error carries the password: %v", name, spec, err)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		t.Errorf("a file was created: %s", filepath.Base(f))
	}
}

// TestRedactTextKeepsTheMessage: the driver's message around a redacted
// password stays readable (the quote and colon after it are kept).
func TestRedactTextKeepsTheMessage(t *testing.T) {
	dsn := "host=127.0.0.1 port=notaport password = S3CRETpw"
	got := RedactText("cannot parse `"+dsn+"`: invalid port", dsn)
	if want := "cannot parse `host=127.0.0.1 port=notaport password = xxx`: invalid port"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := RedactText("password=other`s3", dsn); strings.Contains(got, "other") {
		t.Errorf("a password the DSN does not hold, in the text: %q", got)
	}
}

// TestUnencodedUserInfoRefused: a URL whose password holds an unencoded
// '@', '/' or '?' is refused before the driver reads part of the
// password as a host, a database or a query, and the message shows
// none of it.
func TestUnencodedUserInfoRefused(t *testing.T) {
	for spec, want := range map[string]string{
		"postgres://u:p@ssS3CRETpw@127.0.0.1:1/db": "more than one '@'",
		"postgres://u:pa/ssS3CRETpw@db/k":          "a '/' or '#'",
		"postgres://u:pa#ssS3CRETpw@db/k":          "a '/' or '#'",
		"postgres://u:pa?ssS3CRETpw@db/k":          "a '?'",
	} {
		_, err := Normalize(spec)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "S3CRET") {
			t.Errorf("Normalize(%q) = %v, want a refusal saying %q without the password", spec, err, want)
		}
	}
	for _, ok := range []string{"postgres://ci:pw@db/k?application_name=ci@runner", "postgres://ci@db/k", "postgresql://db/k?sslmode=disable"} {
		if _, err := Normalize(ok); err != nil {
			t.Errorf("Normalize(%q): %v", ok, err)
		}
	}
}

// TestServiceFilePasswordNotPrinted: a DSN that names a PostgreSQL
// service takes its password from the service file; when the driver
// echoes a setting that carries it (a host line with the password glued
// on), the error does not show it, however the service and its file
// are named (in the DSN, a URL's query, PGSERVICE, PGSERVICEFILE, the
// default ~/.pg_service.conf).
func TestServiceFilePasswordNotPrinted(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("PGSERVICE", "")
	t.Setenv("PGSERVICEFILE", "")
	body := "# kregress's team store\n[kr]\nhost=127.0.0.1 S3CRETpw\nport=1\nconnect_timeout=2\npassword = S3CRETpw\n"
	file := filepath.Join(t.TempDir(), "services.conf")
	for _, f := range []string{file, filepath.Join(home, ".pg_service.conf")} {
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		spec string
		env  map[string]string
	}{
		{"service=kr", nil},
		{"service = 'kr' user=ci", nil},
		{"service=kr", map[string]string{"PGSERVICEFILE": file}},
		{"servicefile=" + file + " service=kr", map[string]string{"HOME": t.TempDir()}},
		{"postgres:///k?service=kr", nil},
		{"host=127.0.0.1 user=ci", map[string]string{"PGSERVICE": "kr"}},
	} {
		t.Run(c.spec, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			if !IsPostgres(c.spec) {
				t.Fatalf("IsPostgres(%q) = false", c.spec)
			}
			_, err := OpenReadOnly(c.spec)
			if err == nil {
				t.Fatalf("OpenReadOnly(%q) succeeded", c.spec)
			}
			if strings.Contains(err.Error(), "S3CRET") {
				t.Errorf("the error carries the service's password: %v", err)
			}
		})
	}
	// A service file that is not a regular file is not read by kregress
	// (a FIFO would hang it); the driver's own error stands.
	if got := servicePasswords("servicefile=/dev/zero service=kr"); got != nil {
		t.Errorf("a device read as a service file: %q", got)
	}
}

// FuzzServicePassword: kregress reads a service file as the driver does:
// the password the driver takes from the service (the oracle) is among
// the secrets kregress takes out of the driver's errors, and a text that
// echoes it comes out without it.
func FuzzServicePassword(f *testing.F) {
	noEnvPassword(f)
	f.Add("kr", "S3CRETpw", "127.0.0.1", "password")
	f.Add("k r", " S3CRET pw ", "db", "PASSWORD")
	f.Add("kr", "p@ss=w'rd\\", "127.0.0.1 S3CRETpw", "sslpassword")
	f.Fuzz(func(t *testing.T, name, pw, host, key string) {
		pw = strings.TrimSpace(pw)
		if len(pw) < 4 || len(name)+len(pw)+len(host)+len(key) > 1024 || strings.ContainsAny(name+pw+host+key, "\x00\r\n[]") || strings.TrimSpace(name) != name || name == "" {
			return
		}
		file := filepath.Join(t.TempDir(), "pg_service.conf")
		body := "[" + name + "]\nhost=" + host + "\n" + key + "=" + pw + "\n"
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		dsn := "servicefile='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(file) + "' service='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(name) + "'"
		cfg, err := pgconn.ParseConfig(dsn)
		if err != nil || cfg.Password != pw {
			return // the driver takes no such password from it
		}
		found := false
		for _, s := range secrets(dsn) {
			found = found || s == pw
		}
		if !found {
			t.Fatalf("service %q of %q: the driver's password %q is not among kregress's secrets %q", name, body, pw, secrets(dsn))
		}
		if got := RedactText("lookup "+host+" "+pw+": no such host", dsn); strings.Contains(got, pw) {
			t.Fatalf("RedactText left the service's password %q in %q", pw, got)
		}
	})
}

// TestUnreachableServerIsOneLine: a server nothing listens for is one
// line naming the address, not the driver's line per attempt.
func TestUnreachableServerIsOneLine(t *testing.T) {
	_, err := OpenReadOnly("postgres://u@127.0.0.1:1/k?connect_timeout=2")
	if err == nil {
		t.Fatal("opened a store on a closed port")
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || strings.Count(msg, "connection refused") != 1 || !strings.Contains(msg, "127.0.0.1:1") {
		t.Fatalf("want one line naming the address, once: %q", msg)
	}
}

// A store nothing listens for says so before the driver's words: the
// cause a user can act on first.
func TestConnectRefusedSaysWhy(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = OpenFor(t.Context(), "postgres://u:pw@"+addr+"/k", ReadOnly, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot connect: nothing is listening there") {
		t.Fatalf("%v", err)
	}
}
