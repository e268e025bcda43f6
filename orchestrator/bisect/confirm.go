package bisect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kregress/kregress/internal/lines"
	"github.com/kregress/kregress/results/bisectreport"
)

// Confirmation by revert (KernelCI's check): once a culprit is named, the
// bad endpoint is built with the culprit reverted and measured against
// both endpoints, look by look as a bisect step is (revertCall decides).
// Only a revert called like good confirms the culprit; a revert like bad
// refutes it (the change is elsewhere too, or the call was wrong); a
// revert between good and bad confirms it as one change of more than one
// (RevertBetween: the bisect then says so and gives the range still to
// bisect); a revert that does not apply, does not build, or is not
// called leaves it unconfirmed, and says which.

// Confirmation is the revert's result, stored with the bisect.
type Confirmation struct {
	Outcome bisectreport.ConfirmOutcome `json:"outcome"`
	// Revert names the reverted kernel: the revert commit on top of bad
	// (commit mode), or the series without the culprit patch.
	Revert string `json:"revert,omitempty"`
	Why    string `json:"why"`
	// Step is the revert measured as a bisect step (its looks, test and
	// verdict); nil when it was not measured.
	Step *Step `json:"step,omitempty"`
}

// String is the confirmation in one line, as its report says it.
func (c *Confirmation) String() string {
	if c == nil {
		return (*bisectreport.Confirmation)(nil).String()
	}
	return (&bisectreport.Confirmation{Outcome: c.Outcome, Why: c.Why}).String()
}

// Report is the confirmation as the culprit report states it: the
// outcome and the revert's figures; its looks stay in the bisect's
// state.
func (c *Confirmation) Report() (*bisectreport.Confirmation, error) {
	r := &bisectreport.Confirmation{Outcome: c.Outcome, Revert: c.Revert, Why: c.Why}
	if c.Step != nil {
		s := *c.Step
		s.Looks, s.Samples, s.GoodSamples, s.BadSamples = nil, nil, nil, nil
		step, err := json.Marshal(&s)
		if err != nil {
			return nil, fmt.Errorf("bisect: the revert's step: %w", err)
		}
		r.Step = step
	}
	return r, nil
}

// RevertError: the culprit cannot be reverted on the bad endpoint.
type RevertError struct {
	Culprit string
	Output  string
}

func (e *RevertError) Error() string {
	// git apply -3 lists each file left conflicted as "U FILE"; its
	// "error: ..." lines name what it could not merge at all (a file the
	// culprit changed that a later commit deleted, a blob the repository
	// lacks). Either names the places; its other lines repeat them.
	var conflicts, errs []string
	for _, l := range strings.Split(e.Output, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "U "):
			conflicts = append(conflicts, strings.TrimPrefix(l, "U "))
		case strings.HasPrefix(l, "error: "):
			errs = append(errs, l)
		}
	}
	var why string
	switch {
	case len(conflicts) > 0:
		why = "conflict in " + strings.Join(conflicts, ", ")
		if len(errs) > 0 {
			why += "; " + strings.Join(errs, "; ")
		}
	case len(errs) > 0:
		why = strings.Join(errs, "; ")
	default:
		why = lines.First(strings.TrimSpace(e.Output))
	}
	return fmt.Sprintf("reverting %.12s does not apply on the bad endpoint: %s", e.Culprit, why)
}

// pointAdder is a Prober that can be told of a point made after the
// bisect started (the revert).
type pointAdder interface {
	AddPoint(name string, pt Point)
}

// AddPoint implements pointAdder.
func (p *PipelineProber) AddPoint(name string, pt Point) {
	if p.Points == nil {
		p.Points = map[string]Point{}
	}
	p.Points[name] = pt
}

// Reverter makes the revert point of a culprit (RevertPoint; fakes in
// tests).
type Reverter func(ctx context.Context, spec *Spec, culprit string) (Point, string, error)

// RevertPoint is the bad endpoint with culprit reverted. In commit mode it
// is the commit git revert makes of culprit on the bad commit
// (revertCommit), kept under refs/kregress/revert/ (so a resumed bisect
// finds it and git gc keeps it); in series mode it is the whole series
// without the culprit patch. It returns the point and a
// description; a *RevertError when the revert does not apply.
func RevertPoint(ctx context.Context, spec *Spec, culprit string) (Point, string, error) {
	bad := spec.Names[len(spec.Names)-1]
	if spec.Series {
		cp := spec.Points[culprit].Patches
		if len(cp) == 0 {
			return Point{}, "", fmt.Errorf("bisect: culprit %s has no patch", culprit)
		}
		drop := cp[len(cp)-1]
		var keep []string
		for _, p := range spec.Points[bad].Patches {
			if p != drop {
				keep = append(keep, p)
			}
		}
		// A later patch that needs the dropped one fails to apply when
		// the point is built: the prober's *BuildError names the patch.
		return Point{Ref: spec.Points[bad].Ref, Patches: keep}, fmt.Sprintf("the series without patch %s", culprit), nil
	}
	gd := gitDir(spec.GitTree)
	ref := "refs/kregress/revert/" + culprit + "-on-" + bad
	desc := func(c string) string { return fmt.Sprintf("%.12s (culprit %.12s reverted on %.12s)", c, culprit, bad) }
	if out, err := gitOut(ctx, gd, nil, nil, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err == nil {
		c := strings.TrimSpace(string(out))
		return revertPoint(spec, c), desc(c), nil
	}
	c, err := revertCommit(ctx, gd, bad, culprit)
	if err != nil {
		return Point{}, "", err
	}
	if out, err := gitOut(ctx, gd, nil, nil, "update-ref", ref, c); err != nil {
		return Point{}, "", fmt.Errorf("bisect: keeping the revert as %s: %v: %s", ref, err, out)
	}
	return revertPoint(spec, c), desc(c), nil
}

// revertCommit makes the commit git revert would make of culprit on bad,
// in a temporary index: bad's tree, culprit's diff applied in reverse,
// committed with git revert's message. No worktree is checked out (a
// kernel tree's checkout costs a minute and a gigabyte), and the user's
// checkout and index are not touched. Like git revert it merges three
// ways (git apply -3, from the blobs the full-index diff names): a later
// commit that changed lines beside the culprit's, inside its diff's
// context, does not stop it; one that changed the culprit's own lines
// leaves a conflict, which is a *RevertError ("does not apply") naming
// the files, never a guess. A merge culprit is
// reverted against its first parent (git revert -m 1), the side the
// first-parent bisect walked.
func revertCommit(ctx context.Context, gd, bad, culprit string) (string, error) {
	tmp, err := os.MkdirTemp("", "kregress-revert-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index"),
		"GIT_AUTHOR_NAME=kregress", "GIT_AUTHOR_EMAIL=kregress@localhost", "GIT_COMMITTER_NAME=kregress", "GIT_COMMITTER_EMAIL=kregress@localhost"}
	if out, err := gitOut(ctx, gd, env, nil, "read-tree", bad); err != nil {
		return "", fmt.Errorf("bisect: git read-tree %.12s: %v: %s", bad, err, out)
	}
	diff, err := gitOut(ctx, gd, nil, nil, "diff", "--binary", "--full-index", culprit+"^", culprit)
	if err != nil {
		return "", fmt.Errorf("bisect: git diff of %.12s: %v: %s", culprit, err, diff)
	}
	if out, err := gitOut(ctx, gd, env, diff, "apply", "--cached", "--3way", "--reverse", "-"); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &RevertError{Culprit: culprit, Output: string(out)}
	}
	tree, err := gitOut(ctx, gd, env, nil, "write-tree")
	if err != nil {
		return "", fmt.Errorf("bisect: git write-tree: %v: %s", err, tree)
	}
	subject, _ := gitOut(ctx, gd, nil, nil, "show", "-s", "--format=%s", culprit)
	msg := fmt.Sprintf("Revert \"%s\"\n\nThis reverts commit %s.\n\n(made by kregress bisect to confirm its culprit)\n", strings.TrimSpace(string(subject)), culprit)
	out, err := gitOut(ctx, gd, env, []byte(msg), "commit-tree", strings.TrimSpace(string(tree)), "-p", bad)
	if err != nil {
		return "", fmt.Errorf("bisect: git commit-tree: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// gitOut runs git on the repository gd with extra environment and stdin;
// stdout alone on success, the combined output on failure.
func gitOut(ctx context.Context, gd string, env []string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir", gd}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return append(stdout.Bytes(), stderr.Bytes()...), err
	}
	return stdout.Bytes(), nil
}

// revertPoint is the revert commit with the bad endpoint's patches (a
// variant's) on top.
func revertPoint(spec *Spec, commit string) Point {
	bad := spec.Points[spec.Names[len(spec.Names)-1]]
	return Point{Ref: commit, Patches: bad.Patches}
}

// revertName is the revert's point name: never a commit id or a series
// prefix, so it cannot collide with one.
func revertName(culprit string) string { return "revert:" + culprit }

// Confirm confirms res.Culprit by revert (confirm) and keeps the
// outcome on res: its Confirmation, and the more-than-one-change note a
// revert that leaves the bad endpoint between good and bad adds
// (noteRevert). The Runner calls it after every named culprit; the
// calibration bench calls it on simulated boots. An error is confirm's.
func Confirm(ctx context.Context, p Prober, revert Reverter, spec *Spec, res *Result, opts Options) error {
	c, err := confirm(ctx, p, revert, spec, res, opts)
	if err != nil {
		return err
	}
	res.Confirmation = c
	noteRevert(res, spec.Names, c)
	return nil
}

// confirm reverts res.Culprit on the bad endpoint and measures the revert
// as a step. An error is an infrastructure failure (or an interrupt): the
// confirmation is then not stored and a resume runs it again.
func confirm(ctx context.Context, p Prober, revert Reverter, spec *Spec, res *Result, opts Options) (*Confirmation, error) {
	opts = opts.withDefaults()
	opts.Range = len(spec.Names) - 1
	good, bad := spec.Names[0], spec.Names[len(spec.Names)-1]
	pt, desc, err := revert(ctx, spec, res.Culprit)
	var re *RevertError
	switch {
	case errors.As(err, &re):
		return &Confirmation{Outcome: bisectreport.RevertConflict, Why: re.Error()}, nil
	case err != nil:
		return nil, err
	}
	name := revertName(res.Culprit)
	pa, ok := p.(pointAdder)
	if !ok {
		return nil, errors.New("bisect: this prober cannot measure a revert")
	}
	pa.AddPoint(name, pt)
	c := &Confirmation{Revert: desc}
	opts.phase("confirm", fmt.Sprintf("bisect confirming %.12s by revert", res.Culprit), 0, "bisect: confirming %.12s: measuring the bad endpoint with it reverted (%s)", res.Culprit, desc)
	if _, err := p.Build(ctx, name); err != nil {
		var be *BuildError
		if errors.As(err, &be) {
			c.Outcome, c.Why = bisectreport.RevertNoBuild, "the revert does not build: "+lines.First(be.Err.Error())
			return c, nil
		}
		return nil, err
	}
	step := Step{Commit: name, Index: -2}
	if spec.Crash {
		err = measureCrashStep(ctx, p, &step, crashRate(res.Steps), opts)
	} else {
		// Excluding halfway takes about four times the evidence that
		// tells good from bad (half the distance): the revert gets
		// revertLooks times a step's looks before it is left unsure.
		var reps []int
		for range revertLooks {
			reps = append(reps, opts.StepReps...)
		}
		opts.StepReps = reps
		err = measureCalled(ctx, p, &step, good, bad, priorLooks(res.Steps, ""), opts, revertCall)
	}
	if err != nil {
		return nil, err
	}
	c.Step = &step
	mid := ""
	if t := step.Test; t != nil && t.mid {
		mid = fmt.Sprintf("; halfway between good and bad: log likelihood ratio like good over halfway %.2f, like bad over halfway %.2f", t.goodOverMid, t.badOverMid)
	}
	switch {
	case step.Verdict == Good:
		c.Outcome, c.Why = bisectreport.Confirmed, "with it reverted the bad endpoint is "+step.Why+mid
	case step.Verdict == Bad:
		c.Outcome, c.Why = bisectreport.Refuted, "with it reverted the bad endpoint is still "+step.Why+mid
	case step.Test != nil && step.Test.Outcome == Between:
		c.Outcome, c.Why = bisectreport.RevertBetween, "with it reverted the bad endpoint is between good and bad: "+step.Test.String()+mid
	default:
		c.Outcome, c.Why = bisectreport.RevertUnsure, "the revert got no call ("+string(step.Verdict)+"): "+step.Why+mid
	}
	return c, nil
}

// revertCall is the revert's call after a look. A bisect step is either
// side of the culprit, and its test weighs "like good" against "like
// bad" alone. A revert has a third place: when the range holds two
// changes, reverting one leaves the bad endpoint between good and bad,
// halfway for two equal changes, and a test of good against bad alone
// calls such a revert good or bad by the noise, either way -
// confirming a culprit that is half the change, or refuting one that
// is a change. So the revert is weighed against three hypotheses (a
// sequential test of three, as Armitage's): like good, like bad, and
// halfway (its likelihood as sprt's badOverMid and goodOverMid give
// it). It is like good only when its likelihood ratio reaches the
// step's bound over like bad and over halfway, like bad only when it
// does over like good and over halfway, and between when halfway does
// over both, or the step's own between test finds it there; until then
// it is measured again, and a revert with no call when the looks run
// out is unsure. Each pair's bound is the step's (log((1-e)/e)), so by
// Wald's bound for a known change and spread each wrong call between
// two of the three has probability at most about e: a revert like good
// is called between at most about e of the time (a wrong "more than one
// change"), and one halfway called like good (a confirmed half change)
// at most about e. A revert elsewhere between (one of two unequal
// changes) is called as the nearer of the three. The calibration bench
// (kregress-calibrate -only bisect) measures the rates this gives
// through this code, as docs/bisect.md reports them.
func revertCall(c Comparison) Outcome {
	switch {
	case c.Outcome == Between:
		return Between
	case !c.mid:
		return Unsure
	case c.goodOverMid <= c.Lower && c.badOverMid <= c.Lower:
		return Between
	case c.LLR <= c.Lower && c.goodOverMid >= c.Upper:
		return Same
	case c.LLR >= c.Upper && c.badOverMid >= c.Upper:
		return Different
	}
	return Unsure
}

// revertLooks is how many times a step's looks (Options.StepReps) the
// revert may take before it is left unsure.
const revertLooks = 2
