package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/regularfile"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
)

// sniffBytes is how much of a stray argument's file runArgs reads to
// tell an experiment from a patch.
const sniffBytes = 8 << 10

// runArgs is run's Args: it takes no positional argument, and one given
// was most likely an experiment meant for -c or a patch meant for
// --patch (kregress run my-branch.yaml): the refusal names the flag, by
// what the word is, before anything is read or built.
func runArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	arg := args[0]
	switch strayKind(arg) {
	case strayExperiment:
		return usage.Errorf("%s takes no argument: %q is an experiment, give it with -c: %s -c %s", cmd.CommandPath(), arg, cmd.CommandPath(), arg)
	case strayPatch:
		return usage.Errorf("%s takes no argument: %q is a patch, give it with --patch: %s --patch %s", cmd.CommandPath(), arg, cmd.CommandPath(), arg)
	}
	return usage.Errorf("%s takes no argument, not %q: an experiment (a built-in name or a YAML file) goes with -c FILE, a patch with --patch FILE", cmd.CommandPath(), arg)
}

// What a stray argument to run looks like.
const (
	strayUnknown = iota
	strayExperiment
	strayPatch
)

// strayKind says whether arg names an experiment (a built-in one, a
// .yaml file, a file of experiment keys) or a patch (a .patch, .diff or
// mbox file, a file that reads as a diff or a mail, a directory: of
// *.patch or a quilt series), by its name first and else by at most
// sniffBytes of its content. Only a regular file is read.
func strayKind(arg string) int {
	if slices.Contains(config.Experiments(), arg) {
		return strayExperiment
	}
	switch strings.ToLower(filepath.Ext(arg)) {
	case ".yaml", ".yml":
		return strayExperiment
	case ".patch", ".diff", ".mbox", ".eml":
		return strayPatch
	}
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		return strayPatch
	}
	f, _, err := regularfile.Open(arg)
	if err != nil {
		return strayUnknown
	}
	defer f.Close()
	head, _ := io.ReadAll(io.LimitReader(f, sniffBytes))
	for _, line := range bytes.Split(head, []byte("\n")) {
		switch {
		case bytes.HasPrefix(line, []byte("diff --git ")), bytes.HasPrefix(line, []byte("--- ")), bytes.HasPrefix(line, []byte("Subject: [PATCH")), bytes.HasPrefix(line, []byte("From ")) && bytes.Contains(head, []byte("\nSubject:")):
			return strayPatch
		case bytes.HasPrefix(line, []byte("experiment:")), bytes.HasPrefix(line, []byte("families:")), bytes.HasPrefix(line, []byte("family:")), bytes.HasPrefix(line, []byte("workload:")):
			return strayExperiment
		}
	}
	return strayUnknown
}
