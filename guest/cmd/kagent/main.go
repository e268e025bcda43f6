// Command kagent is kregress's guest agent. It runs inside the test VM as a
// static binary: `kagent boot` is the SSH server the host talks to, started
// by the image's init on the port init opened; `kagent serve` is the same
// on a port of its own; `kagent run WORKLOAD` runs a workload under the
// tracers and prints one versioned JSON document (guest/agentproto); `kagent
// selftests` runs kselftest binaries and prints their per-test outcomes
// (guest/selftest); the workloads' helper commands (`kagent hog`, the
// memory hog process that the rstat workload re-executes) come from their
// descriptors.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/contention"
	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/probe"
	"github.com/kregress/kregress/guest/selftest"
	"github.com/kregress/kregress/guest/sshd"
	"github.com/kregress/kregress/guest/sysinfo"
	"github.com/kregress/kregress/guest/testenv"
	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/guest/workload/desc"
	"github.com/kregress/kregress/guest/workload/sampler"
)

// Version is stamped by the build (-ldflags -X main.Version=...).
var Version = "dev"

// usage lists the commands; the run lines come from the workloads'
// parameter declarations (guest/workload).
func usage() string {
	var runs, helpers strings.Builder
	for _, w := range workload.All() {
		runs.WriteString("  " + w.Usage() + "\n")
	}
	for _, h := range workload.Helpers() {
		helpers.WriteString("  kagent " + h.Name + "\n")
	}
	return `kagent: kregress guest agent

usage:
  kagent boot      (from /init: serve SSH on the listening socket init passes as fd 3)
  kagent serve [-listen :22] [-host-key FILE] [-authorized-keys FILE]
` + runs.String() + `  kagent run [` + contention.Flag + ` LOCK,...] [` + contention.UnderFlag + ` FUNCTION,...] [` + sampler.HolderFlag + ` FUNCTION-PART] WORKLOAD ...
             (also each lock's contention over the run, any lock's under each function; the share of irqs-off windows held by that code)
  kagent selftests [-dir DIR] [-targets-dir DIR] [-timeout D] [-rerun-failures] [-expected BIN/TEST,...] BINARY...
` + helpers.String() + `  kagent version
`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage())
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "boot":
		err = boot()
	case "serve":
		err = serve(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	case "selftests":
		err = selftests(os.Args[2:])
	case "version":
		fmt.Println(Version)
	default:
		if h, ok := helper(os.Args[1]); ok {
			err = h.Run(os.Args[2:])
			break
		}
		fmt.Fprintf(os.Stderr, "kagent: unknown command %q\n\n%s", os.Args[1], usage())
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kagent:", err)
		os.Exit(1)
	}
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	listen := fs.String("listen", ":22", "address to listen on")
	hostKey := fs.String("host-key", defaultHostKey, "PEM host private key")
	authKeys := fs.String("authorized-keys", defaultAuthorizedKeys, "authorized public keys")
	shell := fs.String("shell", defaultShell, "shell that runs commands")
	fs.Parse(args)
	srv, err := newServer(*hostKey, *authKeys, *shell)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	announce(*listen)
	return srv.Serve(l)
}

const (
	defaultHostKey        = "/etc/kagent/host_key"
	defaultAuthorizedKeys = "/etc/kagent/authorized_keys"
	defaultShell          = "/bin/sh"
)

func newServer(hostKey, authKeys, shell string) (*sshd.Server, error) {
	hk, err := os.ReadFile(hostKey)
	if err != nil {
		return nil, err
	}
	ak, err := os.ReadFile(authKeys)
	if err != nil {
		return nil, err
	}
	return sshd.New(hk, ak, shell)
}

// announce prints the line the host waits for on the console before it
// dials.
func announce(addr string) {
	fmt.Fprintf(os.Stderr, "kagent %s: ssh listening on %s\n", Version, addr)
}

// helper is the workload helper command named name (`kagent hog`, ...).
func helper(name string) (desc.Helper, bool) {
	for _, h := range workload.Helpers() {
		if h.Name == name {
			return h, true
		}
	}
	return desc.Helper{}, false
}

func run(args []string) error {
	// The experiment's own measurements, before the workload's name: the
	// named locks' contention and an irqs-off holder of its own.
	var locks, under []string
	holder := ""
	for len(args) >= 2 && (args[0] == contention.Flag || args[0] == contention.UnderFlag || args[0] == sampler.HolderFlag) {
		var err error
		switch args[0] {
		case contention.Flag:
			locks, err = contention.ParseLocks(args[1])
		case contention.UnderFlag:
			under, err = contention.ParseLocks(args[1])
		default:
			holder, err = args[1], sampler.CheckHolder(args[1])
		}
		if err != nil {
			return fmt.Errorf("run: %s: %w", args[0], err)
		}
		args = args[2:]
	}
	if len(args) < 1 {
		return fmt.Errorf("run: which workload? (known: %s)", strings.Join(workload.Names(), ", "))
	}
	w, err := workload.Lookup(args[0])
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	start, err := w.Parse(args[1:], workload.GuestEnv(self), os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil // usage printed
	}
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := workload.GuestEnv(self)
	kern := &probe.Kernel{Tracefs: env.Tracefs, Proc: env.Proc}
	doc, err := contention.Measure(ctx, ftrace.FS{Root: env.Tracefs}, kern, locks, under, start)
	if err != nil {
		return err
	}
	if holder != "" {
		sampler.AddHolderShare(doc, kern, holder)
	}
	doc.Schema = agentproto.Schema
	doc.AgentVersion = Version
	doc.Guest = sysinfo.Read()
	return agentproto.Encode(os.Stdout, doc)
}

func selftests(args []string) error {
	fs := flag.NewFlagSet("selftests", flag.ContinueOnError)
	dir := fs.String("dir", "/usr/lib/kselftest/gate", "where the selftest binaries are")
	timeout := fs.Duration("timeout", 2*time.Minute, "per binary")
	rerun := fs.Bool("rerun-failures", false, "run a binary once more when one of its tests fails; a test that then passes is flaky")
	expected := fs.String("expected", "", "comma-separated binary/test failures expected on this guest whatever the kernel (not rerun for)")
	targets := fs.String("targets-dir", "/usr/lib/kselftest/targets", "where installed kselftest targets are: a BINARY collection:program runs from there")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts := selftest.Options{Timeout: *timeout, Rerun: *rerun, Expected: map[string]bool{}, TargetsDir: *targets}
	for _, k := range strings.Split(*expected, ",") {
		if k = strings.TrimSpace(k); k != "" {
			opts.Expected[k] = true
		}
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("selftests: name the binaries to run (e.g. test_core test_cpuset)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := testenv.Default(testenv.Guest{}).For(fs.Args()).Prepare()
	doc, err := selftest.Run(ctx, *dir, env.WorkDir, fs.Args(), opts)
	// A step that cannot be undone (swapoff without the memory to bring
	// pages back, say) is noted, not fatal: the tests' outcomes are what
	// the gate needs, and the guest powers off after them.
	uerr := env.Undo()
	if err != nil {
		return err
	}
	doc.Setup = env.Notes
	if uerr != nil {
		doc.Setup = append(doc.Setup, "undo: "+uerr.Error())
	}
	doc.AgentVersion = Version
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// boot is what /init starts: the SSH server on the listening socket init
// hands over as fd 3. Init has made the mounts and brought the network up
// meanwhile, and announced the port on the console; a connection that
// arrives before this process serves waits in the socket's backlog.
//
// Every boot of every cell waits for this under TCG, where code is slow
// the first time it runs (it is being translated), and the collector stays
// off until the host has logged in, so that a collection does not take a
// processor from the handshake.
func boot() error {
	gcPercent := debug.SetGCPercent(-1)
	srv, err := newServer(defaultHostKey, defaultAuthorizedKeys, defaultShell)
	if err != nil {
		return err
	}
	var gcOn sync.Once
	srv.OnLogin = func() { gcOn.Do(func() { debug.SetGCPercent(gcPercent) }) }
	l, err := inheritedListener(listenerFD)
	if err != nil {
		return err
	}
	return srv.Serve(l)
}

// listenerFD is where init passes the SSH port.
const listenerFD = 3

// inheritedListener wraps the listening socket at fd.
func inheritedListener(fd uintptr) (net.Listener, error) {
	f := os.NewFile(fd, "ssh listener")
	defer f.Close() // FileListener holds its own duplicate
	l, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("boot: fd %d is not the listening SSH socket init passes (use kagent serve otherwise): %w", fd, err)
	}
	return l, nil
}
