package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/bisectreport"
	"github.com/kregress/kregress/results/store"
)

// tinyRepo is a git repository of three commits (not a kernel: the bad
// input below is refused before anything is built).
func tinyRepo(t *testing.T) string {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one"},
		{"tag", "one"},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "two"},
		{"tag", "two"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func TestBisectBadInput(t *testing.T) {
	store := seed(t)
	repo := tinyRepo(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--good", "one", "--bad", "one", "--metric", "reads_per_sec"}, "are the same commit"},
		{[]string{"--good", "two", "--bad", "one", "--metric", "reads_per_sec"}, "is not an ancestor of --bad one"},
		{[]string{"--good", "one", "--bad", "no-such-ref", "--metric", "reads_per_sec"}, "no-such-ref"},
		{[]string{"--good", "one", "--bad", "two"}, "give --metric"},
		{[]string{"--good", "one", "--bad", "two", "--metric", "read_per_sec"}, "--metric read_per_sec: workload rstat reports no such metric"},
		{[]string{"--good", "one", "--bad", "two", "--metric", "reads_per_sec", "--reps", "5,zero"}, "--looks"},
		// Looks too small for alpha: refused before anything builds (the
		// tree is no kernel), naming the boots per look that would do,
		// not "does not reproduce" (exit 7) after the endpoints ran.
		{[]string{"--good", "one", "--bad", "two", "--metric", "reads_per_sec", "--looks", "3"}, "--looks 4"},
		{[]string{"--good", "one", "--bad", "two", "--metric", "reads_per_sec", "--looks", "1,1,1"}, "--looks 2,2,2"},
		{[]string{"--good", "one", "--bad", "two", "--metric", "reads_per_sec", "--alpha", "0"}, "--alpha 0: want a false-call rate in (0, 1)"},
		{[]string{"--good", "one", "--bad", "two", "--metric", "reads_per_sec", "--alpha", "1.5"}, "--alpha 1.5"},
	} {
		out, err := kregress(t, store, append([]string{"bisect", "--git-tree", repo}, c.args...)...)
		if code := exitCodeOf(err); code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.args, code, c.want, out)
		}
	}
	// git bisect run stops on >= 128: a step that cannot measure says so.
	if out, err := kregress(t, store, "bisect", "step", "--kernel.git-tree", repo, "--good", "one", "--bad", "two"); exitCodeOf(err) != 128 || !strings.Contains(out, "give --good, --bad, --metric") {
		t.Errorf("step without a metric: exit %d\n%s", exitCodeOf(err), out)
	}
	if out, err := kregress(t, store, "bisect", "step", "--git-tree", repo, "--good", "two", "--bad", "one", "--metric", "x"); exitCodeOf(err) != 128 || !strings.Contains(out, "not an ancestor") {
		t.Errorf("step with reversed endpoints: exit %d\n%s", exitCodeOf(err), out)
	}
	if out, err := kregress(t, store, "bisect", "step", "--git-tree", repo, "--good", "one", "--bad", "two", "--metric", "x", "--alpha", "0"); exitCodeOf(err) != 128 || !strings.Contains(out, "--alpha 0") {
		t.Errorf("step with --alpha 0: exit %d\n%s", exitCodeOf(err), out)
	}
	if out, err := kregress(t, store, "bisect", "show", "9"); exitCodeOf(err) != 2 || !strings.Contains(out, "no bisect 9") {
		t.Errorf("show of a missing bisect: %v\n%s", err, out)
	}
	os.RemoveAll(filepath.Join(repo, ".git"))
	if out, err := kregress(t, store, "bisect", "--git-tree", repo, "--good", "one", "--bad", "two", "--metric", "reads_per_sec"); exitCodeOf(err) != 2 || !strings.Contains(out, "not a git") {
		t.Errorf("not a repository: %v\n%s", err, out)
	}
}

// bisect list shows a stored bisect with its culprit and confirmation
// (session's TestFindBisect finds it again for nightly --bisect).
func TestListBisects(t *testing.T) {
	path := seed(t)
	store, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	spec := &bisect.Spec{Experiment: "/e.yaml", GitTree: "/linux", Good: "aaaa", Bad: "bbbb", Names: []string{"a", "m", "b"}, Metric: "m1", Variant: "v",
		Titles: map[string]string{"m": "cgroup/rstat: slow (Ann <a@b>)"}, Origin: &bisectreport.Origin{NightRunIDs: []int64{2}}}
	data, _ := json.Marshal(spec)
	state, _ := json.Marshal(&bisect.Result{Culprit: "m", Reproduced: true, Confirmation: &bisect.Confirmation{Outcome: bisectreport.Confirmed, Why: "like good"}})
	b := &results.Bisect{Experiment: "e", Status: results.RunComplete, Spec: string(data), State: string(state)}
	if err := store.CreateBisect(ctx, b); err != nil {
		t.Fatal(err)
	}
	store.SaveBisect(ctx, b)
	store.Close()
	out := mustRun(t, path, "bisect", "list")
	for _, want := range []string{"complete", "/e.yaml", "m1 (v) aaaa..bbbb [nightly runs [2]]", "culprit m cgroup/rstat: slow (Ann <a@b>); confirmed: like good"} {
		if !strings.Contains(out, want) {
			t.Errorf("bisect list lacks %q:\n%s", want, out)
		}
	}
	// --json: the same bisect as data, in list and in show (show with
	// the culprit report).
	var list []struct {
		ID     int64          `json:"id"`
		Status string         `json:"status"`
		Spec   *bisect.Spec   `json:"spec"`
		Result *bisect.Result `json:"result"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, path, "bisect", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != b.ID || list[0].Spec.Metric != "m1" || list[0].Result.Culprit != "m" ||
		list[0].Result.Confirmation.Outcome != bisectreport.Confirmed {
		t.Errorf("bisect list --json: %+v", list)
	}
	var shown struct {
		ID          int64                `json:"id"`
		Result      *bisect.Result       `json:"result"`
		Report      *bisectreport.Report `json:"report"`
		ReportError string               `json:"report_error"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, path, "bisect", "show", "--json", fmt.Sprint(b.ID))), &shown); err != nil {
		t.Fatal(err)
	}
	// /linux is no git tree here: the report cannot name the culprit's
	// author, and show says so instead of failing.
	if shown.ID != b.ID || shown.Result == nil || shown.Result.Culprit != "m" || shown.Report != nil || !strings.Contains(shown.ReportError, "git") {
		t.Errorf("bisect show --json: %+v", shown)
	}
}
