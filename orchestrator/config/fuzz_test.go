package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A file past the cap is refused naming the file, read no further than
// the cap; what is not a regular file (an endless device, a FIFO) is
// refused before it is read.
func TestConfigFileIsCapped(t *testing.T) {
	p := writeConfig(t, "experiment: x\n"+strings.Repeat("# padding\n", maxConfigSize/10+1))
	if _, _, err := Load(p, nil); err == nil || !strings.Contains(err.Error(), p+" is larger than 1024 KiB") {
		t.Fatalf("a %d-byte config: %v", maxConfigSize+10, err)
	}
	if _, _, err := Load("/dev/zero", nil); err == nil || !strings.Contains(err.Error(), "/dev/zero: not a regular file (a character device)") {
		t.Fatalf("/dev/zero: %v", err)
	}
	// A FIFO nobody writes to: refused at once, not waited on.
	fifo := filepath.Join(t.TempDir(), "exp.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(fifo, nil); err == nil || !strings.Contains(err.Error(), fifo+": not a regular file (a named pipe)") {
		t.Fatalf("FIFO: %v", err)
	}
}

// FuzzLoad: any experiment file loads without panic; what loads is valid
// and renders (`kregress config`, the stored config) to a YAML that
// loads to the same configuration.
func FuzzLoad(f *testing.F) {
	f.Add(string(defaultYAML))
	for _, name := range Experiments() {
		if b, err := builtinExperiments.ReadFile("experiments/" + name + ".yaml"); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("experiment: x\nvm:\n  cpus: [1\n")
	f.Add("repetitions: 3\nvm:\n  cpus: 3\nworkload:\n  name: rstat\n  duration: 7s\n")
	// An alias bomb: yaml.v3 refuses excessive aliasing.
	f.Add("a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n")
	for _, k := range []string{"KREGRESS_VM_CPUS", "KREGRESS_VARIANTS", "KREGRESS_STORE"} {
		if os.Getenv(k) != "" {
			f.Skipf("%s is set: the environment would override the fuzzed files", k)
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		p := filepath.Join(dir, "exp.yaml")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		c, _, err := Load(p, nil)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Load returned an invalid config: %v", err)
		}
		rendered := c.YAML()
		if strings.Contains(c.Store, "@") || strings.Contains(c.Store, "password") {
			return // the rendering redacts the password: not the same store
		}
		if err := os.WriteFile(p, []byte(rendered), 0o644); err != nil {
			t.Fatal(err)
		}
		c2, _, err := Load(p, nil)
		if err != nil {
			t.Fatalf("the rendered config does not load: %v\n%s", err, rendered)
		}
		if again := c2.YAML(); again != rendered {
			t.Fatalf("render(load(render(c))) != render(c):\n%s\n---\n%s", rendered, again)
		}
	})
}

// An experiment file within the size cap whose keys would take the
// decoder minutes (yaml.v3's duplicate check is quadratic in a
// mapping's keys) is refused before decoding, naming the file; one of
// thousands of unknown keys under the caps says the first few. Each
// logs its time.
func TestManyKeysBoundedInTime(t *testing.T) {
	var flat strings.Builder
	for i := 0; flat.Len() < maxConfigSize-64; i++ {
		fmt.Fprintf(&flat, "k%d: 1\n", i)
	}
	p := writeConfig(t, flat.String())
	start := time.Now()
	_, _, err := Load(p, nil)
	if err == nil || !strings.Contains(err.Error(), "config "+p+": the mapping on line 1 has more than 4096 keys: refused before decoding") {
		t.Fatalf("a %d-byte file of one-line keys: %v", flat.Len(), err)
	}
	t.Logf("%d bytes of keys: refused in %v", flat.Len(), time.Since(start))

	var unknown strings.Builder
	unknown.WriteString("experiment: x\n")
	for i := 0; i < 4000; i++ {
		fmt.Fprintf(&unknown, "unknownkey%d: 1\n", i)
	}
	p = writeConfig(t, unknown.String())
	start = time.Now()
	_, _, err = Load(p, nil)
	if err == nil || !strings.Contains(err.Error(), "line 2, key unknownkey0: no such key") || !strings.Contains(err.Error(), "; and 3990 more") {
		t.Fatalf("4000 unknown keys: %.300v", err)
	}
	t.Logf("4000 unknown keys: refused in %v (%d bytes of message)", time.Since(start), len(err.Error()))
}
