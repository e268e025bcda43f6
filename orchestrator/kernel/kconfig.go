package kernel

import (
	"bufio"
	"fmt"
	"strings"
)

// Fragment is a named list of Kconfig assignments.
type Fragment struct {
	Name string
	Data []byte
	// Wanted: the options are wanted, not required. A kselftest
	// target's own fragment asks for options of every architecture and
	// of options the base config cannot reach; the build reports the
	// ones Kconfig did not keep (UnmetWanted) instead of failing, since
	// the tests that need them then fail or skip visibly in the gate.
	Wanted bool
}

// Option is one assignment a fragment asks for; Value is "n" for
// "# CONFIG_X is not set".
type Option struct {
	Name, Value string
}

// ParseConfig reads CONFIG_X=v and "# CONFIG_X is not set" lines.
func ParseConfig(data []byte) []Option {
	var opts []Option
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if name, ok := strings.CutPrefix(line, "# "); ok && strings.HasSuffix(name, " is not set") {
			name = strings.TrimSuffix(name, " is not set")
			if strings.HasPrefix(name, "CONFIG_") {
				opts = append(opts, Option{Name: name, Value: "n"})
			}
			continue
		}
		if strings.HasPrefix(line, "CONFIG_") {
			if k, v, ok := strings.Cut(line, "="); ok {
				opts = append(opts, Option{Name: k, Value: v})
			}
		}
	}
	return opts
}

// DroppedOption is one option the fragment asked for that Kconfig did not
// keep (an unmet dependency, a typo, an option this kernel lacks).
type DroppedOption struct {
	Fragment string
	Option   Option
	Got      string // value in .config, "n" when unset or absent
}

// ConfigError lists every dropped option.
type ConfigError struct{ Dropped []DroppedOption }

func (e *ConfigError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kernel config: Kconfig dropped %d option(s) the fragments ask for:", len(e.Dropped))
	for _, d := range e.Dropped {
		fmt.Fprintf(&b, "\n  %s=%s (fragment %s) is %s in .config: check its dependencies (make menuconfig, search %s)",
			d.Option.Name, d.Option.Value, d.Fragment, d.Got, strings.TrimPrefix(d.Option.Name, "CONFIG_"))
	}
	return b.String()
}

// UnmetWanted lists the options of the Wanted fragments that the final
// .config does not have as asked. "m" is met by "y": a kernel without
// modules builds a tristate in (and kregress's guests load no modules).
func UnmetWanted(final []byte, frags []Fragment) []DroppedOption {
	return unmet(final, frags, true, func(asked, got string) bool {
		return sameValue(asked, got) || asked == "m" && got == "y"
	})
}

// unmet lists the options of the fragments whose Wanted is wanted that
// the final .config does not have as asked (meets says what is).
func unmet(final []byte, frags []Fragment, wanted bool, meets func(asked, got string) bool) []DroppedOption {
	have := map[string]string{}
	for _, o := range ParseConfig(final) {
		have[o.Name] = o.Value
	}
	var out []DroppedOption
	for _, f := range frags {
		if f.Wanted != wanted {
			continue
		}
		for _, o := range ParseConfig(f.Data) {
			got, ok := have[o.Name]
			if !ok {
				got = "n"
			}
			if !meets(o.Value, got) {
				out = append(out, DroppedOption{Fragment: f.Name, Option: o, Got: got})
			}
		}
	}
	return out
}

// sameValue: a fragment's value asked is what .config holds as got.
// Kconfig reads a quoted string with a backslash escaping any character
// and writes it back escaping only '"' and '\\', and it writes an
// unquoted string option's value quoted: both are the same value.
func sameValue(asked, got string) bool {
	if asked == got {
		return true
	}
	g, ok := kconfigString(got)
	if !ok {
		return false
	}
	if a, ok := kconfigString(asked); ok {
		return a == g
	}
	return asked == g
}

// kconfigString is the string a quoted Kconfig value holds, as Kconfig
// reads it (a backslash takes the next character as it is); false when
// the value is not one quoted string.
func kconfigString(v string) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		switch v[i] {
		case '\\':
			if i+1 >= len(v) {
				return "", false
			}
			i++
			b.WriteByte(v[i])
		case '"':
			return b.String(), i == len(v)-1
		default:
			b.WriteByte(v[i])
		}
	}
	return "", false
}

// UnmetLines says, one line per fragment, which wanted options Kconfig
// did not keep: what the run's log shows so that a target's failing or
// skipped test can be traced to the option it lacked.
func UnmetLines(unmet []DroppedOption) []string {
	var out []string
	for i := 0; i < len(unmet); {
		j := i
		var opts []string
		for ; j < len(unmet) && unmet[j].Fragment == unmet[i].Fragment; j++ {
			opts = append(opts, fmt.Sprintf("%s=%s (is %s)", unmet[j].Option.Name, unmet[j].Option.Value, unmet[j].Got))
		}
		out = append(out, fmt.Sprintf("%s: Kconfig did not keep %d option(s) it asks for (an unmet dependency, another architecture's or an option this kernel lacks; kregress's own fragments win a conflict): %s; a fragment of your own in kernel.fragments can enable what they depend on (on tinyconfig, often a menu such as CONFIG_NAMESPACES)",
			unmet[i].Fragment, len(opts), strings.Join(opts, ", ")))
		i = j
	}
	return out
}

// VerifyConfig checks that every option of every fragment but the Wanted
// ones has the value it asked for in the final .config.
func VerifyConfig(final []byte, frags []Fragment) error {
	if dropped := unmet(final, frags, false, sameValue); len(dropped) > 0 {
		return &ConfigError{Dropped: dropped}
	}
	return nil
}

// Preemption names a config's preemption model as the kernel's own
// uname -v does: "none", "voluntary", "full" or "rt", with "dynamic"
// added when the model can be changed at boot (preempt=). The model
// changes lock-hold and latency figures, so provenance records it.
func Preemption(config []byte) string {
	set := map[string]bool{}
	for _, o := range ParseConfig(config) {
		if o.Value == "y" {
			set[o.Name] = true
		}
	}
	model := "unknown"
	switch {
	case set["CONFIG_PREEMPT_RT"]:
		model = "rt"
	case set["CONFIG_PREEMPT"]:
		model = "full"
	case set["CONFIG_PREEMPT_VOLUNTARY"]:
		model = "voluntary"
	case set["CONFIG_PREEMPT_NONE"]:
		model = "none"
	}
	if set["CONFIG_PREEMPT_DYNAMIC"] {
		model += " (dynamic)"
	}
	return model
}
