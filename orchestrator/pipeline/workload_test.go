package pipeline

import (
	"fmt"
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
	cmd, err = AgentCommand(config.Workload{Name: "rstat", Duration: config.Duration(3 * time.Second), Params: map[string]string{"hog-mode": "steady"}})
	if err != nil || cmd != "/bin/kagent run rstat -duration 3s -hog-mode steady" {
		t.Fatalf("steady hogs: %q %v", cmd, err)
	}
	cmd, err = AgentCommand(config.Workload{Name: "rstat", Duration: config.Duration(10 * time.Second), Params: map[string]string{"traced": "4s"}})
	if err != nil || cmd != "/bin/kagent run rstat -duration 10s -traced 4s" {
		t.Fatalf("traced 4s: %q %v", cmd, err)
	}
	for name, w := range map[string]config.Workload{
		"unknown workload": {Name: "fork-bomb", Duration: config.Duration(time.Second)},
		"unknown param":    {Name: "rstat", Duration: config.Duration(time.Second), Params: map[string]string{"reader": "4"}},
		"not a number":     {Name: "rstat", Duration: config.Duration(time.Second), Params: map[string]string{"readers": "many"}},
		"out of range":     {Name: "rstat", Duration: config.Duration(time.Second), Params: map[string]string{"readers": "100000"}},
		"unknown hog mode": {Name: "rstat", Duration: config.Duration(time.Second), Params: map[string]string{"hog-mode": "steady; reboot"}},
		"traced too long":  {Name: "rstat", Duration: config.Duration(10 * time.Second), Params: map[string]string{"traced": "10s"}},
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
	for _, want := range []string{"-accel tcg,thread=multi", "-smp 4,maxcpus=8", "-no-reboot", "hostfwd=tcp:127.0.0.1:2222-:22", "restrict=on", "-device pvpanic", "panic=-1", "foo=1", "-serial file:/dev/fd/3", "-qmp unix:/d/qmp.sock"} {
		if !strings.Contains(a, want) {
			t.Errorf("args lack %q: %s", want, a)
		}
	}
	s.Accel = "kvm"
	if a := strings.Join(s.Args(), " "); !strings.Contains(a, "-accel kvm") || !strings.Contains(a, "-cpu host") {
		t.Errorf("kvm args: %s", a)
	}
}

func TestScheduleShufflesWithinRepetitions(t *testing.T) {
	vs := []string{"stock", "a", "b", "c"}
	fixed := Schedule(vs, 3, OrderFixed, 1)
	if fmt.Sprint(fixed) != fmt.Sprint(Interleave(vs, 3)) {
		t.Fatalf("fixed order %v", fixed)
	}
	firsts := map[string]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		cells := Schedule(vs, 3, OrderShuffled, seed)
		if again := Schedule(vs, 3, OrderShuffled, seed); fmt.Sprint(again) != fmt.Sprint(cells) {
			t.Fatalf("seed %d: two orders", seed)
		}
		for r := 0; r < 3; r++ {
			seen := map[string]bool{}
			for i, c := range cells[r*4 : (r+1)*4] {
				if c.Repetition != r+1 || c.Seq != r*4+i+1 || seen[c.Variant] {
					t.Fatalf("seed %d: repetition %d is not one of each variant in sequence: %v", seed, r+1, cells)
				}
				seen[c.Variant] = true
			}
		}
		firsts[cells[0].Variant] = true
	}
	if len(firsts) < 3 {
		t.Fatalf("20 seeds put only %v first", firsts)
	}
}
