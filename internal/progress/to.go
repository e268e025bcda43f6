package progress

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Formats are the --log-format values: auto (a terminal gets updating
// lines, anything else slog text lines), text and json (slog lines,
// even on a terminal).
var Formats = []string{"auto", "text", "json"}

// For is the Reporter a command prints its progress with on w (its
// stderr) in format (one of Formats; "" is auto): To, with terminal true
// when w is a terminal and format auto.
func For(w io.Writer, quiet bool, format string) Reporter {
	f, isFile := w.(*os.File)
	switch {
	case quiet:
		return To(w, false, true)
	case format == "json":
		return slogReporter(slog.New(slog.NewJSONHandler(w, nil)))
	case format == "text" || !isFile:
		return To(w, false, false)
	}
	if _, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err != nil {
		return To(w, false, false) // a file or a pipe, not a terminal
	}
	l := &liveLine{w: w, now: time.Now, width: func() int {
		ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
		if err != nil {
			return 0
		}
		return int(ws.Col)
	}}
	return l.report
}

// To prints progress on w: updating lines for a person at a terminal,
// slog lines (for CI logs) otherwise; quiet prints only Warnings, which
// change what a verdict is about and so are never hidden.
func To(w io.Writer, terminal, quiet bool) Reporter {
	switch {
	case quiet:
		return func(_ string, args ...any) {
			if warn, ok := AsWarning(args); ok {
				fmt.Fprintln(w, warn)
			}
		}
	case terminal:
		l := &liveLine{w: w, now: time.Now, width: func() int { return 0 }}
		return l.report
	}
	return slogReporter(slog.New(slog.NewTextHandler(w, nil)))
}

// slogReporter logs each line at INFO, a Warning at WARN.
func slogReporter(log *slog.Logger) Reporter {
	return func(format string, args ...any) {
		if warn, ok := AsWarning(args); ok {
			log.Warn(string(warn))
			return
		}
		log.Info(fmt.Sprintf(format, args...))
	}
}
