package main

import (
	"context"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/variants"
)

// firstBuild, when not nil, is what nightly and bisect (the commands
// that have no --dry-run) meet at their first kernel build, instead of
// building: the docs test runs every documented command line so, through
// its whole set-up (configuration, tree and refs, store, outputs) and no
// further. nil in kregress: they build.
var firstBuild error

// stoppedAtBuild is a nightly.Runner and a bisect.Prober that fail with
// err where they would build.
type stoppedAtBuild struct{ err error }

func (s stoppedAtBuild) Run(context.Context, *config.Config, *variants.Selection) (int64, error) {
	return 0, s.err
}

func (s stoppedAtBuild) Resume(context.Context, *config.Config, *variants.Selection, int64) error {
	return s.err
}

func (s stoppedAtBuild) Build(context.Context, string) (string, error) { return "", s.err }

func (s stoppedAtBuild) Measure(context.Context, string, string, string, int) (*bisect.Samples, error) {
	return nil, s.err
}
