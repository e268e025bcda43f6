// Package pgtest starts a throwaway PostgreSQL cluster on loopback for
// tests, with Debian's postgresql binaries (make test-deps installs them).
package pgtest

import (
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the pgx database/sql driver
)

// Server is a running cluster; it stops when the test ends.
type Server struct {
	dir, bin string
	port     int
	asUser   []string
}

func binDir(t testing.TB) string {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		t.Fatal("PostgreSQL server binaries not found: apt-get install postgresql (make test-deps does)")
	}
	return filepath.Dir(matches[len(matches)-1])
}

// Start initialises and starts a cluster whose superuser is kregress,
// trusted on loopback.
func Start(t testing.TB) *Server {
	s := &Server{bin: binDir(t)}
	dir, err := os.MkdirTemp("", "kregress-pg-")
	if err != nil {
		t.Fatal(err)
	}
	s.dir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Getuid() == 0 {
		// initdb refuses to run as root: run the cluster as postgres.
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatal("no postgres user: apt-get install postgresql")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		os.Chown(dir, uid, gid)
		s.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	s.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	s.run(t, filepath.Join(s.bin, "initdb"), "-D", filepath.Join(dir, "data"), "-A", "trust", "-U", "kregress", "--no-sync")
	s.run(t, filepath.Join(s.bin, "pg_ctl"), "-D", filepath.Join(dir, "data"), "-l", filepath.Join(dir, "log"), "-w", "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", s.port, dir), "start")
	t.Cleanup(func() {
		argv := append(append([]string{}, s.asUser...), filepath.Join(s.bin, "pg_ctl"), "-D", filepath.Join(dir, "data"), "-m", "immediate", "stop")
		exec.Command(argv[0], argv[1:]...).Run()
	})
	return s
}

func (s *Server) run(t testing.TB, name string, args ...string) {
	argv := append(append([]string{}, s.asUser...), append([]string{name}, args...)...)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		t.Fatalf("%s: %v\n%s\n%s", name, err, out, log)
	}
}

// DSN names database db on the server.
func (s *Server) DSN(db string) string {
	return fmt.Sprintf("postgres://kregress@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// SocketDSN names database db over the server's unix socket: reachable
// from processes in other network namespaces of this machine, which its
// loopback address is not.
func (s *Server) SocketDSN(db string) string {
	return fmt.Sprintf("postgres://kregress@/%s?host=%s&port=%d&sslmode=disable", db, s.dir, s.port)
}

// CreateDB creates a database and returns its DSN.
func (s *Server) CreateDB(t testing.TB, name string) string {
	db, err := sql.Open("pgx", s.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	return s.DSN(name)
}
