// Package doclimit bounds the keys of a YAML or JSON document read from
// outside (an experiment file, a benchmark's output) before it is
// decoded: a size cap alone does not bound the time, as yaml.v3 checks
// each mapping's keys for duplicates pairwise (a megabyte of one flat
// mapping takes minutes), and every later walk of the tree is paid per
// key.
package doclimit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// MaxKeys bounds the keys of one document, all mappings together: far
// above an experiment file's or a benchmark report's (fio's JSON for
// dozens of jobs), and decoded in a fraction of a second.
const MaxKeys = 50000

// MaxMappingKeys bounds the keys of one mapping (or JSON object): the
// pairwise duplicate check is quadratic in it.
const MaxMappingKeys = 4096

// TooManyKeysError: the document has more keys than a cap allows.
type TooManyKeysError struct {
	Limit int
	// Line is the line of the mapping over MaxMappingKeys (0 for the
	// whole document, or a JSON object).
	Line    int
	Mapping bool
}

func (e *TooManyKeysError) Error() string {
	switch {
	case e.Mapping && e.Line > 0:
		return fmt.Sprintf("the mapping on line %d has more than %d keys: refused before decoding", e.Line, e.Limit)
	case e.Mapping:
		return fmt.Sprintf("an object has more than %d keys: refused before decoding", e.Limit)
	}
	return fmt.Sprintf("more than %d keys: refused before decoding", e.Limit)
}

// YAML checks the node tree root (yaml.Unmarshal into a yaml.Node,
// which builds it in time linear in the input) against the caps. An
// alias is not followed: the decoder bounds aliasing itself.
func YAML(root *yaml.Node) error {
	total := 0
	stack := []*yaml.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil {
			continue
		}
		if n.Kind == yaml.MappingNode {
			keys := len(n.Content) / 2
			if keys > MaxMappingKeys {
				return &TooManyKeysError{Limit: MaxMappingKeys, Line: n.Line, Mapping: true}
			}
			if total += keys; total > MaxKeys {
				return &TooManyKeysError{Limit: MaxKeys}
			}
		}
		stack = append(stack, n.Content...)
	}
	return nil
}

// JSON checks the first JSON value in data against the caps, reading
// its tokens (linear, nothing decoded); what follows the value is not
// looked at. A syntax error is left for the decoder to report.
func JSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	// Per open object: its keys so far; a key is every other token
	// inside an object.
	type open struct {
		object bool
		tokens int
	}
	var stack []open
	total := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return nil
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			top := &stack[len(stack)-1]
			if d, ok := tok.(json.Delim); !ok || d != '}' {
				if top.tokens%2 == 0 {
					if total++; total > MaxKeys {
						return &TooManyKeysError{Limit: MaxKeys}
					}
					if top.tokens/2+1 > MaxMappingKeys {
						return &TooManyKeysError{Limit: MaxMappingKeys, Mapping: true}
					}
				}
				top.tokens++
			}
		} else if len(stack) > 0 {
			stack[len(stack)-1].tokens++
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, open{object: true})
		case json.Delim('['):
			stack = append(stack, open{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return nil
		}
	}
}
