package dsn

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://ci:s3cret@db:5432/kregress?sslmode=disable", "postgres://ci:xxx@db:5432/kregress?sslmode=disable"},
		{"postgresql://ci@db/kregress?password=s3cret&sslmode=require", "postgresql://ci@db/kregress?password=xxx&sslmode=require"},
		{"host=db user=ci password=s3cret dbname=kregress", "host=db user=ci password=xxx dbname=kregress"},
		{`host=db password='it\'s a secret' dbname=k`, "host=db password=xxx dbname=k"},
		{"/var/lib/kregress/kregress.db", "/var/lib/kregress/kregress.db"},
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
		"host=db dbname=kregress": true,
		"dbname=kregress":         true,
		"/tmp/kregress.db":        false,
		"results/host=weird/k.db": false,
		"kregress.db":             false,
	} {
		if IsPostgres(s) != want {
			t.Errorf("IsPostgres(%q) = %v", s, !want)
		}
	}
}
