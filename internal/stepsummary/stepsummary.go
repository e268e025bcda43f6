// Package stepsummary appends Markdown to GitHub Actions' job summary
// ($GITHUB_STEP_SUMMARY), which the nightly and the bisect report both
// write to.
package stepsummary

import (
	"fmt"
	"io"
	"os"
)

// Append calls write with the job summary file opened for appending, when
// GitHub Actions set $GITHUB_STEP_SUMMARY; elsewhere it does nothing.
func Append(write func(io.Writer) error) error {
	path := os.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	return nil
}
