// Package oops finds the kernel's own reports in a guest's console or
// dmesg: WARNINGs, BUGs, oopses, KASAN and UBSAN reports, lockdep
// splats, RCU stalls, soft and hard lockups, hung tasks and panics. Each
// report gets a title normalised the way syzkaller's pkg/report does it
// ("WARNING in memory_stat_show"): no timestamps, addresses, offsets,
// PIDs or CPU numbers, so the same bug has the same title in every boot
// and a candidate's reports can be compared with its baseline's.
package oops

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kregress/kregress/internal/safetext"
	"github.com/kregress/kregress/results"
)

// maxExcerptLines bounds one report's excerpt: enough for a report and
// its call trace, not a whole log.
const maxExcerptLines = 80

// The console is the guest's to write: bounds so that a flooded or
// hostile log costs bounded memory and time and cannot hide a report.
const (
	// maxLineLen: the kernel's printk lines are under 1024 bytes; a
	// longer line is cut, not a reason to stop reading (bufio.Scanner
	// stopped at the first line over 1 MiB, hiding every later report).
	maxLineLen = 4096
	// maxLines: past it the first and last maxLines/2 lines are read
	// (a boot's reports come at its start or its end).
	maxLines = 1 << 19
	// maxFindings bounds distinct titles; a real boot has a handful.
	maxFindings = 256
)

// oopser recognises the first line of one kind of report and titles it.
type oopser struct {
	kind results.FindingKind
	re   *regexp.Regexp
	// title builds the title from the match and the report's lines (for
	// reports titled by the function they happened in).
	title func(m []string, body []string) string
}

var (
	// A printk prefix: "[   12.345678] " and/or a caller id "[T123] ".
	prefixRe = regexp.MustCompile(`^(?:<\d+>)?(?:\[\s*\d+\.\d+\])?\s*(?:\[\s*[TC]\d+\])?\s?`)
	// A function in a trace line or RIP: name+0x1f/0x60 [module].
	funcRe = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.]*)\+0x[0-9a-f]+/0x[0-9a-f]+`)
	ripRe  = regexp.MustCompile(`^(?:RIP|pc|PC is at) ?:? ?(?:[0-9a-f]{4}:)?(?:\[<[0-9a-f]+>\] )?([A-Za-z_][A-Za-z0-9_.]*)\+0x`)
	// Compiler clones: foo.isra.0, foo.constprop.3, foo.cold.
	cloneRe = regexp.MustCompile(`\.(?:isra|constprop|part|cold|llvm)(?:\.\d+)*`)
	// What differs between boots in a title: addresses, numbers.
	addrRe = regexp.MustCompile(`0x[0-9a-fA-F]+|\b[0-9a-f]{8,16}\b`)
	numRe  = regexp.MustCompile(`\b\d+\b`)
	// The end of a report.
	endRe = regexp.MustCompile(`---\[ end (?:trace|Kernel panic)`)
)

func fn(name string) string { return cloneRe.ReplaceAllString(name, "") }

// where returns the function a report happened in: the RIP line, else
// the first call-trace frame that is not report machinery.
func where(body []string) string {
	for _, l := range body {
		if m := ripRe.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			return fn(m[1])
		}
	}
	inTrace := false
	for _, l := range body {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "Call Trace:") {
			inTrace = true
			continue
		}
		if !inTrace {
			continue
		}
		m := funcRe.FindStringSubmatch(t)
		if m == nil || strings.HasPrefix(t, "<") || machinery[fn(m[1])] {
			continue
		}
		return fn(m[1])
	}
	return ""
}

// lockAtRe is a lockdep report's "(lock name){....}, at: func+0x1/0x2".
var lockAtRe = regexp.MustCompile(`, at: ([A-Za-z_][A-Za-z0-9_.]*)\+0x`)

// lockWhere returns the function a lockdep report happened in: where the
// lock it names first was being taken ("is trying to acquire lock: ...,
// at: memory_stat_show+0xb0"), as syzkaller titles them; the call trace
// starts inside lockdep's own bookkeeping, whatever the bug.
func lockWhere(body []string) string {
	for _, l := range body {
		if strings.HasPrefix(strings.TrimSpace(l), "Call Trace:") {
			break
		}
		if m := lockAtRe.FindStringSubmatch(l); m != nil {
			return fn(m[1])
		}
	}
	return where(body)
}

// machinery: frames that report, rather than cause, the problem.
var machinery = map[string]bool{
	"dump_stack": true, "dump_stack_lvl": true, "show_stack": true, "panic": true,
	"__warn": true, "warn_slowpath_fmt": true, "report_bug": true, "handle_bug": true,
	"exc_invalid_op": true, "asm_exc_invalid_op": true, "__might_resched": true,
	"__might_sleep": true, "__schedule_bug": true, "print_report": true, "kasan_report": true,
	"ubsan_epilogue": true, "lockdep_rcu_suspicious": true, "check_noncircular": true,
	"__lock_acquire": true, "lock_acquire": true, "check_prev_add": true, "validate_chain": true,
	"print_circular_bug": true, "watchdog_timer_fn": true, "__hrtimer_run_queues": true,
	"hrtimer_interrupt": true, "__sysvec_apic_timer_interrupt": true,
	"sysvec_apic_timer_interrupt": true, "asm_sysvec_apic_timer_interrupt": true,
	"schedule": true, "__schedule": true, "schedule_timeout": true, "schedule_preempt_disabled": true,
	"__mutex_lock": true, "mutex_lock_nested": true, "__mutex_lock_slowpath": true,
	"mutex_lock": true, "rwsem_down_write_slowpath": true, "rwsem_down_read_slowpath": true,
	"down_write": true, "down_read": true, "percpu_rwsem_wait": true, "__percpu_down_read": true,
	"wait_for_completion": true, "__wait_for_common": true, "io_schedule": true,
}

func in(title, where string) string {
	if where == "" {
		return title
	}
	return title + " in " + where
}

// oopsers, in the order they are tried on each line. Lockdep's
// "WARNING: possible ..." must come before the generic WARNING.
var oopsers = []oopser{
	{results.FindingLockdep, regexp.MustCompile(`^WARNING: (possible circular locking dependency detected|possible recursive locking detected|inconsistent lock state|suspicious RCU usage|bad unlock balance detected|held lock freed|possible irq lock inversion dependency detected|lock held when returning to user space|.*-safe -> .*-unsafe lock order detected|nested lock was not taken|lock held at task exit time)`),
		func(m []string, b []string) string { return in("WARNING: "+m[1], lockWhere(b)) }},
	{results.FindingWarning, regexp.MustCompile(`^WARNING: (?:CPU: \d+ PID: \d+ )?at (\S+) ([A-Za-z_][A-Za-z0-9_.]*)\+0x`),
		func(m []string, b []string) string { return "WARNING in " + fn(m[2]) }},
	// Since 6.16: "WARNING: mm/foo.c:12 at func+0x1/0x2, CPU#0: comm/1".
	{results.FindingWarning, regexp.MustCompile(`^WARNING: (\S+?):\d+ at ([A-Za-z_][A-Za-z0-9_.]*)\+0x`),
		func(m []string, b []string) string { return "WARNING in " + fn(m[2]) }},
	{results.FindingWarning, regexp.MustCompile(`^WARNING: (?:CPU: \d+ PID: \d+ )?at (\S+?)(?::\d+)?\s`),
		func(m []string, b []string) string { return in("WARNING at "+m[1], where(b)) }},
	{results.FindingKASAN, regexp.MustCompile(`^BUG: KASAN: ([a-z\-]+) in ([A-Za-z_][A-Za-z0-9_.]*)`),
		func(m []string, b []string) string { return "KASAN: " + m[1] + " in " + fn(m[2]) }},
	{results.FindingUBSAN, regexp.MustCompile(`^UBSAN: ([a-z\-]+) in (\S+?)(?::\d+)*$`),
		func(m []string, b []string) string { return "UBSAN: " + m[1] + " in " + m[2] }},
	{results.FindingLockup, regexp.MustCompile(`^(?:watchdog: )?BUG: soft lockup - CPU#\d+ stuck`),
		func(m []string, b []string) string { return in("BUG: soft lockup", where(b)) }},
	{results.FindingLockup, regexp.MustCompile(`^(?:watchdog: |NMI watchdog: )?Watchdog detected hard LOCKUP`),
		func(m []string, b []string) string { return in("hard lockup", where(b)) }},
	{results.FindingBug, regexp.MustCompile(`^kernel BUG at (\S+?)(?::\d+)?!`),
		func(m []string, b []string) string { return in("kernel BUG", where(b)) }},
	{results.FindingBug, regexp.MustCompile(`^BUG: (unable to handle page fault|kernel NULL pointer dereference|unable to handle kernel paging request|unable to handle kernel NULL pointer dereference)`),
		func(m []string, b []string) string { return in("BUG: "+m[1], where(b)) }},
	{results.FindingBug, regexp.MustCompile(`^BUG: (sleeping function called from invalid context|scheduling while atomic|using smp_processor_id\(\) in preemptible|workqueue lockup|Bad page state|Bad page map|Bad rss-counter state|spinlock [a-z ]+|rwlock [a-z ]+|non-zero pgtables_bytes|stack guard page was hit|looking up invalid subclass|MAX_LOCKDEP_[A-Z_]+ too low!?|[^:]+)`),
		func(m []string, b []string) string { return in("BUG: "+normalise(m[1]), where(b)) }},
	{results.FindingOops, regexp.MustCompile(`^(?:Oops: )?(general protection fault|stack segment|divide error|invalid opcode)\b`),
		func(m []string, b []string) string { return in(m[1], where(b)) }},
	{results.FindingOops, regexp.MustCompile(`^Oops: `),
		func(m []string, b []string) string { return in("Oops", where(b)) }},
	{results.FindingRCUStall, regexp.MustCompile(`^(?:rcu: )?INFO: rcu_\w+ (?:self-)?detected (?:stalls?|expedited stalls?)`),
		func(m []string, b []string) string { return "INFO: rcu detected stall" }},
	{results.FindingHungTask, regexp.MustCompile(`^INFO: task .* blocked for more than \d+ seconds`),
		func(m []string, b []string) string { return in("INFO: task hung", where(b)) }},
	{results.FindingPanic, regexp.MustCompile(`^Kernel panic - not syncing: (.*)$`),
		func(m []string, b []string) string { return "kernel panic: " + normalise(m[1]) }},
}

// normalise takes out what differs between boots of the same bug.
func normalise(s string) string {
	s = addrRe.ReplaceAllString(s, "ADDR")
	s = numRe.ReplaceAllString(s, "N")
	return strings.TrimSpace(strings.TrimRight(s, "!. "))
}

// Parse returns the reports in log, one Finding per title with how often
// it occurred and the first occurrence as excerpt, in order of first
// appearance.
//
// Titles and excerpts come from the guest's console: their control
// characters are escaped here (safetext), where they are decoded.
func Parse(log []byte) []results.Finding {
	lines := splitLines(string(log))
	var out []results.Finding
	index := map[string]int{}
	for i := 0; i < len(lines); i++ {
		o, m := match(lines[i])
		if m == nil {
			continue
		}
		end := i + 1
		for end < len(lines) && end-i < maxExcerptLines {
			if endRe.MatchString(lines[end]) {
				end++
				break
			}
			// A report ends where the next one starts, except that a
			// panic is part of the report that caused it, and the Oops
			// after "kernel BUG at" is BUG()'s own trap.
			if o2, m2 := match(lines[end]); m2 != nil && o2.kind != results.FindingPanic && !(o.kind == results.FindingBug && o2.kind == results.FindingOops) {
				break
			}
			end++
		}
		body := lines[i:end]
		// "cut here" opens a WARN, a line or two before it (the
		// WARN's message comes in between).
		start := i
		for k := i - 1; k >= 0 && k >= i-3; k-- {
			if strings.Contains(lines[k], "[ cut here ]") {
				start = k
				break
			}
		}
		title := safetext.Line(o.title(m, body))
		if j, ok := index[title]; ok {
			out[j].Count++
		} else if len(out) < maxFindings {
			index[title] = len(out)
			out = append(out, results.Finding{Kind: o.kind, Title: title, Count: 1, Excerpt: safetext.Text(strings.Join(lines[start:end], "\n"))})
		}
		// Lines inside this report are not new reports, except a panic
		// that follows (panic_on_warn, oops=panic): that is its own
		// finding, found when the loop reaches it.
		for k := i + 1; k < end; k++ {
			if o2, m2 := match(lines[k]); m2 != nil && o2.kind == results.FindingPanic {
				end = k
				break
			}
		}
		i = end - 1
	}
	return out
}

// splitLines splits a log into lines without their printk prefix and
// carriage return, each cut at maxLineLen; of more than maxLines lines,
// the first and last maxLines/2 with a line between saying how many were
// skipped. The lines share log's memory.
func splitLines(log string) []string {
	n := strings.Count(log, "\n")
	if n <= maxLines {
		return splitAll(log, nil)
	}
	half := maxLines / 2
	rest := log
	for i := 0; i < half; i++ {
		rest = rest[strings.IndexByte(rest, '\n')+1:]
	}
	head := log[:len(log)-len(rest)]
	body := strings.TrimSuffix(log, "\n")
	cut := len(body)
	for i := 0; i < half; i++ {
		cut = strings.LastIndexByte(body[:cut], '\n')
	}
	tail := body[cut+1:]
	lines := splitAll(head, make([]string, 0, maxLines+1))
	// The marker's words are part of every stored excerpt: they stay.
	lines = append(lines, fmt.Sprintf("[kreport: %d lines skipped]", strings.Count(body[len(head):cut+1], "\n")))
	return splitAll(tail, lines)
}

func splitAll(log string, lines []string) []string {
	for len(log) > 0 {
		var l string
		if i := strings.IndexByte(log, '\n'); i >= 0 {
			l, log = log[:i], log[i+1:]
		} else {
			l, log = log, ""
		}
		if len(l) > maxLineLen {
			l = l[:maxLineLen]
		}
		if loc := prefixRe.FindStringIndex(l); loc != nil {
			l = l[loc[1]:]
		}
		lines = append(lines, strings.TrimRight(l, "\r"))
	}
	return lines
}

func match(line string) (*oopser, []string) {
	for i := range oopsers {
		if m := oopsers[i].re.FindStringSubmatch(line); m != nil {
			return &oopsers[i], m
		}
	}
	return nil, nil
}

// Merge joins the findings of several logs of one cell (console and
// dmesg hold the same reports twice when the console loglevel let them
// through): per title, the larger count and the first excerpt.
func Merge(sets ...[]results.Finding) []results.Finding {
	var out []results.Finding
	index := map[string]int{}
	for _, set := range sets {
		for _, f := range set {
			if j, ok := index[f.Title]; ok {
				if f.Count > out[j].Count {
					out[j].Count = f.Count
				}
				continue
			}
			index[f.Title] = len(out)
			out = append(out, f)
		}
	}
	return out
}
