package pgstore

import (
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/results/sqlstore"
	"github.com/kregress/kregress/results/sqlstore/storetest"
)

func open(spec string) (*sqlstore.Store, error) { return Open(spec) }

func TestMain(m *testing.M) {
	storetest.WriterMain(open)
	os.Exit(m.Run())
}

// server is a throwaway PostgreSQL cluster on loopback, run with Debian's
// postgresql binaries (make deps installs them).
type server struct {
	dir, bin string
	port     int
	asUser   []string
}

func pgBin(t *testing.T) string {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		t.Fatal("PostgreSQL server binaries not found: apt-get install postgresql (make deps does)")
	}
	return filepath.Dir(matches[len(matches)-1])
}

func startServer(t *testing.T) *server {
	s := &server{bin: pgBin(t)}
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
		exec.Command(s.asUser[0], append(s.asUser[1:], filepath.Join(s.bin, "pg_ctl"), "-D", filepath.Join(dir, "data"), "-m", "immediate", "stop")...).Run()
	})
	return s
}

func (s *server) run(t *testing.T, name string, args ...string) {
	argv := append(append([]string{}, s.asUser...), append([]string{name}, args...)...)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		t.Fatalf("%s: %v\n%s\n%s", name, err, out, log)
	}
}

func (s *server) dsn(db string) string {
	return fmt.Sprintf("postgres://kregress@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

func (s *server) createDB(t *testing.T, name string) string {
	db, err := sql.Open("pgx", s.dsn("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	return s.dsn(name)
}

func TestStoreOnRealPostgreSQL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server (run `make test`)")
	}
	srv := startServer(t)
	storetest.Run(t, open, srv.createDB(t, "kregress_suite"))
}

func TestDSNThatCannotConnect(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens there
	dsn := fmt.Sprintf("postgres://kregress:secret@127.0.0.1:%d/kregress?sslmode=disable&connect_timeout=3", port)
	start := time.Now()
	_, err := Open(dsn)
	if err == nil {
		t.Fatal("connected to nothing")
	}
	msg := err.Error()
	if !strings.Contains(msg, fmt.Sprintf("127.0.0.1:%d", port)) || !strings.Contains(msg, "cannot connect") {
		t.Fatalf("error does not say where it tried: %v", err)
	}
	if strings.Contains(msg, "secret") {
		t.Fatalf("error leaks the password: %v", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatal("took too long to give up")
	}
}
