package flagkit

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kregress/kregress/internal/outfile"
	"github.com/kregress/kregress/internal/usage"
)

// Outputs are a command's -f and -o, the same in every command:
//
//   - -f/--format FMT chooses what goes to stdout (a table by default);
//   - -o/--output FMT=FILE, repeatable, writes FMT to FILE as well
//     (nightly -o junit=r.xml -o markdown=r.md); a bare -o FILE writes
//     -f's format to FILE instead of stdout (diff -f html -o r.html).
type Outputs struct {
	// Format is -f's value, Values -o's.
	Format string
	Values []string
	// Stdout are the formats -f takes (the first is the default; none:
	// the command has no -f); Files those -o FMT=FILE takes.
	Stdout, Files []string
}

// Output is one -o: Format into Path.
type Output struct {
	Format, Path string
	// Target is the absolute file written (a symbolic link's target).
	Target string
	// Bare is a -o FILE that took -f's format.
	Bare bool
}

// NewOutputs gives fs -f (when stdout names formats) and -o.
func NewOutputs(fs *pflag.FlagSet, stdout, files []string) *Outputs {
	o := &Outputs{Stdout: stdout, Files: files}
	if len(stdout) > 0 {
		FormatVar(fs, &o.Format, stdout)
	}
	help := "write `FMT=FILE` as well (FMT: " + OrList(files) + "); repeat for more"
	if len(stdout) > 0 {
		help += "; a bare FILE gets -f's format instead of stdout"
	}
	fs.StringArrayVarP(&o.Values, "output", "o", nil, help)
	return o
}

// Resolve checks -f and -o: the format for stdout ("" when a bare -o
// FILE takes it) and the files to write, each a report file that may be
// written (outfile.Target). Formats are case-insensitive; every
// refusal is a usage error.
func (o *Outputs) Resolve() (string, []Output, error) {
	stdout := o.Format
	var files []Output
	for _, v := range o.Values {
		format, path, ok := strings.Cut(v, "=")
		switch {
		case !ok && len(o.Stdout) == 0:
			return "", nil, usage.Errorf("-o %s: give FMT=FILE, FMT one of %s", v, OrList(o.Files))
		case !ok && stdout == "" && o.Format != "":
			return "", nil, usage.Errorf("-o %s: only one bare -o FILE (it takes -f's format); name the others' formats: -o FMT=FILE", v)
		case !ok:
			format, path = stdout, v
			stdout = ""
		}
		format = strings.ToLower(format)
		if !slices.Contains(o.Files, format) {
			return "", nil, usage.Errorf("-o %s: format %q: want %s", v, format, OrList(o.Files))
		}
		if path == "" {
			return "", nil, usage.Errorf("-o %s: no file name", v)
		}
		// Checked now, before anything is measured: a nightly must not
		// measure for an hour and then find its report cannot be written.
		target, err := outfile.Target(path)
		if err != nil {
			return "", nil, usage.Errorf("-o %s: %w", v, err)
		}
		for _, f := range files {
			if f.Target == target {
				return "", nil, usage.Errorf("-o %s: %s is already written by -o %s=%s (one format per file)", v, path, f.Format, f.Path)
			}
		}
		files = append(files, Output{Format: format, Path: path, Target: target, Bare: !ok})
	}
	return stdout, files, nil
}

// Emit renders what -f and -o asked for (Resolve's stdout format and
// files): the stdout format to stdout ("" when a bare -o FILE took it),
// then every file (WriteFiles, saying on wrote what it wrote).
func Emit(stdout, wrote io.Writer, format string, files []Output, render func(format string, w io.Writer) error) error {
	if format != "" {
		if err := render(format, stdout); err != nil {
			return err
		}
	}
	return WriteFiles(wrote, files, render)
}

// WriteFiles writes every file output: what render makes of its format,
// written as it renders into a temporary file renamed into place
// (outfile.WriteFrom), so a failure leaves the file as it was and a
// long report is not held in memory. It says on wrote which files it
// wrote ("kregress: wrote PATH").
func WriteFiles(wrote io.Writer, files []Output, render func(format string, w io.Writer) error) error {
	for _, o := range files {
		var renderErr error
		err := outfile.WriteFrom(o.Path, func(w io.Writer) error {
			renderErr = render(o.Format, w)
			return renderErr
		})
		if renderErr != nil {
			return fmt.Errorf("%s: %w", o.Path, renderErr)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(wrote, "kregress: wrote %s\n", o.Path)
	}
	return nil
}

// PathFor is the file -o writes format into ("": none asked for it),
// e.g. the night's HTML page, whose directory gets the reports it links.
func PathFor(files []Output, format string) string {
	for _, f := range files {
		if f.Format == format {
			return f.Path
		}
	}
	return ""
}
