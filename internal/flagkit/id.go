package flagkit

import (
	"strconv"

	"github.com/spf13/pflag"

	"github.com/kregress/kregress/internal/usage"
)

// idValue is a flag naming a stored run or bisect (--resume): absent is
// 0, "none"; a value given must be a positive id (usage.PositiveID).
// As a plain int flag "--resume 0" was read as "no resume" and started a
// new run, where the user asked to finish one.
type idValue struct {
	p    *int64
	what string
}

func (v idValue) String() string { return strconv.FormatInt(*v.p, 10) }
func (v idValue) Type() string   { return "int64" } // help shows "int", as for an Int64Var
func (v idValue) Set(s string) error {
	id, err := usage.PositiveID(s, v.what)
	if err != nil {
		return err
	}
	*v.p = id
	return nil
}

// IDVar defines an int64 flag that names a stored what ("run id",
// "bisect id"): 0 when not given, and refused unless a positive integer
// when given.
func IDVar(fs *pflag.FlagSet, p *int64, name, what, help string) {
	fs.Var(idValue{p: p, what: what}, name, help)
}
