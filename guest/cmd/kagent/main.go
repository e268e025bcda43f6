// Command kagent is kregress's guest agent. It runs inside the test VM as a
// static binary: `kagent boot` brings the guest up from /init (mounts,
// network) and serves, `kagent serve` is the SSH server the host talks to, `kagent
// run WORKLOAD` runs a workload under the tracers and prints one versioned
// JSON document (guest/report), `kagent selftests` runs kselftest binaries
// and prints their per-test outcomes (guest/selftest), and `kagent hog` is the memory hog process
// that the rstat workload re-executes.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/kregress/kregress/guest/bootstrap"
	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/report"
	"github.com/kregress/kregress/guest/selftest"
	"github.com/kregress/kregress/guest/sshd"
	"github.com/kregress/kregress/guest/sysinfo"
	"github.com/kregress/kregress/guest/testenv"
	"github.com/kregress/kregress/guest/workload/attach"
	"github.com/kregress/kregress/guest/workload/execve"
	"github.com/kregress/kregress/guest/workload/lrudrain"
	"github.com/kregress/kregress/guest/workload/rstat"
)

// Version is stamped by the build (-ldflags -X main.Version=...).
var Version = "dev"

const usage = `kagent: kregress guest agent

usage:
  kagent boot      (from /init: mounts, network, then serve on :22 unless kregress.nossh)
  kagent serve [-listen :22] [-host-key FILE] [-authorized-keys FILE]
  kagent run rstat [-readers N] [-hogs N] [-duration D] [-hog-limit-mb MB] [-window D]
  kagent run execve [-workers N] [-chain N] [-duration D] [-window D]
  kagent run cgroup-attach [-movers N] [-pause D] [-duration D] [-window D]
  kagent run lru-drain [-trigger drop_caches|compact_memory] [-pause D] [-duration D] [-window D]
  kagent selftests [-dir DIR] [-timeout D] BINARY...
  kagent hog
  kagent faulter
  kagent version
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
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
	case "hog":
		err = rstat.Hog()
	case "faulter":
		err = lrudrain.Faulter()
	case "version":
		fmt.Println(Version)
	default:
		fmt.Fprintf(os.Stderr, "kagent: unknown command %q\n\n%s", os.Args[1], usage)
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
	hostKey := fs.String("host-key", "/etc/kagent/host_key", "PEM host private key")
	authKeys := fs.String("authorized-keys", "/etc/kagent/authorized_keys", "authorized public keys")
	shell := fs.String("shell", "/bin/sh", "shell that runs commands")
	fs.Parse(args)
	hk, err := os.ReadFile(*hostKey)
	if err != nil {
		return err
	}
	ak, err := os.ReadFile(*authKeys)
	if err != nil {
		return err
	}
	srv, err := sshd.New(hk, ak, *shell)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	// The host waits for this line on the console before dialing.
	fmt.Fprintf(os.Stderr, "kagent %s: ssh listening on %s\n", Version, *listen)
	return srv.Serve(l)
}

func run(args []string) error {
	if len(args) < 1 {
		return fmt.Errorf("run: which workload? (known: rstat, execve, cgroup-attach, lru-drain)")
	}
	name, args := args[0], args[1:]
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var doc *report.Document
	switch name {
	case "rstat":
		fs := flag.NewFlagSet("run rstat", flag.ContinueOnError)
		p := rstat.Params{CgroupRoot: "/sys/fs/cgroup", Tracefs: ftrace.DefaultRoot, Proc: "/proc"}
		fs.IntVar(&p.Readers, "readers", 2, "memory.stat reader threads")
		fs.IntVar(&p.Hogs, "hogs", 2, "memory hog processes in the test cgroup")
		fs.DurationVar(&p.Duration, "duration", 10*time.Second, "how long the readers read")
		fs.IntVar(&p.HogLimitMB, "hog-limit-mb", 64, "memory.max of the test cgroup, MiB")
		fs.DurationVar(&p.Window, "window", time.Second, "irqsoff sampling window")
		if err := fs.Parse(args); err != nil {
			return err
		}
		doc, err = rstat.Run(ctx, p, self)
	case "execve":
		fs := flag.NewFlagSet("run execve", flag.ContinueOnError)
		p := execve.Params{Doexec: "/bin/doexec", TmpDir: "/tmp", Tracefs: ftrace.DefaultRoot}
		fs.IntVar(&p.Workers, "workers", 0, "exec chains in parallel (0: one per online CPU)")
		fs.IntVar(&p.Chain, "chain", 100, "execve()s per chain")
		fs.DurationVar(&p.Duration, "duration", 10*time.Second, "how long to run")
		fs.DurationVar(&p.Window, "window", time.Second, "irqsoff sampling window")
		if err := fs.Parse(args); err != nil {
			return err
		}
		doc, err = execve.Run(ctx, p)
	case "cgroup-attach":
		fs := flag.NewFlagSet("run cgroup-attach", flag.ContinueOnError)
		p := attach.Params{CgroupRoot: "/sys/fs/cgroup", Tracefs: ftrace.DefaultRoot}
		fs.IntVar(&p.Movers, "movers", 2, "threads moving a process between two cpuset cgroups")
		fs.DurationVar(&p.Pause, "pause", 0, "pause between two moves of one mover (sporadic attaches)")
		fs.DurationVar(&p.Duration, "duration", 10*time.Second, "how long to run")
		fs.DurationVar(&p.Window, "window", time.Second, "irqsoff sampling window")
		if err := fs.Parse(args); err != nil {
			return err
		}
		doc, err = attach.Run(ctx, p)
	case "lru-drain":
		fs := flag.NewFlagSet("run lru-drain", flag.ContinueOnError)
		p := lrudrain.Params{Tracefs: ftrace.DefaultRoot, Self: self}
		trigger := fs.String("trigger", "drop_caches", "sysctl that calls lru_add_drain_all(): drop_caches or compact_memory")
		fs.DurationVar(&p.Pause, "pause", 20*time.Millisecond, "pause between two drains")
		fs.DurationVar(&p.Duration, "duration", 10*time.Second, "how long to run (half idle, half busy)")
		fs.DurationVar(&p.Window, "window", time.Second, "irqsoff sampling window")
		if err := fs.Parse(args); err != nil {
			return err
		}
		if p.Trigger, err = lrudrain.TriggerPath(*trigger); err != nil {
			return err
		}
		doc, err = lrudrain.Run(ctx, p)
	default:
		return fmt.Errorf("run: unknown workload %q (known: rstat, execve, cgroup-attach, lru-drain)", name)
	}
	if err != nil {
		return err
	}
	doc.Schema = report.Schema
	doc.AgentVersion = Version
	doc.Guest = sysinfo.Read()
	return report.Encode(os.Stdout, doc)
}

func selftests(args []string) error {
	fs := flag.NewFlagSet("selftests", flag.ContinueOnError)
	dir := fs.String("dir", "/usr/lib/kselftest/gate", "where the selftest binaries are")
	timeout := fs.Duration("timeout", 2*time.Minute, "per binary")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("selftests: name the binaries to run (e.g. test_core test_cpuset)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := testenv.Default(testenv.Guest{}).Prepare()
	doc, err := selftest.Run(ctx, *dir, env.WorkDir, fs.Args(), *timeout)
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

// boot is what /init starts: the mounts and the network, the banner the
// host waits for, then the SSH server (unless the kernel command line has
// kregress.nossh: the test of a guest that never answers uses it).
func boot() error {
	if err := bootstrap.MountAll(); err != nil {
		return err
	}
	fmt.Println(bootstrap.Banner("/proc", "/sys"))
	if err := bootstrap.QEMUUser.Up(); err != nil {
		return err
	}
	cmdline, _ := os.ReadFile("/proc/cmdline")
	if strings.Contains(string(cmdline), "kregress.nossh") {
		return nil
	}
	return serve(nil)
}
