package config

import (
	"fmt"
	"reflect"
	"slices"

	"gopkg.in/yaml.v3"
)

// An executor's own keys, executor.<kind>.*, are declared by its package
// (ExecutorInfo.Block), not here: config holds each block as the value
// the kind made and reaches its keys through ExecutorLayout, a struct type made
// from the registry in which the blocks sit between executor.shared_dir
// and executor.detach, in the registry's order. Keys, flags, --help's
// defaults and the printed configuration walk that type as they walk
// the rest of Config.

// executorType is Executor's type, which the key walkers replace by its
// ExecutorLayout.
var executorType = reflect.TypeOf(Executor{})

// blockKind is a registered kind that reads a block of its own.
type blockKind struct {
	name string
	make func() any
}

// blockKinds are the registered kinds with a block, in the registry's
// order (local first, then by name).
func blockKinds() []blockKind {
	var out []blockKind
	for _, k := range registered() {
		if info := k.Info(); info.Block != nil {
			out = append(out, blockKind{info.Name, info.Block})
		}
	}
	return out
}

// Block is executor.<kind>, the block kind's package declared
// (ExecutorInfo.Block), as decoded: a pointer to that package's struct,
// which it asserts. A Config that Load made holds every registered
// kind's (the one it returns may be set); in another, a kind's block
// that no layer named is a new one with its defaults. nil for a kind
// that is not registered or has none.
func (e Executor) Block(kind string) any {
	if b, ok := e.blocks[kind]; ok {
		return b
	}
	for _, k := range blockKinds() {
		if k.name == kind {
			return k.make()
		}
	}
	return nil
}

// own is kind's block in e, made with its defaults and kept when e has
// none yet, for a layer to decode over.
func (e *Executor) own(k blockKind) any {
	if b, ok := e.blocks[k.name]; ok {
		return b
	}
	if e.blocks == nil {
		e.blocks = map[string]any{}
	}
	b := k.make()
	e.blocks[k.name] = b
	return b
}

// ownBlocks gives e every registered kind's block, with its defaults,
// so that what Block returns is the block e keeps (a caller may set it).
func (e *Executor) ownBlocks() {
	for _, k := range blockKinds() {
		e.own(k)
	}
}

// ExecutorLayout is the struct type whose fields are the executor
// section's keys: Executor's own, each registered kind's block (its
// struct) before detach. A walk over Config's keys walks it in place of
// Executor.
func ExecutorLayout() reflect.Type {
	var fields []reflect.StructField
	for i := 0; i < executorType.NumField(); i++ {
		f := executorType.Field(i)
		if !f.IsExported() {
			continue
		}
		if keyName(f) == "detach" {
			for j, k := range blockKinds() {
				fields = append(fields, reflect.StructField{
					Name: fmt.Sprintf("Block%d", j),
					Type: reflect.TypeOf(k.make()).Elem(),
					Tag:  reflect.StructTag(`yaml:"` + k.name + `"`),
				})
			}
		}
		fields = append(fields, f)
	}
	return reflect.StructOf(fields)
}

// laidOut is e as a value of ExecutorLayout: its fields and a copy of each
// block (its defaults when none was decoded).
func (e Executor) laidOut() reflect.Value {
	t := ExecutorLayout()
	v := reflect.New(t).Elem()
	ev := reflect.ValueOf(e)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if own, ok := executorType.FieldByName(f.Name); ok {
			v.Field(i).Set(ev.FieldByIndex(own.Index))
			continue
		}
		v.Field(i).Set(reflect.ValueOf(e.Block(keyName(f))).Elem())
	}
	return v
}

// MarshalYAML prints executor in its layout: its keys, each kind's
// block before detach.
func (e Executor) MarshalYAML() (any, error) {
	return e.laidOut().Interface(), nil
}

// plainExecutor is Executor without its methods: its own keys decode
// into it as the decoder decodes any struct. The decoder checks an
// Unmarshaler's keys no more (it does not pass KnownFields on), so
// UnmarshalYAML checks them itself.
type plainExecutor Executor

// UnmarshalYAML decodes executor: its own keys, and each registered
// kind's block over that kind's (its defaults at first), refusing a key
// that is neither, or one given twice, in the decoder's own words
// (yaml.TypeError lines, which plainYAMLErrors says again).
func (e *Executor) UnmarshalYAML(n *yaml.Node) error {
	blocks := map[string]blockKind{}
	for _, k := range blockKinds() {
		blocks[k.name] = k
	}
	errs, err := decodeStrict(n, (*plainExecutor)(e), func(key string) any {
		if k, ok := blocks[key]; ok {
			return e.own(k)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	return nil
}

// decodeStrict decodes n over out (a pointer to a struct of keys) as the
// decoder does with KnownFields, one key at a time so that the errors
// come in the file's order: a mapping with a key twice is refused and
// not decoded, a key out does not have is refused, a key that nested
// returns a block for (nil: none) is decoded into that block. errs are
// the decoder's words (yaml.TypeError lines); err ends the decoding at
// once, as the decoder's does (a value its type's UnmarshalText refuses).
func decodeStrict(n *yaml.Node, out any, nested func(key string) any) (errs []string, err error) {
	if errs := duplicateKeys(n); len(errs) > 0 {
		return errs, nil
	}
	n = expandMerges(n)
	if n.Kind != yaml.MappingNode {
		// The decoder's error for a section given a value.
		return typeErrors(n.Decode(out))
	}
	t := reflect.TypeOf(out).Elem()
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		if block := nested(key.Value); block != nil {
			more, err := decodeStrict(val, block, func(string) any { return nil })
			if err != nil {
				return nil, err
			}
			errs = append(errs, more...)
			continue
		}
		if !slices.Contains(fieldKeys(t), key.Value) {
			errs = append(errs, fmt.Sprintf("line %d: field %s not found in type %s", key.Line, key.Value, t))
			continue
		}
		pair := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: key.Line, Column: key.Column, Content: []*yaml.Node{key, val}}
		more, err := typeErrors(pair.Decode(out))
		if err != nil {
			return nil, err
		}
		errs = append(errs, more...)
	}
	return errs, nil
}

// duplicateKeys are the decoder's errors for the keys a mapping gives
// more than once, in its words (it checks a mapping before decoding it,
// but not one an Unmarshaler decodes).
func duplicateKeys(n *yaml.Node) []string {
	var errs []string
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i < len(n.Content); i += 2 {
		ni := n.Content[i]
		for j := i + 2; j < len(n.Content); j += 2 {
			if nj := n.Content[j]; ni.Kind == nj.Kind && ni.Value == nj.Value {
				errs = append(errs, fmt.Sprintf("line %d: mapping key %#v already defined at line %d", nj.Line, nj.Value, ni.Line))
			}
		}
	}
	return errs
}

// expandMerges is n with an alias resolved and, for a mapping, its merge
// keys (<<: a mapping or a list of them) replaced by the pairs they
// bring that n does not set itself, the first source winning, as the
// decoder merges into a struct; n itself is not changed.
func expandMerges(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		return n
	}
	out := *n
	out.Content = nil
	var sources []*yaml.Node
	set := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].ShortTag() == "!!merge" {
			v := n.Content[i+1]
			if v.Kind == yaml.AliasNode && v.Alias != nil {
				v = v.Alias
			}
			if v.Kind == yaml.SequenceNode {
				sources = append(sources, v.Content...)
			} else {
				sources = append(sources, v)
			}
			continue
		}
		out.Content = append(out.Content, n.Content[i], n.Content[i+1])
		set[n.Content[i].Value] = true
	}
	for _, src := range sources {
		src = expandMerges(src)
		if src.Kind != yaml.MappingNode {
			out.Content = append(out.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "<<", Line: src.Line, Column: src.Column}, src)
			continue
		}
		for i := 0; i+1 < len(src.Content); i += 2 {
			if k := src.Content[i].Value; !set[k] {
				set[k] = true
				out.Content = append(out.Content, src.Content[i], src.Content[i+1])
			}
		}
	}
	return &out
}

// typeErrors are a decoding error's lines, or the error itself when it
// is not a yaml.TypeError (one that ends the decoding); none for nil.
func typeErrors(err error) ([]string, error) {
	if te, ok := err.(*yaml.TypeError); ok {
		return te.Errors, nil
	}
	return nil, err
}

// fieldKeys are the keys of struct type t's fields.
func fieldKeys(t reflect.Type) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		if k := keyName(t.Field(i)); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}
