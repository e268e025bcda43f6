package patches

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/kregress/kregress/internal/regularfile"
)

// ReadSeries reads a user's patch series from path, which may be:
//
//   - a plain unified diff or one `git format-patch` file;
//   - an mbox holding a series (`git format-patch --stdout`, a lore.kernel.org
//     thread): every message with a diff, cover letters and replies skipped,
//     in "[PATCH n/m]" order when every patch is numbered;
//   - a directory: its quilt `series` file if it has one, else its *.patch
//     and *.diff files in name order (git format-patch's 0001-... names);
//   - a quilt `series` file: the patches it lists, relative to it.
//
// Every patch's paths are checked (CheckPaths) before anything else reads
// it; nothing here touches a kernel tree.
func ReadSeries(path string) ([]*Patch, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("patch %s: no such file or directory", path)
		}
		return nil, fmt.Errorf("patch %s: %w", path, err)
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, "series")); err == nil {
			return readQuilt(filepath.Join(path, "series"))
		}
		var names []string
		for _, pat := range []string{"*.patch", "*.diff"} {
			m, _ := filepath.Glob(filepath.Join(path, pat))
			names = append(names, m...)
		}
		sort.Strings(names)
		if len(names) == 0 {
			return nil, fmt.Errorf("patch directory %s holds no *.patch or *.diff file and no quilt series file", path)
		}
		// Refused by the files' sizes before any is read: parsing
		// takes memory beyond the bytes.
		if size := statSize(names...); size > seriesCap {
			return nil, &TooLargeError{Path: path + " (the whole series)", Limit: seriesCap}
		}
		var out []*Patch
		var total int64
		for _, n := range names {
			ps, err := readFile(n)
			if err != nil {
				return nil, err
			}
			if total, err = addSize(total, path, ps); err != nil {
				return nil, err
			}
			out = append(out, ps...)
		}
		return out, nil
	}
	if filepath.Base(path) == "series" {
		return readQuilt(path)
	}
	return readFile(path)
}

// maxQuiltSeriesBytes bounds a quilt series file: one line per patch,
// so a real one is a few KB.
const maxQuiltSeriesBytes = 1 << 20

// readQuilt reads a quilt series file: one patch per line, "#" comments,
// an optional -p1 (other strip levels are refused: kregress applies -p1).
func readQuilt(series string) ([]*Patch, error) {
	f, _, err := regularfile.Open(series)
	if err != nil {
		var nr *regularfile.NotRegularError
		if errors.As(err, &nr) {
			return nil, fmt.Errorf("quilt series %s: not a regular file (%s)", series, regularfile.Kind(nr.Mode))
		}
		return nil, fmt.Errorf("quilt series %s: %w", series, err)
	}
	defer f.Close()
	dir := filepath.Dir(series)
	var out []*Patch
	var total int64
	sc := bufio.NewScanner(regularfile.Cap(f, series, maxQuiltSeriesBytes))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		fields := strings.Fields(line)
		for _, opt := range fields[1:] {
			if opt != "-p1" {
				return nil, fmt.Errorf("quilt series %s: line %d: option %q: kregress applies patches with -p1 only", series, n, opt)
			}
		}
		name := fields[0]
		if filepath.IsAbs(name) || strings.HasPrefix(filepath.Clean(name), "..") {
			return nil, fmt.Errorf("quilt series %s: line %d: %q is outside the series directory", series, n, name)
		}
		ps, err := readFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("quilt series %s: line %d: %w", series, n, err)
		}
		if total, err = addSize(total, series, ps); err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("quilt series %s: %w", series, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("quilt series %s lists no patch", series)
	}
	return out, nil
}

// mboxFrom is an mbox message separator: "From <sender or sha> <asctime>".
var mboxFrom = regexp.MustCompile(`^From \S+ +(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d+ \d+:\d+:\d+ \d{4}`)

// MaxPatchBytes caps one patch file (or mbox) read from outside: the
// parser holds the file and its line index in memory, several times the
// file's size, so an unbounded file could exhaust the host. The cap
// leaves ample room above the largest kernel patch series mails.
const MaxPatchBytes = 64 << 20

// TooLargeError is a patch file over MaxPatchBytes.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("patch %s is larger than kregress's cap of %d MiB on one patch file (patches.MaxPatchBytes): refusing to read it", e.Path, e.Limit>>20)
}

// MaxSeriesBytes caps a whole series (a directory, a quilt series that
// may list one file many times), for the same reason.
const MaxSeriesBytes = 4 * MaxPatchBytes

// seriesCap is MaxSeriesBytes; a test lowers it.
var seriesCap int64 = MaxSeriesBytes

// statSize is what reading paths would read at least, from stat alone:
// each regular file's size, and a directory's *.patch and *.diff files'
// (a quilt series's patches are summed as they are read, by addSize).
// What cannot be stat'ed counts nothing: reading it says why.
func statSize(paths ...string) int64 {
	var total int64
	for _, p := range paths {
		st, err := os.Stat(p)
		switch {
		case err != nil:
		case st.Mode().IsRegular():
			total += st.Size()
		case st.IsDir():
			if _, err := os.Stat(filepath.Join(p, "series")); err == nil {
				continue
			}
			for _, pat := range []string{"*.patch", "*.diff"} {
				m, _ := filepath.Glob(filepath.Join(p, pat))
				for _, f := range m {
					if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
						total += st.Size()
					}
				}
			}
		}
	}
	return total
}

// addSize adds ps's sizes to total and refuses a series over the cap.
func addSize(total int64, series string, ps []*Patch) (int64, error) {
	for _, p := range ps {
		total += int64(len(p.Data))
	}
	if total > seriesCap {
		return total, &TooLargeError{Path: series + " (the whole series)", Limit: seriesCap}
	}
	return total, nil
}

// readCapped reads path, refusing more than MaxPatchBytes (checked while
// reading, so a growing file cannot get past the cap) and anything but a
// regular file (a FIFO is refused without waiting for a writer).
func readCapped(path string) ([]byte, error) {
	data, err := regularfile.ReadFile(path, MaxPatchBytes)
	var nr *regularfile.NotRegularError
	switch {
	case regularfile.IsTooLarge(err):
		return nil, &TooLargeError{Path: path, Limit: MaxPatchBytes}
	case errors.As(err, &nr):
		return nil, fmt.Errorf("not a regular file (%s)", regularfile.Kind(nr.Mode))
	}
	return data, err
}

// readFile reads one file: an mbox of one or more messages, or one patch.
func readFile(path string) ([]*Patch, error) {
	data, err := readCapped(path)
	if err != nil {
		var tl *TooLargeError
		if errors.As(err, &tl) {
			return nil, err
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("patch %s: no such file", path)
		}
		return nil, fmt.Errorf("patch %s: %w", path, err)
	}
	msgs := splitMbox(data)
	if len(msgs) <= 1 {
		p, err := ParseUser(path, data)
		if err != nil {
			var nd *NoDiffError
			if errors.As(err, &nd) && len(msgs) == 1 {
				return nil, fmt.Errorf("mbox %s holds 1 message and no patch in it", path)
			}
			return nil, err
		}
		return []*Patch{p}, nil
	}
	var out []*Patch
	for i, m := range msgs {
		p, err := ParseUser(fmt.Sprintf("%s#%d", path, i+1), m)
		var nd *NoDiffError
		if errors.As(err, &nd) {
			continue // a cover letter or a reply
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("mbox %s holds %d messages and no patch in any of them", path, len(msgs))
	}
	sortBySeriesNumber(out)
	return out, nil
}

// splitMbox cuts data at mbox "From " separator lines; data that does not
// start with one is not an mbox (nil). The messages are slices of data,
// not copies.
func splitMbox(data []byte) [][]byte {
	if !mboxFrom.Match(data) {
		return nil
	}
	var msgs [][]byte
	start := 0
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			next = pos + end + 1
		}
		if pos > 0 && mboxFrom.Match(data[pos:next]) {
			msgs = append(msgs, data[start:pos:pos])
			start = pos
		}
		pos = next
	}
	return append(msgs, data[start:])
}

var seriesNumber = regexp.MustCompile(`^\[[^\]]*?(\d+)/(\d+)\]`)

// sortBySeriesNumber orders patches by the n of "[PATCH v2 n/m]" when every
// subject carries one (an mbox of a thread is in arrival order, not
// series order); otherwise the mbox order stands.
func sortBySeriesNumber(ps []*Patch) {
	nums := make([]int, len(ps))
	for i, p := range ps {
		m := seriesNumber.FindStringSubmatch(p.rawSubject)
		if m == nil {
			return
		}
		nums[i] = atoi(m[1])
	}
	idx := make([]int, len(ps))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return nums[idx[a]] < nums[idx[b]] })
	sorted := make([]*Patch, len(ps))
	for i, j := range idx {
		sorted[i] = ps[j]
	}
	copy(ps, sorted)
}

var subjectTag = regexp.MustCompile(`^(\[[^\]]*\]\s*)+`)

// readMailHeaders fills Subject, Author, Date and MessageID from a mail
// header at the start of the patch (after an mbox "From " line), if any.
func (p *Patch) readMailHeaders(text string) {
	if mboxFrom.MatchString(text) {
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i+1:]
		}
	}
	if !looksLikeMail(text) {
		return
	}
	msg, err := mail.ReadMessage(strings.NewReader(text))
	if err != nil {
		return
	}
	dec := new(mime.WordDecoder)
	decode := func(s string) string {
		if d, err := dec.DecodeHeader(s); err == nil {
			return d
		}
		return s
	}
	p.rawSubject = decode(msg.Header.Get("Subject"))
	p.Subject = strings.TrimSpace(subjectTag.ReplaceAllString(p.rawSubject, ""))
	p.Author = decode(msg.Header.Get("From"))
	p.Date = msg.Header.Get("Date")
	p.MessageID = strings.Trim(msg.Header.Get("Message-Id"), "<> ")
	io.Copy(io.Discard, msg.Body)
}

// looksLikeMail: the first line is a header field a patch mail has.
func looksLikeMail(text string) bool {
	first := text
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		first = text[:i]
	}
	for _, h := range []string{"From:", "Subject:", "Date:", "Message-Id:", "Message-ID:", "Return-Path:", "Received:", "To:"} {
		if strings.HasPrefix(first, h) {
			return true
		}
	}
	return false
}
