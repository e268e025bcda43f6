package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoPasswordOnAnyPath: every spelling of a PostgreSQL store that
// PostgreSQL accepts (URL, keywords in any case, spaces around '=', a
// service file), made to fail, through every command that opens a store
// given by the user: no output carries the password, and no file is
// named with it.
func TestNoPasswordOnAnyPath(t *testing.T) {
	local := seed(t)
	exported := filepath.Join(t.TempDir(), "run1.json")
	mustRun(t, local, "results", "export", "1", "-o", exported)
	services := filepath.Join(t.TempDir(), "pg_service.conf")
	// The password glued to the host by mistake: the driver's lookup
	// error echoes it.
	if err := os.WriteFile(services, []byte("[kr]\nhost=127.0.0.1 S3CRETpw\nport=1\nconnect_timeout=2\npassword=S3CRETpw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(work); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })
	specs := []string{
		"postgres://ci:S3CRETpw@127.0.0.1:1/k?sslmode=disable&connect_timeout=2",
		"postgres://u:p@ssS3CRETpw@127.0.0.1:1/db",
		"postgresql://ci@127.0.0.1:notaport/k?password=S3CRETpw",
		"host=127.0.0.1 port=notaport password = S3CRETpw",
		"host=127.0.0.1 port=1 password='S3CRET pw' connect_timeout=2",
		"HOST=127.0.0.1 PASSWORD=S3CRETpw",
		"Host=127.0.0.1 Password = S3CRETpw",
		"service=kr",
		"postgres:///k?service=kr",
	}
	for _, spec := range specs {
		env := []string{"PGSERVICEFILE=" + services, "PGSERVICE=", "PGPASSWORD=", "KREGRESS_RESULTS_DIR=" + work, "KREGRESS_CACHE_DIR=" + filepath.Join(work, "cache")}
		for _, c := range []struct {
			env  string
			args []string
		}{
			{spec, []string{"results", "list"}},
			{spec, []string{"doctor"}},
			{spec, []string{"diff", "1"}},
			{local, []string{"diff", "1", "1", "--against", spec}},
			{spec, []string{"results", "import", exported}},
		} {
			out, err := inProcess(t, append(env, "KREGRESS_STORE="+c.env), c.args...)
			if err == nil {
				t.Errorf("%q with store %q succeeded:\n%s", c.args, spec, out)
			}
			if strings.Contains(out, "S3CRET") {
				t.Errorf("%q with store %q printed the password:\n%s", c.args, spec, out)
			}
			if strings.Contains(out, "no results store at") {
				t.Errorf("%q with store %q: taken for a SQLite path:\n%s", c.args, spec, out)
			}
		}
	}
	filepath.Walk(work, func(p string, _ os.FileInfo, _ error) error {
		if strings.Contains(p, "S3CRET") {
			t.Errorf("a file is named with the password: %s", p)
		}
		return nil
	})
}
