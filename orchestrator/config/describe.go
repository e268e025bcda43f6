package config

import (
	"strings"
)

// Describe is a built-in experiment's description: the comment block
// that opens its YAML file, joined into one paragraph ("" for a name
// that is not built in). Summary cuts it to its first sentence.
func Describe(name string) string {
	var data []byte
	if name == "rstat-relock" {
		data = defaultYAML
	} else if b, err := builtinExperiments.ReadFile("experiments/" + name + ".yaml"); err == nil {
		data = b
	} else {
		return ""
	}
	var words []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		words = append(words, strings.Fields(strings.TrimPrefix(line, "#"))...)
	}
	return strings.Join(words, " ")
}

// Summary is the first sentence of a description, at most max runes
// (cut at a word, with "...").
func Summary(desc string, max int) string {
	if i := strings.Index(desc, ". "); i >= 0 {
		desc = desc[:i+1]
	}
	r := []rune(desc)
	if len(r) <= max {
		return desc
	}
	cut := string(r[:max-3])
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, ",;:") + "..."
}
