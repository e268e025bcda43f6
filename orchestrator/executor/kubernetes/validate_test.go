package kubernetes

import (
	"errors"
	"testing"

	"github.com/kregress/kregress/orchestrator/config"
)

// Kind kubernetes is valid because this package registers it, and
// config.Validate checks its block through Kind.Check: each bad key named.
func TestConfigValidatesKubernetesBlock(t *testing.T) {
	complete := Block{Image: "i", SharedClaim: "c", StoreSecret: "s", KVM: "privileged"}
	for wantKey, spoil := range map[string]func(*Block){
		"executor.kubernetes.image":        func(k *Block) { k.Image = "" },
		"executor.kubernetes.shared_claim": func(k *Block) { k.SharedClaim = "" },
		"executor.kubernetes.store_secret": func(k *Block) { k.StoreSecret = "" },
		"executor.kubernetes.kvm":          func(k *Block) { k.KVM = "maybe" },
		"":                                 func(*Block) {},
	} {
		c := defaultConfig(t)
		c.Executor.Kind, c.Executor.SharedDir = name, "/srv/k"
		b := blockOf(c)
		*b = complete
		spoil(b)
		err := c.Validate()
		var fe *config.FileError
		switch {
		case wantKey == "" && err != nil:
			t.Errorf("a complete kubernetes block: %v", err)
		case wantKey != "" && (!errors.As(err, &fe) || fe.Key != wantKey):
			t.Errorf("%+v: %v, want an error naming %s", *b, err, wantKey)
		}
	}
}

func defaultConfig(t *testing.T) *config.Config {
	t.Helper()
	c, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
