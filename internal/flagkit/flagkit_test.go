package flagkit

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kregress/kregress/internal/usage"
)

// One output vocabulary: -f for stdout, -o FMT=FILE (repeatable) for
// files, a bare -o FILE taking -f's format instead of stdout, and old
// per-format flags as deprecated aliases of -o FMT=FILE.
func TestOutputs(t *testing.T) {
	// Two names of one file: a report and a link to it.
	report, link := filepath.Join(t.TempDir(), "report.md"), filepath.Join(t.TempDir(), "latest.md")
	if os.WriteFile(report, nil, 0o644) != nil || os.Symlink(report, link) != nil {
		t.Fatal("cannot make a report and a link to it")
	}
	for _, tc := range []struct {
		args   []string
		stdout string
		files  []Output
		err    string
	}{
		{nil, "table", nil, ""},
		{[]string{"-f", "JSON"}, "json", nil, ""},
		{[]string{"-o", "junit=a.xml", "-o", "Markdown=b.md"}, "table", []Output{{Format: "junit", Path: "a.xml"}, {Format: "markdown", Path: "b.md"}}, ""},
		{[]string{"-f", "junit", "-o", "r.xml"}, "", []Output{{Format: "junit", Path: "r.xml", Bare: true}}, ""},
		{[]string{"--junit", "a.xml"}, "table", []Output{{Format: "junit", Path: "a.xml"}}, ""},
		{[]string{"-o", "pdf=a.pdf"}, "", nil, `format "pdf": want junit or markdown`},
		{[]string{"-o", "junit="}, "", nil, "no file name"},
		{[]string{"-o", "junit=-"}, "", nil, "is not a file"},
		{[]string{"-o", "junit=" + report, "-o", "markdown=" + link}, "", nil, "already written by -o junit="},
		{[]string{"-f", "junit", "-o", "a.xml", "-o", "b.xml"}, "", nil, "only one bare -o FILE"},
	} {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		o := NewOutputs(fs, []string{"table", "json", "junit", "markdown"}, []string{"junit", "markdown"})
		OutputAlias(fs, "junit", "junit")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		stdout, files, err := o.Resolve()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !usage.Is(err) {
				t.Errorf("%v: %v, want a usage error with %q", tc.args, err, tc.err)
			}
			continue
		}
		for i := range files {
			if !filepath.IsAbs(files[i].Target) {
				t.Errorf("%v: target %q is not absolute", tc.args, files[i].Target)
			}
			files[i].Target = ""
		}
		if err != nil || stdout != tc.stdout || !reflect.DeepEqual(files, tc.files) {
			t.Errorf("%v: stdout %q, files %+v, %v; want %q %+v", tc.args, stdout, files, err, tc.stdout, tc.files)
		}
	}
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	NewOutputs(fs, []string{"table"}, nil)
	if err := fs.Parse([]string{"-f", "pdf"}); err == nil || !strings.Contains(err.Error(), "want table") {
		t.Errorf("-f pdf: %v", err)
	}
}

// An old spelling sets the new flag, marked changed (the configuration
// binding reads only changed flags), and is hidden and deprecated.
// WriteFiles writes each file's format and says so; a render that fails
// leaves its file as it was and names it.
func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.md"), filepath.Join(dir, "b.xml")
	render := func(f string, w io.Writer) error {
		if f == "bad" {
			return errors.New("cannot")
		}
		_, err := io.WriteString(w, "as "+f)
		return err
	}
	var wrote strings.Builder
	if err := WriteFiles(&wrote, []Output{{Format: "markdown", Path: a}, {Format: "junit", Path: b}}, render); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(b); string(data) != "as junit" || wrote.String() != "kregress: wrote "+a+"\nkregress: wrote "+b+"\n" {
		t.Errorf("%s holds %q; said %q", b, data, wrote.String())
	}
	if err := WriteFiles(&wrote, []Output{{Format: "bad", Path: a}}, render); err == nil || !strings.HasPrefix(err.Error(), a+": ") {
		t.Errorf("a failed render: %v", err)
	}
	if data, _ := os.ReadFile(a); string(data) != "as markdown" {
		t.Errorf("a failed render changed %s: %q", a, data)
	}
}

func TestDeprecatedAlias(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	n := fs.Int("repetitions", 3, "boots per variant")
	DeprecatedAlias(fs, "reps", "repetitions")
	if err := fs.Parse([]string{"--reps", "8"}); err != nil || *n != 8 || !fs.Changed("repetitions") {
		t.Errorf("--reps 8: %v, repetitions %d changed %v", err, *n, fs.Changed("repetitions"))
	}
	if old := fs.Lookup("reps"); !old.Hidden || old.Deprecated != "use --repetitions" {
		t.Errorf("--reps: hidden %v, deprecated %q", old.Hidden, old.Deprecated)
	}
	defer func() {
		if recover() == nil {
			t.Error("an alias of a missing flag did not panic")
		}
	}()
	DeprecatedAlias(fs, "x", "missing")
}

// The help splits a command's own flags from the second kind, and
// prints a bool flag without pflag's [=true|false].
func TestSplitHelp(t *testing.T) {
	root := &cobra.Command{Use: "x", Run: func(*cobra.Command, []string) {}}
	root.Flags().Bool("force", false, "do it")
	root.Flags().Int("vm.cpus", 2, "vCPUs")
	root.Flags().SetAnnotation("vm.cpus", "second", []string{"yes"})
	SplitHelp(root, func(f *pflag.Flag) bool { return len(f.Annotations["second"]) > 0 }, "Configuration keys")
	var b strings.Builder
	root.SetOut(&b)
	root.SetArgs([]string{"--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	help := b.String()
	own, keys, ok := strings.Cut(help, "Configuration keys:")
	if !ok || !strings.Contains(own, "--force") || strings.Contains(own, "--vm.cpus") || !strings.Contains(keys, "--vm.cpus") || strings.Contains(help, "[=true|false]") {
		t.Errorf("help:\n%s", help)
	}
	if got := OrList([]string{"a", "b", "c"}); got != "a, b or c" {
		t.Errorf("OrList: %q", got)
	}
}

func TestDashesForUnderscores(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.SetNormalizeFunc(DashesForUnderscores)
	dir := fs.String("cache-dir", "", "")
	if err := fs.Parse([]string{"--cache_dir", "/c"}); err != nil || *dir != "/c" {
		t.Errorf("--cache_dir: %v, cache-dir %q", err, *dir)
	}
}

// PathFor is the file of a format among -o's, the first when several.
func TestPathFor(t *testing.T) {
	files := []Output{{Format: "json", Path: "n.json"}, {Format: "html", Path: "out/n.html"}, {Format: "html", Path: "other.html"}}
	if got := PathFor(files, "html"); got != "out/n.html" {
		t.Errorf("html: %q", got)
	}
	if got := PathFor(files, "junit"); got != "" {
		t.Errorf("junit, not asked for: %q", got)
	}
}

// Emit renders -f's format to stdout, none when a bare -o FILE took it,
// and then every file.
func TestEmit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.md")
	render := func(f string, w io.Writer) error { _, err := io.WriteString(w, "as "+f+";"); return err }
	for _, c := range []struct {
		format, want string
	}{{"table", "as table;"}, {"", ""}} {
		var out, wrote strings.Builder
		if err := Emit(&out, &wrote, c.format, []Output{{Format: "markdown", Path: path}}, render); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		if out.String() != c.want || string(data) != "as markdown;" || wrote.String() != "kregress: wrote "+path+"\n" {
			t.Errorf("Emit(%q): stdout %q, file %q, said %q", c.format, out.String(), data, wrote.String())
		}
		os.Remove(path)
	}
	if err := Emit(io.Discard, io.Discard, "bad", nil, func(string, io.Writer) error { return errors.New("cannot") }); err == nil {
		t.Error("Emit: a failed stdout render was not an error")
	}
}

// An id flag is 0 when absent and refuses 0, negatives and words when
// given: --resume 0 was read as "no resume".
func TestIDVar(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int64
		ok   bool
	}{{nil, 0, true}, {[]string{"--resume", "12"}, 12, true}, {[]string{"--resume", "0"}, 0, false}, {[]string{"--resume=-3"}, 0, false}, {[]string{"--resume", "x"}, 0, false}} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var id int64
		IDVar(fs, &id, "resume", "run id", "finish run RUN")
		err := fs.Parse(c.args)
		if (err == nil) != c.ok || id != c.want {
			t.Errorf("%v: id %d, err %v; want %d, ok %v", c.args, id, err, c.want, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "is not a run id") {
			t.Errorf("%v: %v does not say what is wrong", c.args, err)
		}
	}
}

// Durations take days: --older-than 30d was refused.
func TestParseDurationDays(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 720 * time.Hour, "1d12h": 36 * time.Hour, "720h": 720 * time.Hour, "90m": 90 * time.Minute, "0d": 0} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"d", "30", "3x", "1d-2h", "1.5d"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("%s: accepted", in)
		}
	}
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	var d time.Duration
	DurationVar(fs, &d, "older-than", 0, "")
	if err := fs.Parse([]string{"--older-than", "30d"}); err != nil || d != 720*time.Hour {
		t.Errorf("--older-than 30d: %v %v", d, err)
	}
}
