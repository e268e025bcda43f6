package patches

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// FileDiff is one file's part of a patch, as `git apply` reads it.
type FileDiff struct {
	OldPath string // tree path before the patch; "" when the file is new
	NewPath string // tree path after; "" when the file is deleted
	New     bool
	Deleted bool
	Renamed bool
	Copied  bool
	OldMode string
	NewMode string
	Binary  bool
	Hunks   []Hunk
}

// Path is the file's name for humans: the new path, or the old one when
// the file is deleted.
func (d FileDiff) Path() string {
	if d.NewPath != "" {
		return d.NewPath
	}
	return d.OldPath
}

// SymlinkMode is git's mode of a symbolic link.
const SymlinkMode = "120000"

// MakesSymlink says the diff creates a symlink or writes one (a new file
// of mode 120000, a mode change to it, or a changed link target).
func (d FileDiff) MakesSymlink() bool {
	return d.NewPath != "" && d.NewMode == SymlinkMode
}

// Hunk is one "@@ -a,b +c,d @@" section.
type Hunk struct {
	Number   int // 1-based, within its file
	OldStart int
	OldLines int
	NewStart int
	NewLines int
	Line     int // line of the "@@" header in the patch file
}

// PathError is a patch that names a path outside the tree.
type PathError struct {
	Patch, Path, Why string
}

func (e *PathError) Error() string {
	return fmt.Sprintf("patch %s: refusing path %q: %s (nothing was applied)", e.Patch, e.Path, e.Why)
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// parseDiff reads the file diffs of a unified or git diff. Text before and
// between diffs (a mail, a header, a diffstat) is skipped; hunk bodies are
// counted, so a removed line that starts with "-- " is never mistaken for a
// file header.
func parseDiff(name string, text string) ([]FileDiff, error) {
	p := &diffParser{name: name, rest: text, i: -1}
	for p.next() {
		if err := p.line(p.text); err != nil {
			return nil, err
		}
	}
	return p.diffs, nil
}

// diffParser is parseDiff's state: the line it reads (text, number i
// from 0; the file header and hunk steps move past the lines they
// consume) and the file diff it fills. Lines are cut from rest one at a
// time, as substrings: a patch of millions of short lines costs no
// index of them.
type diffParser struct {
	name      string
	rest      string // the text after the current line
	text      string // the current line, without its \n or \r\n
	i         int
	diffs     []FileDiff
	cur       *FileDiff // the file diff being read; nil before the first header
	gitHeader bool      // cur came from "diff --git" and may still get ---/+++
}

// next moves to the next line; false at the end of the text.
func (p *diffParser) next() bool {
	if p.rest == "" {
		return false
	}
	p.text, p.rest = cutLine(p.rest)
	p.i++
	return true
}

// peek is the line after the current one, without moving.
func (p *diffParser) peek() (string, bool) {
	if p.rest == "" {
		return "", false
	}
	line, _ := cutLine(p.rest)
	return line, true
}

// cutLine cuts the first line off text: the line without its "\n" (and a
// "\r" before it), and what follows.
func cutLine(text string) (line, rest string) {
	line, rest, _ = strings.Cut(text, "\n")
	return strings.TrimSuffix(line, "\r"), rest
}

// line reads lines[i], and with it any lines that belong to it (the +++
// line of a --- line, a hunk's body).
func (p *diffParser) line(line string) error {
	switch {
	case strings.HasPrefix(line, "diff --git "):
		return p.gitDiffLine(line)
	case p.cur != nil && p.gitHeader && p.extendedHeader(line):
		return nil
	case strings.HasPrefix(line, "--- ") && p.nextHasPrefix("+++ "):
		return p.fileHeaders(line)
	case p.cur != nil && strings.HasPrefix(line, "@@ "):
		return p.hunk(line)
	}
	return nil
}

// nextHasPrefix: the line after the current one starts with prefix.
func (p *diffParser) nextHasPrefix(prefix string) bool {
	next, ok := p.peek()
	return ok && strings.HasPrefix(next, prefix)
}

// gitDiffLine starts a file diff at a "diff --git a/X b/Y" line.
func (p *diffParser) gitDiffLine(line string) error {
	oldP, newP, err := gitPaths(strings.TrimPrefix(line, "diff --git "))
	if err != nil {
		return fmt.Errorf("patch %s: line %d: %v", p.name, p.i+1, err)
	}
	p.diffs = append(p.diffs, FileDiff{OldPath: oldP, NewPath: newP})
	p.cur, p.gitHeader = &p.diffs[len(p.diffs)-1], true
	return nil
}

// extendedHeader reads one of git's extended header lines (modes, index,
// rename, copy, binary) into cur, and says whether line was one.
func (p *diffParser) extendedHeader(line string) bool {
	cur := p.cur
	switch {
	case strings.HasPrefix(line, "new file mode "):
		cur.New, cur.OldPath, cur.NewMode = true, "", strings.TrimPrefix(line, "new file mode ")
	case strings.HasPrefix(line, "deleted file mode "):
		cur.Deleted, cur.NewPath, cur.OldMode = true, "", strings.TrimPrefix(line, "deleted file mode ")
	case strings.HasPrefix(line, "old mode "):
		cur.OldMode = strings.TrimPrefix(line, "old mode ")
	case strings.HasPrefix(line, "new mode "):
		cur.NewMode = strings.TrimPrefix(line, "new mode ")
	case strings.HasPrefix(line, "index "):
		// "index abc..def 120000": a changed file keeps its mode,
		// named only here (a symlink's new target, say).
		if f := strings.Fields(line); len(f) == 3 {
			if cur.OldMode == "" {
				cur.OldMode = f[2]
			}
			if cur.NewMode == "" {
				cur.NewMode = f[2]
			}
		}
	case strings.HasPrefix(line, "rename from "):
		cur.Renamed, cur.OldPath = true, unquote(strings.TrimPrefix(line, "rename from "))
	case strings.HasPrefix(line, "rename to "):
		cur.Renamed, cur.NewPath = true, unquote(strings.TrimPrefix(line, "rename to "))
	case strings.HasPrefix(line, "copy from "):
		cur.Copied, cur.OldPath = true, unquote(strings.TrimPrefix(line, "copy from "))
	case strings.HasPrefix(line, "copy to "):
		cur.Copied, cur.NewPath = true, unquote(strings.TrimPrefix(line, "copy to "))
	case strings.HasPrefix(line, "GIT binary patch") || strings.HasPrefix(line, "Binary files "):
		cur.Binary = true
	default:
		return false
	}
	return true
}

// fileHeaders reads a "---" line and the "+++" line after it: a plain
// unified diff's start, or the end of a git diff's header.
func (p *diffParser) fileHeaders(line string) error {
	oldP, err := unifiedPath(strings.TrimPrefix(line, "--- "))
	if err != nil {
		return fmt.Errorf("patch %s: line %d: %v", p.name, p.i+1, err)
	}
	plus, _ := p.peek()
	newP, err := unifiedPath(strings.TrimPrefix(plus, "+++ "))
	if err != nil {
		return fmt.Errorf("patch %s: line %d: %v", p.name, p.i+2, err)
	}
	if !p.gitHeader || p.cur == nil {
		p.diffs = append(p.diffs, FileDiff{OldPath: oldP, NewPath: newP, New: oldP == "", Deleted: newP == ""})
		p.cur = &p.diffs[len(p.diffs)-1]
	} else if err := sameNames(p.cur, oldP, newP); err != nil {
		// git apply takes the names of the ---/+++ lines, a
		// reader of the diff --git line another file: refuse
		// what would make the two disagree.
		return fmt.Errorf("patch %s: line %d: %w", p.name, p.i+1, err)
	}
	p.gitHeader = false
	p.next()
	return nil
}

// hunk reads an "@@" header into cur and skips the hunk's body.
func (p *diffParser) hunk(line string) error {
	m := hunkHeader.FindStringSubmatch(line)
	if m == nil {
		return fmt.Errorf("patch %s: line %d: malformed hunk header %q", p.name, p.i+1, line)
	}
	h := Hunk{Number: len(p.cur.Hunks) + 1, OldStart: atoi(m[1]), OldLines: atoiOr(m[2], 1), NewStart: atoi(m[3]), NewLines: atoiOr(m[4], 1), Line: p.i + 1}
	p.cur.Hunks = append(p.cur.Hunks, h)
	p.gitHeader = false
	return p.skipHunkBody(h)
}

// skipHunkBody moves i past the body of h: its old and new line counts say
// where it ends, and a body that ends early is refused.
func (p *diffParser) skipHunkBody(h Hunk) error {
	oldLeft, newLeft := h.OldLines, h.NewLines
	for oldLeft > 0 || newLeft > 0 {
		if !p.next() {
			return fmt.Errorf("patch %s: hunk #%d of %s (line %d) is cut short: the patch ends inside it", p.name, h.Number, p.cur.Path(), h.Line)
		}
		body := p.text
		switch {
		case strings.HasPrefix(body, `\`): // "\ No newline at end of file"
		case strings.HasPrefix(body, "-"):
			oldLeft--
		case strings.HasPrefix(body, "+"):
			newLeft--
		case strings.HasPrefix(body, " ") || body == "":
			oldLeft--
			newLeft--
		default:
			return fmt.Errorf("patch %s: hunk #%d of %s (line %d) is cut short at line %d (%d old and %d new lines missing)", p.name, h.Number, p.cur.Path(), h.Line, p.i+1, oldLeft, newLeft)
		}
	}
	return nil
}

// MismatchError is a git diff whose "diff --git" line names other files
// than its "---"/"+++" lines. git apply writes the file of the ---/+++
// lines; anything that lists files from the diff --git line (a dry run,
// the workspace reset) would name another one, so such a patch is refused.
type MismatchError struct {
	Header, Line string // the diff --git path and the ---/+++ path
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("the diff --git line names %q but the ---/+++ lines name %q: refusing a patch whose file headers disagree (nothing was applied)", e.Header, e.Line)
}

// sameNames checks the ---/+++ paths of a git diff against its diff --git
// line (and rename/copy lines, which set cur's paths). /dev/null sides are
// the new or deleted file's, which the git header still names.
func sameNames(cur *FileDiff, oldP, newP string) error {
	if oldP != "" && cur.OldPath != "" && oldP != cur.OldPath {
		return &MismatchError{Header: cur.OldPath, Line: oldP}
	}
	if newP != "" && cur.NewPath != "" && newP != cur.NewPath {
		return &MismatchError{Header: cur.NewPath, Line: newP}
	}
	// A "new file" whose --- line names an existing file, or a deleted
	// one whose +++ line names a file, is also read differently by git.
	if oldP != "" && cur.OldPath == "" {
		return &MismatchError{Header: "/dev/null", Line: oldP}
	}
	if newP != "" && cur.NewPath == "" {
		return &MismatchError{Header: "/dev/null", Line: newP}
	}
	return nil
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func atoiOr(s string, def int) int {
	if s == "" {
		return def
	}
	return atoi(s)
}

func unquote(s string) string {
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// gitPaths splits "a/X b/Y" (possibly quoted) into tree paths.
func gitPaths(s string) (string, string, error) {
	var parts []string
	for s != "" {
		s = strings.TrimLeft(s, " ")
		if strings.HasPrefix(s, `"`) {
			end := 1
			for end < len(s) && (s[end] != '"' || s[end-1] == '\\') {
				end++
			}
			if end >= len(s) {
				return "", "", fmt.Errorf("unterminated quoted path in diff --git line")
			}
			parts = append(parts, unquote(s[:end+1]))
			s = s[end+1:]
			continue
		}
		// Unquoted: "a/X b/Y" where X == Y for non-renames; split at " b/".
		if i := strings.Index(s, " b/"); i >= 0 && len(parts) == 0 {
			parts = append(parts, s[:i], s[i+1:])
			s = ""
			continue
		}
		parts = append(parts, s)
		s = ""
	}
	if len(parts) != 2 || !strings.HasPrefix(parts[0], "a/") || !strings.HasPrefix(parts[1], "b/") {
		return "", "", fmt.Errorf("cannot read the paths of a diff --git line (want a/PATH b/PATH)")
	}
	if parts[0] == "a/" || parts[1] == "b/" {
		return "", "", fmt.Errorf("empty path in a diff --git line")
	}
	return parts[0][2:], parts[1][2:], nil
}

// unifiedPath reads a "--- " or "+++ " path: -p1 semantics ("a/x" -> "x"),
// "/dev/null" -> "". An absolute path is kept absolute so CheckPaths can
// refuse it.
func unifiedPath(s string) (string, error) {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i] // "--- a/x\t2024-01-01 ..." (diff -u timestamps)
	}
	s = unquote(strings.TrimSpace(s))
	if s == "/dev/null" {
		return "", nil
	}
	if s == "" {
		return "", fmt.Errorf("empty path in file header")
	}
	if strings.HasPrefix(s, "/") {
		return s, nil
	}
	i := strings.IndexByte(s, '/')
	if i < 0 {
		return "", fmt.Errorf("path %q has no leading directory to strip (kregress applies patches with -p1, as git does)", s)
	}
	return s[i+1:], nil
}

// CheckPaths refuses a patch that writes outside the tree: an absolute
// path, a ".." component, or the tree's .git. (A symlink in the tree on
// the way is the applier's check: it needs the tree.)
func (p *Patch) CheckPaths() error {
	for _, d := range p.Diffs {
		for _, f := range []string{d.OldPath, d.NewPath} {
			if f == "" {
				continue
			}
			switch {
			case strings.HasPrefix(f, "/"):
				return &PathError{Patch: p.Name, Path: f, Why: "absolute path"}
			case f == ".." || strings.HasPrefix(f, "../") || strings.Contains(f, "/../") || strings.HasSuffix(f, "/.."):
				return &PathError{Patch: p.Name, Path: f, Why: "it leaves the tree (..)"}
			case f == ".git" || strings.HasPrefix(f, ".git/") || strings.Contains(f, "/.git/") || strings.HasSuffix(f, "/.git"):
				return &PathError{Patch: p.Name, Path: f, Why: "it writes into git's own directory"}
			case path.Clean(f) != f || f == ".":
				return &PathError{Patch: p.Name, Path: f, Why: "not a clean relative path"}
			case strings.ContainsAny(f, "\x00\n\r"):
				// A quoted git path may carry any byte; these would cut
				// the path short in a syscall or forge a line elsewhere.
				return &PathError{Patch: p.Name, Path: f, Why: "control character in the path"}
			}
		}
	}
	return nil
}

// Symlinks lists the paths p makes symlinks of (FileDiff.MakesSymlink).
func (p *Patch) Symlinks() []string {
	var out []string
	for _, d := range p.Diffs {
		if d.MakesSymlink() {
			out = append(out, d.NewPath)
		}
	}
	return out
}

// FindHunk returns the hunk of file whose old start is line (the line git
// apply reports for a failed hunk), or nil.
func (p *Patch) FindHunk(file string, line int) *Hunk {
	for _, d := range p.Diffs {
		if d.Path() != file && d.OldPath != file {
			continue
		}
		for i := range d.Hunks {
			if d.Hunks[i].OldStart == line {
				return &d.Hunks[i]
			}
		}
	}
	return nil
}
