package nightly

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results/verdict"
)

// The systemd units users copy must pass systemd-analyze verify with no
// complaint at all (it exits 0 on unknown keys, so stderr counts too).
func TestSystemdUnitsVerify(t *testing.T) {
	dir := t.TempDir()
	self, _ := os.Executable() // any executable stands in for kregress
	for _, name := range []string{"kregress-nightly.service", "kregress-nightly.timer"} {
		data, err := os.ReadFile(filepath.Join("wiring", name))
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.ReplaceAll(data, []byte("/usr/local/bin/kregress"), []byte(self))
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	cmd := exec.Command("systemd-analyze", "verify", "--man=no", "./kregress-nightly.service", "./kregress-nightly.timer")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || strings.TrimSpace(stderr.String()) != "" {
		t.Fatalf("systemd-analyze verify (install the Debian package systemd): %v\n%s", err, stderr.String())
	}
}

// The GitHub workflow passes actionlint (a Go tool of this module).
func TestWorkflowLints(t *testing.T) {
	cmd := exec.Command("go", "tool", "actionlint", "-config-file", "wiring/actionlint.yaml", "wiring/github-nightly.yml")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("actionlint: %v\n%s", err, out)
	}
}

// No linter for GitLab CI runs offline: check the job's shape instead.
func TestGitLabJob(t *testing.T) {
	data, err := os.ReadFile("wiring/gitlab-nightly.yml")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]struct {
		Script    []string `yaml:"script"`
		Rules     []map[string]any
		Artifacts struct {
			Reports struct {
				JUnit string `yaml:"junit"`
			} `yaml:"reports"`
		} `yaml:"artifacts"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	job, ok := doc["kregress-nightly"]
	if !ok || len(job.Script) == 0 || !strings.Contains(strings.Join(job.Script, "\n"), "kregress nightly") || job.Artifacts.Reports.JUnit != "nightly.xml" || len(job.Rules) == 0 {
		t.Fatalf("job %+v", job)
	}
}

// The wiring passes today's flags (-o FMT=FILE; --junit, --markdown and
// --json print a deprecation warning every night), a night of the user's
// own experiment file (-c; without it the whole seeds set runs), and no
// KREGRESS_ variable that no key reads (kregress warns of those).
func TestWiringFlags(t *testing.T) {
	for _, name := range []string{"github-nightly.yml", "gitlab-nightly.yml", "kregress-nightly.service"} {
		data, err := os.ReadFile(filepath.Join("wiring", name))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for _, old := range []string{"--junit", "--markdown", "--json", "--git-tree "} {
			if strings.Contains(text, old) {
				t.Errorf("%s passes the deprecated %s", name, old)
			}
		}
		for _, want := range []string{"nightly -c ", "-o junit=", "-o markdown=", "-o json=", "How long:"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		var env []string
		for _, line := range strings.Split(text, "\n") {
			if v, ok := strings.CutPrefix(line, "Environment="); ok {
				env = append(env, v)
			}
		}
		if w := config.UnknownEnv(env); len(w) > 0 {
			t.Errorf("%s: %s", name, strings.Join(w, "; "))
		}
	}
}

// The service counts as run every night that ran and judged: pass,
// regression, kernel failure and unjudged; infrastructure, usage and
// the lock stay failures of the unit.
func TestServiceSuccessExitStatus(t *testing.T) {
	data, err := os.ReadFile("wiring/kregress-nightly.service")
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "SuccessExitStatus="); ok {
			got = v
		}
	}
	want := fmt.Sprintf("%d %d %d", verdict.ExitRegression, verdict.ExitKernelFailure, verdict.ExitUnjudged)
	if got != want {
		t.Errorf("SuccessExitStatus=%s, want %s", got, want)
	}
}
