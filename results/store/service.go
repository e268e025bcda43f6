package store

// PostgreSQL service files: a DSN "service=NAME" takes its settings, a
// password among them, from a file the DSN does not show
// (servicefile=, PGSERVICEFILE or ~/.pg_service.conf). That password is
// a secret of the DSN like one written in it: a driver error that
// echoes a setting of the service loses it too.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/jackc/pgservicefile"

	"github.com/kregress/kregress/internal/regularfile"
)

// maxServiceFile bounds the read of a service file: it holds a few
// lines per service.
const maxServiceFile = 1 << 20

// serviceKV matches a keyword/value setting of the service keywords in
// a keyword string, or a URL's query: VALUE as passwordKV reads one.
var serviceKV = regexp.MustCompile(`(?:^|[\t\n\v\f\r ?&])(service|servicefile)[\t\n\v\f\r ]*=[\t\n\v\f\r ]*((?:'(?:\\.|[^'\\])*'|\\.|[^\t\n\v\f\r \\'&])*)`)

// serviceOf is the service a DSN names and the file pgx reads it from
// (the DSN's servicefile=, else PGSERVICEFILE, else ~/.pg_service.conf),
// or "" when it names none (PGSERVICE names one for every DSN).
func serviceOf(dsn string) (name, file string) {
	name = os.Getenv("PGSERVICE")
	file = os.Getenv("PGSERVICEFILE")
	if file == "" {
		if home, err := os.UserHomeDir(); err == nil {
			file = filepath.Join(home, ".pg_service.conf")
		}
	}
	for _, m := range serviceKV.FindAllStringSubmatch(dsn, -1) {
		v := m[2]
		if isPostgresURL(dsn) {
			v = uriDecode(v)
		} else {
			v = unquoteKeyword(v)
		}
		if m[1] == "service" {
			name = v
		} else {
			file = v
		}
	}
	return name, file
}

// servicePasswords are the password and sslpassword values of the
// service dsn names, read as pgx reads the file; none when there is
// none or the file cannot be read (then pgx cannot read it either, and
// its error says so without a setting of it).
func servicePasswords(dsn string) []string {
	name, file := serviceOf(dsn)
	if name == "" || file == "" {
		return nil
	}
	f, err := regularfile.OpenCapped(file, maxServiceFile)
	if err != nil {
		return nil
	}
	defer f.Close()
	sf, err := pgservicefile.ParseServicefile(regularfile.Cap(f, file, maxServiceFile))
	if err != nil {
		return nil
	}
	svc, err := sf.GetService(name)
	if err != nil {
		return nil
	}
	var out []string
	for k, v := range svc.Settings {
		if isPasswordKey(strings.TrimSpace(k)) && v != "" {
			out = append(out, v)
		}
	}
	return out
}
