package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// One output vocabulary: -f for stdout, -o FMT=FILE (repeatable) for
// files, a bare -o FILE taking -f's format instead of stdout, and the old
// per-format flags as deprecated aliases of -o FMT=FILE.
func TestOutputFlags(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		stdout string
		files  []fileOutput
		err    string
	}{
		{nil, "table", nil, ""},
		{[]string{"-f", "JSON"}, "json", nil, ""},
		{[]string{"-o", "junit=a.xml", "-o", "Markdown=b.md"}, "table", []fileOutput{{"junit", "a.xml"}, {"markdown", "b.md"}}, ""},
		{[]string{"-f", "junit", "-o", "r.xml"}, "", []fileOutput{{"junit", "r.xml"}}, ""},
		{[]string{"--junit", "a.xml", "--markdown", "b.md"}, "table", []fileOutput{{"junit", "a.xml"}, {"markdown", "b.md"}}, ""},
		{[]string{"-o", "pdf=a.pdf"}, "", nil, `format "pdf": want junit or markdown`},
		{[]string{"-o", "junit="}, "", nil, "no file name"},
		{[]string{"-f", "pdf"}, "", nil, `invalid argument "pdf"`},
	} {
		cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		o := addOutputFlags(cmd, []string{"table", "json", "junit", "markdown"}, []string{"junit", "markdown"})
		outputAlias(cmd, "junit", "junit")
		outputAlias(cmd, "markdown", "markdown")
		var errw bytes.Buffer
		cmd.SetErr(&errw)
		cmd.SetOut(&errw)
		cmd.SetArgs(tc.args)
		err := cmd.Execute()
		var stdout string
		var files []fileOutput
		if err == nil {
			stdout, files, err = o.resolve()
		}
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || stdout != tc.stdout || !reflect.DeepEqual(files, tc.files) {
			t.Errorf("%v: stdout %q, files %v, %v; want %q %v", tc.args, stdout, files, err, tc.stdout, tc.files)
		}
		if strings.HasPrefix(strings.Join(tc.args, " "), "--junit") && !strings.Contains(errw.String(), "use -o junit=FILE") {
			t.Errorf("the old --junit did not warn: %q", errw.String())
		}
	}
}

// diff writes the table on stdout and each -o FMT=FILE beside it;
// results list and show take -f json as --json's long form.
func TestDiffOutputsAndFormatJSON(t *testing.T) {
	store := seed(t)
	md := filepath.Join(t.TempDir(), "d.md")
	out := mustRun(t, store, "diff", "1", "-o", "markdown="+md)
	if !strings.Contains(out, "per-cpu-relock vs stock") || !strings.Contains(out, "wrote "+md) {
		t.Errorf("diff -o markdown=FILE: stdout\n%s", out)
	}
	if data, err := os.ReadFile(md); err != nil || !strings.Contains(string(data), "|") {
		t.Errorf("the markdown file: %v\n%s", err, data)
	}
	for _, args := range [][]string{{"results", "list"}, {"results", "show", "1"}, {"bisect", "list"}} {
		long := mustRun(t, store, append(args, "-f", "json")...)
		short := mustRun(t, store, append(args, "--json")...)
		// The same document (results show's export stamps the time it
		// was saved, so compare the keys).
		var l, s any
		if json.Unmarshal([]byte(long), &l) != nil || json.Unmarshal([]byte(short), &s) != nil || reflect.TypeOf(l) != reflect.TypeOf(s) || len(fmt.Sprint(l)) == 0 {
			t.Errorf("%v: -f json and --json differ or are not JSON:\n%s\n---\n%s", args, long, short)
		}
	}
}
