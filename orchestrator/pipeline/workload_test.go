package pipeline

import (
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/vm"
)

func TestAgentCommand(t *testing.T) {
	cmd, err := AgentCommand(config.Workload{Name: "rstat", Duration: config.Duration(3 * time.Second), Params: map[string]string{"readers": "4", "hogs": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if cmd != "/bin/kagent run rstat -duration 3s -hogs 1 -readers 4" {
		t.Fatalf("cmd %q", cmd)
	}
	for name, w := range map[string]config.Workload{
		"unknown workload": {Name: "fork-bomb", Duration: config.Duration(time.Second)},
		"unknown param":    {Name: "rstat", Duration: config.Duration(time.Second), Params: map[string]string{"reader": "4"}},
		"not a number":     {Name: "rstat", Duration: config.Duration(time.Second), Params: map[string]string{"readers": "many"}},
		"out of range":     {Name: "rstat", Duration: config.Duration(time.Second), Params: map[string]string{"readers": "100000"}},
		"unknown trigger":  {Name: "lru-drain", Duration: config.Duration(2 * time.Second), Params: map[string]string{"trigger": "sync"}},
	} {
		if _, err := AgentCommand(w); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

func TestQEMUArgs(t *testing.T) {
	s := vm.Spec{Kernel: "/k", Initrd: "/i", CPUs: 4, MaxCPUs: 8, MemoryMB: 512, Accel: "tcg", Dir: "/d", SSHPort: 2222, Cmdline: "foo=1"}
	a := strings.Join(s.Args(), " ")
	for _, want := range []string{"-accel tcg,thread=multi", "-smp 4,maxcpus=8", "-no-reboot", "hostfwd=tcp:127.0.0.1:2222-:22", "restrict=on", "-device pvpanic", "panic=-1", "foo=1", "-serial file:/d/console.log", "-qmp unix:/d/qmp.sock"} {
		if !strings.Contains(a, want) {
			t.Errorf("args lack %q: %s", want, a)
		}
	}
	s.Accel = "kvm"
	if a := strings.Join(s.Args(), " "); !strings.Contains(a, "-accel kvm") || !strings.Contains(a, "-cpu host") {
		t.Errorf("kvm args: %s", a)
	}
}
