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

// VerifyConfig checks that every option of every fragment has the value it
// asked for in the final .config.
func VerifyConfig(final []byte, frags []Fragment) error {
	have := map[string]string{}
	for _, o := range ParseConfig(final) {
		have[o.Name] = o.Value
	}
	var dropped []DroppedOption
	for _, f := range frags {
		for _, o := range ParseConfig(f.Data) {
			got, ok := have[o.Name]
			if !ok {
				got = "n"
			}
			if got != o.Value {
				dropped = append(dropped, DroppedOption{Fragment: f.Name, Option: o, Got: got})
			}
		}
	}
	if len(dropped) > 0 {
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
