package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
