package format

// What kregress run and seeds print of a session as it goes, around each
// run's diff (session.Session.Run, Show, RunSeeds).

import (
	"fmt"
	"io"
	"strings"
)

// WriteDebugPass announces the correctness gate's debug pass of a run
// as it starts: every variant built with fragments, one boot each of a
// workload of duration.
func WriteDebugPass(w io.Writer, fragments []string, duration fmt.Stringer) {
	fmt.Fprintf(w, "\ndebug pass of the correctness gate: every variant built with %s, one boot each (%s workload)\n\n", strings.Join(fragments, ", "), duration)
}

// WriteNoDebugPass says that a run had no debug pass of the correctness
// gate because debug.pass is auto and its family does not change locking.
func WriteNoDebugPass(w io.Writer) {
	fmt.Fprintf(w, "\nno debug pass (lockdep kernels): debug.pass is auto and this family is not marked changes_locking; --debug.pass on adds one boot per variant of a debug kernel (a cold build each)\n")
}

// WriteRunStored says where a measured run was stored, before its diff.
func WriteRunStored(w io.Writer, id int64, where string) {
	fmt.Fprintf(w, "\nrun %d stored in %s\n\n", id, where)
}

// WriteDebugRunStored says where the debug pass's run was stored, before
// its diff.
func WriteDebugRunStored(w io.Writer, id int64, where string) {
	fmt.Fprintf(w, "\ndebug pass: run %d stored in %s\n\n", id, where)
}

// WriteDetached says that run id's cells were handed to a scheduler and
// store themselves into where, and how to follow the run.
func WriteDetached(w io.Writer, id int64, where string) {
	fmt.Fprintf(w, "run %d submitted; its cells store themselves into %s as they end.\nFollow it with `kregress results show %d`; `kregress diff %d` once it is complete.\n", id, where, id, id)
}

// WriteSeedRun heads the diff of experiment name of kregress seeds,
// stored as run id.
func WriteSeedRun(w io.Writer, name string, id int64) {
	fmt.Fprintf(w, "\n=== %s: run %d\n", name, id)
}
