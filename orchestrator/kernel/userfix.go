package kernel

import "github.com/kregress/kregress/results/verdict"

// A tree that is not a git repository, a ref it does not have and a tree
// with uncommitted changes are the user's to fix (the ref or tree in the
// experiment, a commit or --allow-dirty): kregress exits 2 on them, as on
// any other mistake in what the user gave.

// ExitStatus is a usage error's.
func (e *NotGitError) ExitStatus() verdict.Exit { return verdict.ExitUsage }

// ExitStatus is a usage error's.
func (e *UnknownRefError) ExitStatus() verdict.Exit { return verdict.ExitUsage }

// ExitStatus is a usage error's.
func (e *DirtyError) ExitStatus() verdict.Exit { return verdict.ExitUsage }
