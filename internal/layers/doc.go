// Package layers holds the repository's layering test (layers_test.go):
// no package imports a package of a layer above its own. It has no code.
package layers
