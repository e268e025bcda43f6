package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// An output of ~100k keys within MaxOutput took the YAML decoder
// minutes (its duplicate check is quadratic in a mapping's keys): it is
// refused once the keys are counted, and its time is logged.
func TestOutputKeysBoundTheTime(t *testing.T) {
	for _, c := range []struct{ format, out string }{
		{"yaml", func() string {
			var b strings.Builder
			for i := 0; b.Len() < MaxOutput-32; i++ {
				fmt.Fprintf(&b, "k%d: %d\n", i, i)
			}
			return b.String()
		}()},
		{"json", func() string {
			var b strings.Builder
			b.WriteString("{")
			for i := 0; b.Len() < MaxOutput-32; i++ {
				fmt.Fprintf(&b, `"k%d":%d,`, i, i)
			}
			return b.String() + `"x":1}`
		}()},
	} {
		d := decl(t, fmt.Sprintf("program: p\noutput: {format: %s}\nmetrics:\n  - {name: x, from: x, unit: ops, better: higher}\n", c.format))
		if err := d.Check(); err != nil {
			t.Fatal(err)
		}
		p, _ := NewParser(d)
		start := time.Now()
		_, err := p.Parse([]byte(c.out))
		if err == nil || !strings.Contains(err.Error(), "more than 4096 keys: refused before decoding") {
			t.Errorf("%s of %d bytes: %v", c.format, len(c.out), err)
		}
		t.Logf("%s, %d bytes of one mapping: refused in %v", c.format, len(c.out), time.Since(start))
	}
	// An empty YAML output is still "not found", not a decoding error.
	d := decl(t, "program: p\noutput: {format: yaml}\nmetrics:\n  - {name: x, from: x, unit: ops, better: higher}\n")
	p, _ := NewParser(d)
	if _, err := p.Parse(nil); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("empty YAML output: %v", err)
	}
}

// A regexp within MaxRegexp bytes whose program is huge (a counted
// repetition is written out) is refused before any output is read, by
// Check and by NewParser; one at the cap is timed over the largest
// output (logged, not asserted).
func TestRegexpProgramBoundsTheTime(t *testing.T) {
	hostile := `(?P<secs>(?:a?){1000}a{1000}b)`
	d := decl(t, strings.Replace(hackbenchDecl, `'Time: (?P<secs>[0-9.]+)'`, "'"+hostile+"'", 1))
	err := d.Check()
	if err == nil || !strings.Contains(err.Error(), "output.regexp") || !strings.Contains(err.Error(), "instructions, more than 256") {
		t.Fatalf("a %d-byte regexp of a huge program: %v", len(hostile), err)
	}
	d.Output.Regexp = hostile
	if _, err := NewParser(d); err == nil {
		t.Fatal("NewParser compiled the huge program")
	}
	// The largest program of this shape within the cap.
	var atCap string
	for n := 200; n > 0 && atCap == ""; n-- {
		expr := fmt.Sprintf(`(?P<secs>(?:a?){%d}a{%d}b)`, n, n)
		if _, err := compileRegexp(expr); err == nil {
			atCap = expr
		}
	}
	d.Output.Regexp = atCap
	p, err := NewParser(d)
	if err != nil {
		t.Fatal(err)
	}
	size := MaxOutput
	if testing.Short() {
		size /= 8
	}
	out := []byte(strings.Repeat(strings.Repeat("a", 63)+"\n", size/64))
	start := time.Now()
	p.Parse(out)
	t.Logf("%s over %d bytes of output: %v", atCap, len(out), time.Since(start))
}
