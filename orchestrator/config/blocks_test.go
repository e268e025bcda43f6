package config

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// tblock is an executor kind with a block of its own, registered as an
// executor package registers its kind: config learns its keys from the
// registration alone.
type tblock struct{}

// tblockBlock is executor.tblock.
type tblockBlock struct {
	Queue string   `yaml:"queue"`
	Wait  Duration `yaml:"wait"`
	Retry bool     `yaml:"retry"`
}

func (tblock) Info() ExecutorInfo {
	return ExecutorInfo{Name: "tblock", KeyHelp: map[string]string{
		"executor.tblock.queue": "the queue",
		"executor.tblock.wait":  "how long to wait",
		"executor.tblock.retry": "retry once",
	}, Block: func() any { return &tblockBlock{Queue: "q0", Wait: Duration(3 * time.Second)} }}
}

func (tblock) Check(c *Config) error {
	if c.Executor.Block("tblock").(*tblockBlock).Wait.D() < time.Second {
		return Invalid("executor.tblock.wait", "too short")
	}
	return nil
}

func tblockOf(t *testing.T, c *Config) tblockBlock {
	t.Helper()
	b, ok := c.Executor.Block("tblock").(*tblockBlock)
	if !ok {
		t.Fatalf("executor.tblock is %T", c.Executor.Block("tblock"))
	}
	return *b
}

// A kind's block is decoded from the file over its defaults, strictly
// (a key it lacks, a key twice, a null duration, yes for a bool are
// refused at their line), printed before executor.detach, listed among
// the keys, and checked by the kind.
func TestExecutorBlockFromItsRegistration(t *testing.T) {
	RegisterExecutor(tblock{})
	c, _, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tblockOf(t, c); got != (tblockBlock{Queue: "q0", Wait: Duration(3 * time.Second)}) {
		t.Fatalf("defaults: %+v", got)
	}
	if !strings.Contains(c.YAML(), "\n    tblock:\n        queue: q0\n        wait: 3s\n        retry: false\n    detach: false\n") {
		t.Errorf("the block is not printed before executor.detach:\n%s", c.YAML())
	}
	keys := Keys()
	if i, j := slices.Index(keys, "executor.tblock.queue"), slices.Index(keys, "executor.detach"); i < 0 || j != i+3 {
		t.Errorf("keys: tblock's at %d, detach at %d, want them just before it", i, j)
	}

	c, _, err = Load(writeConfig(t, "executor:\n  tblock:\n    queue: fast\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tblockOf(t, c); got.Queue != "fast" || got.Wait.D() != 3*time.Second {
		t.Errorf("a file's block over the defaults: %+v", got)
	}
	// Merge keys merge as the decoder merges into the rest of Config:
	// a key the mapping sets itself wins.
	c, _, err = Load(writeConfig(t, "executor:\n  <<: {parallel: 1}\n  tblock:\n    wait: 5s\n    <<: [{queue: m, wait: 4s}, {queue: n}]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tblockOf(t, c); got.Queue != "m" || got.Wait.D() != 5*time.Second {
		t.Errorf("merged: %+v, want queue m (the first source) and wait 5s (its own)", got)
	}
	c, _, err = Load(writeConfig(t, "executor:\n  tblock:\n    queue: fast\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The printed configuration loads back to the same block.
	again, _, err := Load(writeConfig(t, c.YAML()), nil)
	if err != nil || tblockOf(t, again) != tblockOf(t, c) {
		t.Errorf("printed and loaded again: %v %+v", err, again)
	}

	// Every problem of the section is reported, in the file's order.
	_, _, err = Load(writeConfig(t, "executor:\n  parallel: x\n  bogus: 1\n  tblock:\n    zz: 1\n    retry: [1]\n"), nil)
	var at []int
	for _, m := range regexp.MustCompile(`line (\d+)`).FindAllStringSubmatch(fmt.Sprint(err), -1) {
		n, _ := strconv.Atoi(m[1])
		at = append(at, n)
	}
	if !slices.Equal(at, []int{2, 3, 5, 6}) {
		t.Errorf("problems at lines %v, want 2, 3, 5, 6: %v", at, err)
	}

	for text, want := range map[string]string{
		"executor:\n  tblock:\n    queeu: x\n":                                         "line 3, key executor.tblock.queeu: no such key (did you mean executor.tblock.queue?)",
		"executor:\n  tblock:\n    queue: a\n    queue: b\n":                           `line 4, key executor.tblock.queue: mapping key "queue" already defined at line 3`,
		"executor:\n  kind: local\n  kind: tblock\n":                                   `line 3, key executor.kind: mapping key "kind" already defined at line 2`,
		"executor:\n  knid: tblock\n":                                                  "line 2, key executor.knid: no such key (did you mean executor.kind?)",
		"executor:\n  tblock:\n    wait:\n":                                            `line 3, key executor.tblock.wait: "" is not a duration`,
		"executor:\n  tblock:\n    retry: yes\n":                                       `line 3, key executor.tblock.retry: "yes" is not true or false`,
		"executor:\n  tblock: 3\n":                                                     "line 2, key executor.tblock: is a section",
		"executor: 3\n":                                                                "line 1, key executor: is a section",
		"executor:\n  tblock:\n    wait: soon\n":                                       "line 3, key executor.tblock.wait",
		"executor:\n  kind: tblock\n  shared_dir: /srv/k\n  tblock:\n    wait: 10ms\n": "line 5, key executor.tblock.wait: too short",
	} {
		_, _, err := Load(writeConfig(t, text), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

// The environment and the flags AddFlags makes for a block's keys set
// them; a bad value names the flag.
func TestExecutorBlockFromEnvAndFlags(t *testing.T) {
	RegisterExecutor(tblock{})
	t.Setenv("KREGRESS_EXECUTOR_TBLOCK_QUEUE", "env")
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	MustAddFlags(fs, Keys())
	if f := fs.Lookup("executor.tblock.wait"); f == nil || f.Usage != "tblock: how long to wait" || f.DefValue != "3s" {
		t.Fatalf("flag --executor.tblock.wait: %+v", f)
	}
	if err := fs.Parse([]string{"--executor.tblock.wait", "7s", "--executor.tblock.retry"}); err != nil {
		t.Fatal(err)
	}
	c, _, err := Load(writeConfig(t, "executor:\n  tblock:\n    queue: file\n"), fs)
	if err != nil {
		t.Fatal(err)
	}
	if got := tblockOf(t, c); got != (tblockBlock{Queue: "env", Wait: Duration(7 * time.Second), Retry: true}) {
		t.Errorf("env and flags over the file: %+v", got)
	}
	bad := pflag.NewFlagSet("x", pflag.ContinueOnError)
	MustAddFlags(bad, Keys())
	if err := bad.Parse([]string{"--executor.tblock.wait", "soon"}); err != nil {
		t.Fatal(err)
	}
	_, _, err = Load("", bad)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Key != "executor.tblock.wait" || fe.File != "flag --executor.tblock.wait" {
		t.Errorf("a bad flag value: %v, want a FileError naming the flag and key", err)
	}
}
