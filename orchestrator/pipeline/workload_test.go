package pipeline

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/guest/workload/param"
	"github.com/kregress/kregress/guest/workload/sampler"

	"github.com/kregress/kregress/orchestrator/config"
)

// Named locks go before the workload, as kagent run's own option; without
// them the command is what it was.
func TestAgentCommandLockContention(t *testing.T) {
	w := config.Workload{Name: "execve", Duration: config.Duration(3 * time.Second)}
	plain, err := AgentCommand(w)
	if err != nil || strings.Contains(plain, "-lock-contention") {
		t.Fatalf("%q %v", plain, err)
	}
	w.LockContention = []string{"cgroup_mutex", "css_set_lock"}
	cmd, err := AgentCommand(w)
	if want := "/bin/kagent run -lock-contention cgroup_mutex,css_set_lock execve " + strings.TrimPrefix(plain, "/bin/kagent run execve "); err != nil || cmd != want {
		t.Fatalf("%q %v, want %q", cmd, err, want)
	}
	w.LockContention, w.LockContentionUnder, w.IrqsoffHolder = nil, []string{"memory_stat_show"}, "rcu_core"
	cmd, err = AgentCommand(w)
	if want := "/bin/kagent run -lock-contention-under memory_stat_show -irqsoff-holder rcu_core execve " + strings.TrimPrefix(plain, "/bin/kagent run execve "); err != nil || cmd != want {
		t.Fatalf("%q %v, want %q", cmd, err, want)
	}
}

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

// candidates are values to try for a parameter: its default and bounds,
// just past them, each choice, and hostile text.
func candidates(s param.Spec) []string {
	c := []string{s.Default, "", "1; reboot", "2 3", "-1", "0x10", "1e3", "10s"}
	switch s.Kind {
	case param.Int:
		lo, _ := strconv.Atoi(s.Min)
		hi, _ := strconv.Atoi(s.Max)
		c = append(c, s.Min, s.Max, strconv.Itoa(lo-1), strconv.Itoa(hi+1))
	case param.Duration:
		lo, _ := time.ParseDuration(s.Min)
		hi, _ := time.ParseDuration(s.Max)
		c = append(c, s.Min, s.Max, (lo - time.Millisecond).String(), (hi + time.Millisecond).String(), "500ms", "4s")
	case param.Choice:
		c = append(c, s.Choices...)
		c = append(c, strings.ToUpper(s.Default))
	}
	return c
}

// The host and the agent agree for every workload, parameter and value:
// what AgentCommand accepts, kagent's parser accepts from the command
// line AgentCommand wrote (every value one word of it), and what it
// refuses, kagent refuses too. Both are guest/workload's parser today;
// this fails if either side grows a check of its own.
func TestHostAndAgentAgree(t *testing.T) {
	accepted, refused := 0, 0
	for _, wl := range workload.All() {
		for _, s := range wl.Params() {
			if s.Name == sampler.DurationParam {
				continue
			}
			for _, v := range candidates(s) {
				for _, d := range []time.Duration{2 * time.Second, 10 * time.Second} {
					w := config.Workload{Name: wl.Name, Duration: config.Duration(d), Params: map[string]string{s.Name: v}}
					cmd, hostErr := AgentCommand(w)
					args := []string{"-duration", d.String(), "-" + s.Name, v}
					if hostErr == nil {
						f := strings.Fields(cmd)
						if len(f) != 3+len(args) || strings.Join(f[:3], " ") != "/bin/kagent run "+wl.Name {
							t.Errorf("%s %s=%q: command %q does not keep each value one word", wl.Name, s.Name, v, cmd)
							continue
						}
						args = f[3:]
					}
					_, agentErr := wl.Parse(args, workload.GuestEnv("/bin/kagent"), io.Discard)
					if (hostErr == nil) != (agentErr == nil) {
						t.Errorf("%s %s=%q duration %s: host %v, agent %v", wl.Name, s.Name, v, d, hostErr, agentErr)
					}
					if hostErr == nil {
						accepted++
					} else {
						refused++
					}
				}
			}
		}
	}
	// The candidates must exercise both answers, or the test shows nothing.
	if accepted < 20 || refused < 20 {
		t.Fatalf("accepted %d, refused %d candidates", accepted, refused)
	}
}

// Every workload's defaults are a valid experiment, with no params (a
// declared workload with its declaration: TestBenchmarkAgentCommand).
func TestDefaultsValidOnHost(t *testing.T) {
	for _, name := range workload.Names() {
		if w, _ := workload.Lookup(name); w.Declared != "" {
			continue
		}
		cmd, err := AgentCommand(config.Workload{Name: name, Duration: config.Duration(10 * time.Second)})
		if err != nil || cmd != "/bin/kagent run "+name+" -duration 10s" {
			t.Errorf("%s: %q %v", name, cmd, err)
		}
	}
	if _, err := AgentCommand(config.Workload{Name: "rstat", Duration: config.Duration(10 * time.Second), Params: map[string]string{"duration": "5s"}}); err == nil || !strings.Contains(err.Error(), "unknown parameter \"duration\"") {
		t.Errorf("duration in params: %v", err)
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
