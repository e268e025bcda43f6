package kernel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// A kselftest target's config as 6.12's are written passes: assignments
// of every value kind, "is not set" and other comments, empty lines.
func TestCheckTreeFragmentAcceptsRealFragments(t *testing.T) {
	ok := "CONFIG_POSIX_MQUEUE=y\nCONFIG_NET=y\n# CONFIG_BPF_UNPRIV_DEFAULT_OFF is not set\n#\n# Network\n" +
		"CONFIG_TEST_HMM=m\nCONFIG_LOG_BUF_SHIFT=21\nCONFIG_NR_CPUS=-1\nCONFIG_PHYSICAL_START=0x1000000\n" +
		"CONFIG_LSM=\"selinux,bpf,integrity\"\nCONFIG_NLS_DEFAULT=\"ut\\\"f8\"\n\n"
	if err := CheckTreeFragment("tools/testing/selftests/x/config", []byte(ok)); err != nil {
		t.Fatal(err)
	}
}

// Outside input: any line Kconfig would read as something else, or that
// is no assignment at all, is refused naming the file and the line; so
// is a fragment over the bound.
func TestCheckTreeFragmentRefusesHostileLines(t *testing.T) {
	const file = "tools/testing/selftests/evil/config"
	for _, tc := range []struct {
		data string
		line int
	}{
		{"CONFIG_A=y\n$(shell rm -rf /)\n", 2},
		{"CONFIG_A=y\n  CONFIG_B=y\n", 2},                                   // leading space: Kconfig ignores it
		{"CONFIG_A=y \n", 1},                                                // trailing space
		{"CONFIG_A=y\r\n", 1},                                               // CR
		{"CONFIG_A=yes\n", 1},                                               // not a tristate
		{"CONFIG_A=\"open\n", 1},                                            // unterminated string
		{"CONFIG_A=\"a\" CONFIG_B=y\n", 1},                                  // two on a line
		{"CONFIG_A-B=y\n", 1},                                               // not a symbol name
		{"config A\n", 1},                                                   // Kconfig language, not a .config
		{"CONFIG_A=y\n# ok\n# bell \a\n", 3},                                // control character in a comment
		{"CONFIG_A=y\n# \xff\xfe\n", 2},                                     // invalid UTF-8
		{"A=y\n", 1},                                                        // no CONFIG_ prefix
		{"CONFIG_A=y\nCONFIG_B=m\nCONFIG_C=\x00\n", 3},                      // NUL
		{"CONFIG_A=y\n#xCONFIG_SMP is not set\n", 2},                        // Kconfig reads it as SMP=n
		{"# CONFIG_SMP is not set foo\n", 1},                                // so does Kconfig before 6.x's fix
		{"CONFIG_T=\"\x1b]0;title\a\"\n", 1},                                // a terminal escape in a value
		{"CONFIG_A=y\nCONFIG_L=\"" + strings.Repeat("x", 5000) + "\"\n", 2}, // a line the .config reader would choke on
	} {
		err := CheckTreeFragment(file, []byte(tc.data))
		var le *FragmentLineError
		if !errors.As(err, &le) || le.File != file || le.Line != tc.line {
			t.Errorf("%q: %v, want a FragmentLineError at %s:%d", tc.data, err, file, tc.line)
			continue
		}
		if !strings.Contains(err.Error(), file+":") || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%q: %q does not name the file and say refused", tc.data, err)
		}
	}
	big := strings.Repeat("CONFIG_A=y\n", MaxTreeFragment/len("CONFIG_A=y\n")+1)
	err := CheckTreeFragment(file, []byte(big))
	if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "more than") {
		t.Errorf("a %d-byte fragment: %v, want refused for its size", len(big), err)
	}
	if err := CheckTreeFragment(file, []byte(big[:MaxTreeFragment-MaxTreeFragment%len("CONFIG_A=y\n")])); err != nil {
		t.Errorf("a fragment under the bound: %v", err)
	}
}

// A Wanted fragment's dropped options never fail the build
// (VerifyConfig) but are listed (UnmetWanted), one line per fragment
// naming it and each option; "m" is met by "y" (no modules); a strict
// fragment's dropped option still fails.
func TestWantedFragmentsAreReportedNotRequired(t *testing.T) {
	final := []byte("CONFIG_NET=y\nCONFIG_TEST_HMM=y\n# CONFIG_SCHED_DEBUG is not set\nCONFIG_LOG_BUF_SHIFT=17\n")
	mq := Fragment{Name: "kselftest target mqueue (tools/testing/selftests/mqueue/config)", Data: []byte("CONFIG_POSIX_MQUEUE=y\nCONFIG_NET=y\n"), Wanted: true}
	mm := Fragment{Name: "kselftest target mm (tools/testing/selftests/mm/config)", Data: []byte("CONFIG_TEST_HMM=m\nCONFIG_SCHED_DEBUG=y\nCONFIG_LOG_BUF_SHIFT=21\n"), Wanted: true}
	guest := Fragment{Name: "guest.config", Data: []byte("CONFIG_NET=y\n")}
	if err := VerifyConfig(final, []Fragment{mq, mm, guest}); err != nil {
		t.Fatalf("wanted options failed the build: %v", err)
	}
	unmet := UnmetWanted(final, []Fragment{mq, mm, guest})
	lines := UnmetLines(unmet)
	if len(unmet) != 3 || len(lines) != 2 {
		t.Fatalf("unmet %v, lines %q; want 3 options in 2 lines", unmet, lines)
	}
	for i, want := range [][]string{
		{"kselftest target mqueue", "did not keep 1 option(s)", "CONFIG_POSIX_MQUEUE=y (is n)", "kernel.fragments can enable what they depend on"},
		{"kselftest target mm", "did not keep 2 option(s)", "CONFIG_SCHED_DEBUG=y (is n)", "CONFIG_LOG_BUF_SHIFT=21 (is 17)"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d %q lacks %q", i, lines[i], w)
			}
		}
	}
	if strings.Contains(strings.Join(lines, "\n"), "TEST_HMM") || strings.Contains(strings.Join(lines, "\n"), "CONFIG_NET") {
		t.Errorf("met options reported: %q", lines)
	}
	strict := Fragment{Name: "guest.config", Data: []byte("CONFIG_POSIX_MQUEUE=y\n")}
	var ce *ConfigError
	if err := VerifyConfig(final, []Fragment{mq, strict}); !errors.As(err, &ce) || len(ce.Dropped) != 1 || ce.Dropped[0].Fragment != "guest.config" {
		t.Errorf("a strict fragment's dropped option: %v, want a ConfigError naming guest.config only", err)
	}
	if got := UnmetWanted(final, []Fragment{strict}); got != nil {
		t.Errorf("UnmetWanted reports a strict fragment: %v", got)
	}
}

// A kselftest target's fragment (Wanted) whose option Kconfig drops
// builds, the fragment's lines are in .config ahead of kregress's own
// (which win a conflict), and the build says which option, naming the
// target's fragment; the cached kernel says it again, every run.
func TestBuildReportsUnmetWantedOptions(t *testing.T) {
	src := newFakeSource(t)
	b := &Builder{CacheDir: t.TempDir(), Jobs: 1}
	var said []string
	b.Progress = func(f string, a ...any) { said = append(said, fmt.Sprintf(f, a...)) }
	target := Fragment{Name: "kselftest target mqueue (tools/testing/selftests/mqueue/config)", Data: []byte("CONFIG_DROPME=y\nCONFIG_WANTED=y\n# CONFIG_BASE is not set\n"), Wanted: true}
	guest := Fragment{Name: "guest.config", Data: []byte("CONFIG_BASE=y\n")}
	req := Request{Source: src, Family: "fam", Variant: variant(t, "v"), BaseConfig: "tinyconfig", Fragments: []Fragment{target, guest}}
	unmet := func() []string {
		var out []string
		for _, s := range said {
			if strings.Contains(s, "did not keep") {
				out = append(out, s)
			}
		}
		said = nil
		return out
	}
	k, err := b.Build(context.Background(), req)
	if err != nil {
		t.Fatalf("a target's dropped option failed the build: %v", err)
	}
	config, _ := os.ReadFile(k.Config)
	if !strings.Contains(string(config), "CONFIG_WANTED=y") || strings.Index(string(config), "mqueue") > strings.LastIndex(string(config), "guest.config") {
		t.Errorf(".config lacks the target's option or has it after guest.config:\n%s", config)
	}
	for _, pass := range []string{"built", "cached"} {
		got := unmet()
		if len(got) != 1 || !strings.Contains(got[0], "kernel fam/v: kselftest target mqueue") ||
			!strings.Contains(got[0], "CONFIG_DROPME=y (is n)") || !strings.Contains(got[0], "CONFIG_BASE=n (is y)") || strings.Contains(got[0], "CONFIG_WANTED") {
			t.Errorf("%s: said %q, want one line naming the target, CONFIG_DROPME and CONFIG_BASE", pass, got)
		}
		if k, err = b.Build(context.Background(), req); err != nil || !k.Cached {
			t.Fatalf("second build: %v, cached %v", err, k != nil && k.Cached)
		}
	}
	// Without a Wanted fragment nothing of the kind is said.
	said = nil
	req.Fragments = []Fragment{guest}
	if _, err := b.Build(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := unmet(); len(got) != 0 {
		t.Errorf("no target: said %q", got)
	}
}
