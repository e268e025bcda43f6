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

// WriteLook says that look of looks left metrics unsure (judged at
// alpha each, grey zone up to greyUpper) and that the run now measures
// reps repetitions per variant.
func WriteLook(w io.Writer, look, looks int, unsure []string, alpha, greyUpper float64, reps int) {
	const most = 6
	names := strings.Join(unsure[:min(len(unsure), most)], ", ")
	if len(unsure) > most {
		names += fmt.Sprintf(" and %d more", len(unsure)-most)
	}
	fmt.Fprintf(w, "look %d of %d (alpha %.3g each): unsure (too-few, seen to change, or q in [%.3g, %.2g)): %s: measuring again, %d repetitions per variant in all\n",
		look, looks, alpha, alpha, greyUpper, names, reps)
}

// BudgetStop says that a measurement's budget refused another round of
// about boots boots and minutes (as judging.Minutes writes them) after
// look of looks, the bounds it would have passed (exceeds), and more: how
// to measure more by hand ("" when there is no such command).
func BudgetStop(boots int, minutes string, exceeds []string, look, looks int, more string) string {
	s := fmt.Sprintf("budget: another round (~%d boots, ~%s) would exceed %s: stopping at look %d of %d", boots, minutes, strings.Join(exceeds, " and "), look, looks)
	if more != "" {
		s += "; " + more
	}
	return s
}

// LooksTaken says how a measurement's looks went: taken of planned, why
// it looked no more (judging.Stop's words) and the alpha every look was
// judged at, split over the planned looks whatever the budget did.
func LooksTaken(taken, planned int, why string, alpha float64) string {
	return fmt.Sprintf("looks: %d of %d taken, %s; each judged at alpha %.3g (split over the %d planned)", taken, planned, why, alpha, planned)
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
