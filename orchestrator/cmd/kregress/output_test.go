package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/internal/outfile"
	"github.com/kregress/kregress/results/verdict"
)

// The commands' -f and -o are flagkit.Outputs (tested there): here, that
// resolve hands the callers each file's format and path, and that an old
// per-format flag warns through cobra.
func TestOutputFlags(t *testing.T) {
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	o := addOutputFlags(cmd, []string{"table", "json", "junit", "markdown"}, []string{"junit", "markdown"})
	flagkit.OutputAlias(cmd.Flags(), "junit", "junit")
	var errw bytes.Buffer
	cmd.SetErr(&errw)
	cmd.SetOut(&errw)
	cmd.SetArgs([]string{"--junit", "a.xml", "-o", "Markdown=b.md"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	stdout, files, err := o.Resolve()
	var got []string
	for _, f := range files {
		got = append(got, f.Format+"="+f.Path)
	}
	want := []string{"junit=a.xml", "markdown=b.md"}
	if err != nil || stdout != "table" || !reflect.DeepEqual(got, want) {
		t.Errorf("stdout %q, files %v, %v; want table %v", stdout, files, err, want)
	}
	if !strings.Contains(errw.String(), "use -o junit=FILE") {
		t.Errorf("the old --junit did not warn: %q", errw.String())
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

// What -o must never replace, refused before anything runs (exit 2,
// naming the path): "-", a device (as root, renaming a temporary file
// over /dev/stdout replaced the device with the report), a directory, a
// results store, a path in a missing directory, one file named twice.
// A symbolic link to a report writes the report, keeping the link.
func TestOutputPathsRefused(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kregress.db")
	os.WriteFile(db, []byte(outfile.SQLiteMagic+"rest of a store"), 0o644)
	report := filepath.Join(dir, "report.md")
	os.WriteFile(report, []byte("old"), 0o644)
	link := filepath.Join(dir, "latest.md")
	if err := os.Symlink(report, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"-o", "junit=-"}, "is not a file"},
		{[]string{"-o", "junit=/dev/null"}, "not a regular file"},
		{[]string{"-o", "junit=" + dir}, "is a directory"},
		{[]string{"-o", "junit=" + db}, "SQLite database"},
		{[]string{"-o", "junit=" + filepath.Join(dir, "missing", "r.xml")}, "does not exist"},
		{[]string{"-o", "junit=" + report, "-o", "markdown=" + link}, "already written by -o junit="},
		{[]string{"-f", "junit", "-o", "a.xml", "-o", "b.xml"}, "only one bare -o FILE"},
	} {
		cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		o := addOutputFlags(cmd, []string{"table", "json", "junit", "markdown"}, []string{"junit", "markdown"})
		cmd.SetArgs(tc.args)
		err := cmd.Execute()
		if err == nil {
			_, _, err = o.Resolve()
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || verdict.ExitOf(err) != 2 {
			t.Errorf("%v: %v (exit %d), want exit 2 with %q", tc.args, err, verdict.ExitOf(err), tc.err)
		}
	}
	var errw bytes.Buffer
	files := []flagkit.Output{{Format: "markdown", Path: link}}
	if err := flagkit.WriteFiles(&errw, files, func(_ string, w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if data, _ := os.ReadFile(report); string(data) != "new" {
		t.Fatalf("the link's target holds %q, want the new report", data)
	}
	if data, _ := os.ReadFile(db); !strings.HasPrefix(string(data), outfile.SQLiteMagic) {
		t.Fatal("the store was touched")
	}
}

// Naming a variant a run does not have is the user's mistake: exit 2
// (usage), not 1 (infrastructure). (A run id the store does not hold
// stays exit 1, as docs/faults.md says: TestUsageErrorsExit2.)
func TestDiffOfMissingVariantIsUsage(t *testing.T) {
	store := seed(t)
	for _, args := range [][]string{{"diff", "1/nosuch", "2/stock"}} {
		out, err := kregress(t, store, args...)
		// inProcess reports the exit code as "exit status N".
		if err == nil || err.Error() != "exit status 2" {
			t.Errorf("%v: %v, want exit status 2\n%s", args, err, out)
		}
	}
}
