package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kregress/kregress/internal/usage"
)

// Output vocabulary, the same in every command (issue 28):
//
//   - -f/--format FMT chooses what goes to stdout (a table by default);
//     --json is the shorthand for -f json where a command lists or shows;
//   - -o/--output FMT=FILE, repeatable, writes FMT to FILE as well
//     (nightly -o junit=r.xml -o markdown=r.md); a bare -o FILE writes
//     -f's format to FILE instead of stdout (diff -f html -o r.html).
//
// Files are written through a temporary file renamed into place
// (writeFileAtomic): a failure never empties one. The spellings from
// before (nightly --junit FILE, bisect --markdown FILE, ...) are hidden
// aliases of -o FMT=FILE that warn.

// outputFlags are a command's -f and -o.
type outputFlags struct {
	format  string
	outputs []string
	// stdout are the formats -f takes (the first is the default; none:
	// the command has no -f); files those -o FMT=FILE takes.
	stdout, files []string
}

// fileOutput is one -o: format FMT into path.
type fileOutput struct {
	format, path string
	// target is the absolute file written (a symbolic link's target).
	target string
	// bare is a -o FILE that took -f's format.
	bare bool
}

// addOutputFlags gives cmd -f (when stdout names formats) and -o.
func addOutputFlags(cmd *cobra.Command, stdout, files []string) *outputFlags {
	o := &outputFlags{stdout: stdout, files: files}
	f := cmd.Flags()
	if len(stdout) > 0 {
		formatFlag(cmd, &o.format, stdout)
	}
	help := "write `FMT=FILE` as well (FMT: " + orList(files) + "); repeat for more"
	if len(stdout) > 0 {
		help += "; a bare FILE gets -f's format instead of stdout"
	}
	f.StringArrayVarP(&o.outputs, "output", "o", nil, help)
	return o
}

// formatValue is -f: one of a command's formats, any case, refused at
// parse time otherwise (exit 2).
type formatValue struct {
	v       *string
	allowed []string
}

func (f formatValue) String() string { return *f.v }
func (f formatValue) Type() string   { return "FMT" }
func (f formatValue) Set(s string) error {
	if !slices.Contains(f.allowed, strings.ToLower(s)) {
		return fmt.Errorf("want %s", orList(f.allowed))
	}
	*f.v = strings.ToLower(s)
	return nil
}

// formatFlag adds -f/--format to cmd, one of formats (the first is the
// default), into v.
func formatFlag(cmd *cobra.Command, v *string, formats []string) {
	*v = formats[0]
	cmd.Flags().VarP(formatValue{v, formats}, "format", "f", "what to print on stdout: "+orList(formats))
}

// outputAlias adds --old FILE as a hidden, deprecated spelling of
// -o format=FILE.
func outputAlias(cmd *cobra.Command, old, format string) {
	f := cmd.Flags()
	o := f.Lookup("output")
	f.AddFlag(&pflag.Flag{Name: old, Usage: "write " + format + " to FILE", Value: prefixValue{o, format + "="},
		Hidden: true, Deprecated: "use -o " + format + "=FILE"})
}

// prefixValue forwards FILE to -o as FMT=FILE.
type prefixValue struct {
	target *pflag.Flag
	prefix string
}

func (p prefixValue) String() string { return "" }
func (p prefixValue) Type() string   { return "string" }
func (p prefixValue) Set(s string) error {
	p.target.Changed = true
	return p.target.Value.Set(p.prefix + s)
}

// resolve checks -f and -o: the format for stdout ("" when a bare -o
// FILE takes it) and the files to write. Formats are case-insensitive.
func (o *outputFlags) resolve() (string, []fileOutput, error) {
	stdout := o.format
	var files []fileOutput
	for _, v := range o.outputs {
		format, path, ok := strings.Cut(v, "=")
		switch {
		case !ok && len(o.stdout) == 0:
			return "", nil, usage.Errorf("-o %s: give FMT=FILE, FMT one of %s", v, orList(o.files))
		case !ok && stdout == "" && o.format != "":
			return "", nil, usage.Errorf("-o %s: only one bare -o FILE (it takes -f's format); name the others' formats: -o FMT=FILE", v)
		case !ok:
			format, path = stdout, v
			stdout = ""
		}
		format = strings.ToLower(format)
		if !slices.Contains(o.files, format) {
			return "", nil, usage.Errorf("-o %s: format %q: want %s", v, format, orList(o.files))
		}
		if path == "" {
			return "", nil, usage.Errorf("-o %s: no file name", v)
		}
		// Checked now, before anything is measured: a nightly must not
		// measure for an hour and then find its report cannot be written.
		target, err := outputTarget(path)
		if err != nil {
			return "", nil, usage.Errorf("-o %s: %w", v, err)
		}
		for _, f := range files {
			if f.target == target {
				return "", nil, usage.Errorf("-o %s: %s is already written by -o %s=%s (one format per file)", v, path, f.format, f.path)
			}
		}
		files = append(files, fileOutput{format: format, path: path, target: target, bare: !ok})
	}
	return stdout, files, nil
}

// sqliteMagic starts every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// outputTarget is the file an -o path writes: the path, or the regular
// file its symbolic link points to (the link is kept). It refuses what
// a report must never replace: "-" and anything not a regular file (a
// device such as /dev/stdout or /dev/null, a pipe, a directory; the
// report is written by renaming a temporary file over its target, which
// would replace the device itself), a SQLite database (a results store:
// writing a report over it loses every run), and a path whose directory
// does not exist.
func outputTarget(path string) (string, error) {
	if path == "-" {
		return "", errors.New(`"-" is not a file: for standard output give -f FMT instead of -o`)
	}
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	switch {
	case err == nil && st.IsDir():
		return "", fmt.Errorf("%s is a directory (give a file name)", path)
	case err == nil && !st.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a regular file (a device, pipe or socket): reports are written to files; for standard output give -f FMT", path)
	case err == nil:
		if isSQLite(abs) {
			return "", fmt.Errorf("%s is a SQLite database (a results store?): a report never replaces it", path)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	if st, err := os.Stat(filepath.Dir(abs)); err != nil || !st.IsDir() {
		return "", fmt.Errorf("the directory of %s does not exist", path)
	}
	return abs, nil
}

// isSQLite reports whether the file at path starts with SQLite's magic.
func isSQLite(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == sqliteMagic
}

// orList is "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// writeOutputs renders every file output through render and writes it
// in place; each file is rendered whole first, so a failure leaves the
// file as it was. It says on errw what it wrote.
func writeOutputs(errw io.Writer, files []fileOutput, render func(format string, w io.Writer) error) error {
	for _, o := range files {
		var buf bytes.Buffer
		if err := render(o.format, &buf); err != nil {
			return fmt.Errorf("%s: %w", o.path, err)
		}
		// Checked again: the file may have changed while the command ran.
		target, err := outputTarget(o.path)
		if err != nil {
			return usage.Errorf("-o %s: %w", o.path, err)
		}
		if err := writeFileAtomic(target, func(f *os.File) error { _, err := f.Write(buf.Bytes()); return err }); err != nil {
			return err
		}
		fmt.Fprintf(errw, "kregress: wrote %s\n", o.path)
	}
	return nil
}

// jsonFlag gives a command that lists or shows -f table|json and --json,
// its shorthand: the same content as its table, as one indented JSON
// document on stdout, for scripts (field names are the Go structs' json
// tags, stable across releases like the export format's).
func jsonFlag(cmd *cobra.Command) { jsonFlagBeside(cmd, "table", "the table") }

// jsonFlagBeside is jsonFlag for a command whose own output is not a
// table (config prints YAML, version a line): -f human|json, human the
// default (what says what it is in --json's help), and --json.
func jsonFlagBeside(cmd *cobra.Command, human, what string) {
	formatFlag(cmd, new(string), []string{human, "json"})
	cmd.Flags().Bool("json", false, "print JSON instead of "+what+" (-f json)")
	// --json -f table printed JSON without a word: refuse the pair.
	cmd.MarkFlagsMutuallyExclusive("json", "format")
}

// wantJSON reports whether --json or -f json was given.
func wantJSON(cmd *cobra.Command) bool {
	b, _ := cmd.Flags().GetBool("json")
	f := cmd.Flags().Lookup("format")
	return b || (f != nil && f.Value.String() == "json")
}

// writeJSON writes v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
