package progress

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"
)

// For is the Reporter a command prints its progress with on w (its
// stderr): To, with terminal true when w is a character device.
func For(w io.Writer, quiet bool) Reporter {
	terminal := false
	if f, ok := w.(*os.File); ok {
		st, err := f.Stat()
		terminal = err == nil && st.Mode()&os.ModeCharDevice != 0
	}
	return To(w, terminal, quiet)
}

// To prints progress on w: timestamped lines for a person at a terminal,
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
		return func(format string, args ...any) {
			fmt.Fprintf(w, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
		}
	}
	log := slog.New(slog.NewTextHandler(w, nil))
	return func(format string, args ...any) {
		if warn, ok := AsWarning(args); ok {
			log.Warn(string(warn))
			return
		}
		log.Info(fmt.Sprintf(format, args...))
	}
}
