package flagkit

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// days is a leading whole number of days ("30d", "1d12h").
var days = regexp.MustCompile(`^(\d+)d(.*)$`)

// ParseDuration reads a Go duration (720h, 90m) that may begin with a
// whole number of days (30d, 1d12h): retention is thought of in days.
func ParseDuration(s string) (time.Duration, error) {
	m := days.FindStringSubmatch(s)
	if m == nil {
		return time.ParseDuration(s)
	}
	n, err := strconv.ParseInt(m[1], 10, 32)
	if err != nil {
		return 0, err
	}
	d := time.Duration(n) * 24 * time.Hour
	if m[2] != "" {
		rest, err := time.ParseDuration(m[2])
		if err != nil || rest < 0 {
			return 0, fmt.Errorf("%q: want days then a duration, e.g. 1d12h", s)
		}
		d += rest
	}
	return d, nil
}

type durationValue struct{ d *time.Duration }

func (v durationValue) String() string { return v.d.String() }
func (v durationValue) Type() string   { return "duration" }
func (v durationValue) Set(s string) error {
	d, err := ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (e.g. 30d, 12h, 90m)", s)
	}
	*v.d = d
	return nil
}

// DurationVar is pflag's DurationVar that also takes days (ParseDuration).
func DurationVar(fs *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var(durationValue{p}, name, usage)
}
