package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/bisectreport"
	"github.com/kregress/kregress/results/store"
)

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
