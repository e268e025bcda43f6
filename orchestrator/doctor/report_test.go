package doctor

import (
	"bytes"
	"strings"
	"testing"
)

// Each problem is printed with its fix and counted; info lines are not
// problems.
func TestWrite(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, []Check{{Name: "qemu", Status: Fail, Detail: "missing", Fix: "apt install qemu"}, {Name: "cache", Status: Info, Detail: "1 GiB"},
		{Name: "kvm", Status: Warn, Detail: "no /dev/kvm"}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"FAIL  qemu", "fix: apt install qemu", "INFO  cache", "\n2 problem(s): see each fix above\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := Write(&b, []Check{{Name: "qemu", Status: OK}}); err != nil || !strings.HasSuffix(b.String(), "\nno problems found\n") {
		t.Errorf("no problems: %v\n%s", err, b.String())
	}
}
