// Package stores opens a results store from its name: a PostgreSQL DSN
// (postgres://...) or the path of a SQLite file.
package stores

import (
	"github.com/kregress/kregress/results/pgstore"
	"github.com/kregress/kregress/results/sqlitestore"
	"github.com/kregress/kregress/results/sqlstore"
)

// Open opens the store named by spec.
func Open(spec string) (*sqlstore.Store, error) {
	if pgstore.IsDSN(spec) {
		return pgstore.Open(spec)
	}
	return sqlitestore.Open(spec)
}
