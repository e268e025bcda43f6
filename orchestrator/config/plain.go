package config

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/internal/near"
)

// The YAML decoder and viper speak Go ("field cpu not found in type
// config.VM", "cannot unmarshal !!str `five` into int", "strconv.ParseInt:
// invalid syntax"); a user fixes a key and a value, so their errors are
// said again here in those words: the dotted key, the value as written,
// what the key takes, and the nearest key when one was mistyped.

var (
	yamlUnknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type \S+$`)
	yamlAlreadySet   = regexp.MustCompile(`^line (\d+): field (\S+) already set in type \S+$`)
	yamlCannot       = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+)(?: `(.*)`)? into (\\S+)$")
	yamlLine         = regexp.MustCompile(`^line (\d+): (.*)$`)
	parseAs          = regexp.MustCompile(`cannot parse value as '([^']+)': strconv\.\w+: .*$`)
	unconvertible    = regexp.MustCompile(`expected type '([^']+)', got unconvertible type '[^']+'`)
)

// maxErrorsSaid bounds the decoder's errors said one by one: each walks
// the document's tree for its key, and a file of thousands of unknown
// keys would be walked thousands of times for a message nobody reads.
const maxErrorsSaid = 10

// plainYAMLErrors says the decoder's errors (one per line of a
// yaml.TypeError) in the user's words, as a FileError on the first one's
// line and key, the others after it (the first maxErrorsSaid, then how
// many more).
func plainYAMLErrors(file string, root *yaml.Node, lines []string) *FileError {
	var fe *FileError
	var more []string
	rest := 0
	if len(lines) > maxErrorsSaid {
		lines, rest = lines[:maxErrorsSaid], len(lines)-maxErrorsSaid
	}
	for _, l := range lines {
		e := plainYAMLError(file, root, l)
		if fe == nil {
			fe = e
			continue
		}
		more = append(more, e.Error())
	}
	if len(more) > 0 {
		fe.Msg += "; also " + strings.Join(more, "; ")
	}
	if rest > 0 {
		fe.Msg += fmt.Sprintf("; and %d more", rest)
	}
	fe.Msg += " (see `kregress config` for every key and its default)"
	return fe
}

func plainYAMLError(file string, root *yaml.Node, line string) *FileError {
	if m := yamlUnknownField.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		key := keyAt(root, n, m[2])
		msg := "no such key"
		if near := near.Nearest(key, knownKeys()); near != "" {
			msg += " (did you mean " + near + "?)"
		}
		return &FileError{File: file, Line: n, Key: key, Msg: msg}
	}
	if m := yamlAlreadySet.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &FileError{File: file, Line: n, Key: keyAt(root, n, m[2]), Msg: "given twice (keep one)"}
	}
	if m := yamlCannot.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		key := keyAt(root, n, "")
		var got string
		switch m[2] {
		case "seq":
			got = "a list"
		case "map":
			got = "a mapping (key: value lines)"
		default:
			got = strconv.Quote(m[3])
		}
		if isSection(m[4]) {
			return &FileError{File: file, Line: n, Key: key, Msg: "is a section (key: value lines indented below it), not " + got}
		}
		return &FileError{File: file, Line: n, Key: key, Msg: got + " is not " + kindWords(m[4])}
	}
	if m := yamlLine.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &FileError{File: file, Line: n, Key: keyAt(root, n, ""), Msg: m[2]}
	}
	return &FileError{File: file, Msg: line}
}

// kindWords says what a value of Go type typ is, for a user.
func kindWords(typ string) string {
	switch {
	case strings.HasSuffix(typ, "Duration"):
		return "a duration (e.g. 10s, 2m)"
	case strings.HasPrefix(typ, "[]"):
		return "a list (e.g. [a, b])"
	case strings.HasPrefix(typ, "map["):
		return "a mapping (key: value lines)"
	case isSection(typ):
		return "a single value: this key is a section of keys"
	case strings.HasPrefix(typ, "uint"):
		return "a whole number >= 0"
	case strings.HasPrefix(typ, "int"):
		return "a whole number"
	case strings.HasPrefix(typ, "float"):
		return "a number"
	case typ == "bool":
		return "true or false"
	case typ == "string":
		return "text"
	}
	return "a value of the right kind (see `kregress config`)"
}

// isSection reports whether Go type typ is a section of keys (a struct
// of this package or another, e.g. config.VM), not a value.
func isSection(typ string) bool {
	return strings.Contains(typ, ".") && !strings.HasPrefix(typ, "[]") && !strings.HasPrefix(typ, "map[") && !strings.HasSuffix(typ, "Duration")
}

// plainParse says viper's "cannot parse value as 'int': strconv..." for
// value: `"abc" is not a whole number`; other messages are kept.
func plainParse(msg, value string) string {
	if m := unconvertible.FindStringSubmatch(msg); m != nil && strings.HasPrefix(m[1], "map[") {
		// Only the environment gives a mapping as one string: its
		// flag takes name=value pairs.
		return "a mapping cannot be set from the environment: set it in the experiment file, or with its flag (name=value pairs)"
	}
	m := parseAs.FindStringSubmatch(msg)
	if m == nil {
		m = unconvertible.FindStringSubmatch(msg)
	}
	if m == nil {
		return msg
	}
	return strconv.Quote(value) + " is not " + kindWords(m[1])
}

// splitElem splits viper's name of a map's element, key[elem], into the
// key and the element ("" for a plain key).
func splitElem(name string) (key, elem string) {
	key, elem, ok := strings.Cut(name, "[")
	if !ok {
		return name, ""
	}
	return key, strings.TrimSuffix(elem, "]")
}

// pairValue is elem's value in "a=1,b=2" (text itself when elem is "").
func pairValue(text, elem string) string {
	if elem == "" {
		return text
	}
	for _, kv := range strings.Split(strings.Trim(text, "[]"), ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == elem {
			return v
		}
	}
	return text
}

// keyAt is the dotted key on line n of the document root: the key named
// name there, or the first key there when name is "" (a value's line).
func keyAt(root *yaml.Node, n int, name string) string {
	var walk func(node *yaml.Node, prefix string) string
	walk = func(node *yaml.Node, prefix string) string {
		switch node.Kind {
		case yaml.DocumentNode:
			for _, c := range node.Content {
				if k := walk(c, prefix); k != "" {
					return k
				}
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(node.Content); i += 2 {
				k, v := node.Content[i], node.Content[i+1]
				if k.Line == n && (name == "" || k.Value == name) {
					return prefix + k.Value
				}
				if found := walk(v, prefix+k.Value+"."); found != "" {
					return found
				}
			}
		case yaml.SequenceNode:
			for _, c := range node.Content {
				if k := walk(c, prefix); k != "" {
					return k
				}
			}
		}
		return ""
	}
	if root != nil {
		if k := walk(root, ""); k != "" {
			return k
		}
	}
	return name
}

// knownKeys are the keys a file may name: those env and flags set, and
// the file-only and written ones.
func knownKeys() []string {
	keys := Keys()
	for k := range fileOnlyKeys {
		keys = append(keys, k)
	}
	for k := range writtenKeys {
		keys = append(keys, k)
	}
	return keys
}

// EnvPrefix begins every environment variable kregress reads.
const EnvPrefix = "KREGRESS_"

// otherEnv are the KREGRESS_ variables that are no configuration key's:
// read by kregress's executors, its benchmarks and its tests.
var otherEnv = []string{"KREGRESS_ATTEMPT", "KREGRESS_BIN", "KREGRESS_E2E_CACHE", "KREGRESS_FAKE_QEMU",
	"KREGRESS_FAKE_QEMU_LOG", "KREGRESS_STORETEST_WRITER", "KREGRESS_UPDATE_GOLDEN", "KREGRESS_VERIFY_TREES"}

// EnvName is the environment variable that sets key (vm.cpus:
// KREGRESS_VM_CPUS).
func EnvName(key string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// UnknownEnv warns, one sentence each, of the KREGRESS_ variables in
// environ (os.Environ's form) that no key reads: a mistyped one
// (KREGRESS_VM_CPU) would otherwise be ignored in silence.
func UnknownEnv(environ []string) []string {
	known := slices.Clone(otherEnv)
	for _, k := range Keys() {
		known = append(known, EnvName(k))
	}
	var warn []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, EnvPrefix) || slices.Contains(known, name) {
			continue
		}
		w := fmt.Sprintf("%s is set but no configuration key reads it: ignored", name)
		if near := near.Nearest(name, known); near != "" {
			w += " (did you mean " + near + "?)"
		} else {
			w += " (kregress config lists every key; its variable is KREGRESS_ and the key in capitals, dots as _)"
		}
		warn = append(warn, w)
	}
	slices.Sort(warn)
	return warn
}

// envOrFlagValue is the text given for key by a flag set in flags or
// else the environment, for an error about it.
func envOrFlagValue(key string, flagValue func(string) (string, bool)) string {
	if v, ok := flagValue(key); ok {
		return v
	}
	return os.Getenv(EnvName(key))
}
