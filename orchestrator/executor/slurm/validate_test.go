package slurm

import (
	"errors"
	"testing"
	"time"

	"github.com/kregress/kregress/orchestrator/config"
)

// Kind slurm is valid because this package registers it; config.Validate
// checks its block through Kind.Check, after what every kind but local
// shares (executor.shared_dir, executor.parallel).
func TestConfigValidatesSlurmBlock(t *testing.T) {
	for wantKey, spoil := range map[string]func(*config.Executor){
		"executor.shared_dir": func(e *config.Executor) { e.SharedDir = "rel/dir" },
		"executor.parallel":   func(e *config.Executor) { e.Parallel = 2 },
		"executor.slurm.poll": func(e *config.Executor) { e.Block(name).(*Block).Poll = config.Duration(10 * time.Millisecond) },
		"":                    func(*config.Executor) {},
	} {
		c, _, err := config.Load("", nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Executor.Kind, c.Executor.SharedDir = name, "/srv/k"
		spoil(&c.Executor)
		err = c.Validate()
		var fe *config.FileError
		switch {
		case wantKey == "" && err != nil:
			t.Errorf("a complete slurm block: %v", err)
		case wantKey != "" && (!errors.As(err, &fe) || fe.Key != wantKey):
			t.Errorf("%+v: %v, want an error naming %s", c.Executor, err, wantKey)
		}
	}
}
