package config

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/internal/doclimit"

	"github.com/kregress/kregress/internal/regularfile"
	"github.com/kregress/kregress/results/verdict"
)

// Loader is Load bound to a command's flags, for a command that measures
// in experiments other than its own -c (a resumed bisect's, a night's, a
// seed set's): each is resolved with the same flag overrides.
func Loader(flags *pflag.FlagSet) func(experiment string) (*Config, error) {
	return func(experiment string) (*Config, error) {
		cfg, _, err := Load(experiment, flags)
		return cfg, err
	}
}

// readConfigFile reads file from disk or, when there is no such file, the
// built-in experiment of that name.
func readConfigFile(file string) ([]byte, error) {
	data, err := readCapped(file, maxConfigSize)
	if err == nil {
		return data, nil
	}
	if errors.Is(err, os.ErrNotExist) && !strings.ContainsRune(file, '/') {
		if file == "rstat-relock" {
			return defaultYAML, nil
		}
		if b, berr := builtinExperiments.ReadFile("experiments/" + file + ".yaml"); berr == nil {
			return b, nil
		}
		return nil, fmt.Errorf("config: %s: no such file, nor a built-in experiment (built in: %s)", file, strings.Join(Experiments(), ", "))
	}
	return nil, fmt.Errorf("config: %w", err)
}

// maxConfigSize bounds an experiment file: the built-in ones are a few
// KB, and a config (with its patch families) has no reason to be megabytes;
// a larger one is a mistake (the wrong file) or hostile.
const maxConfigSize = 1 << 20

// readCapped reads a file of at most max bytes; a larger one is an error
// that names the file and the cap, read no further than the cap.
func readCapped(file string, max int64) ([]byte, error) {
	// A regular file only: open(2) of a FIFO without a writer would
	// wait for one for ever.
	f, _, err := regularfile.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d KiB: not an experiment file", file, max>>10)
	}
	return data, nil
}

// hostDefaults fills what depends on the machine: vCPUs up to the host's
// cores (a latency metric is noise once vCPUs outnumber host cores), make
// jobs, and the per-user cache and data directories. They are the
// lowest layer: the default experiment, a file, env or flags override.
func hostDefaults(c *Config) {
	cpus := runtime.NumCPU()
	c.VM.CPUs = min(cpus, 8)
	c.Kernel.Jobs = cpus + 1
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	c.CacheDir = filepath.Join(cache, "kregress")
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" {
		home, _ := os.UserHomeDir()
		data = filepath.Join(home, ".local", "share")
	}
	c.ResultsDir = filepath.Join(data, "kregress")
	c.Agent = "kagent"
	if exe, err := os.Executable(); err == nil {
		c.Agent = filepath.Join(filepath.Dir(exe), "kagent")
	}
}

// FileError is a configuration file problem, with its line when known.
type FileError struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *FileError) Error() string {
	var where []string
	if e.Line > 0 {
		where = append(where, fmt.Sprintf("line %d", e.Line))
	}
	if e.Key != "" {
		where = append(where, "key "+e.Key)
	}
	if len(where) == 0 {
		return fmt.Sprintf("config %s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("config %s: %s: %s", e.File, strings.Join(where, ", "), e.Msg)
}

// ExitStatus is a usage error's: the file must change.
func (e *FileError) ExitStatus() verdict.Exit { return verdict.ExitUsage }

// Load resolves the configuration. file may be empty (built-in default);
// flags, if given, override everything else for the keys they are bound to
// (flag name = key with dots, e.g. --vm.cpus).
func Load(file string, flags *pflag.FlagSet) (*Config, *yaml.Node, error) {
	var c Config
	hostDefaults(&c)
	c.Executor.ownBlocks()
	if _, err := decodeYAML(&c, "(built-in default)", defaultYAML); err != nil {
		return nil, nil, fmt.Errorf("built-in default config: %w", err)
	}
	name := "(built-in default)"
	var root *yaml.Node
	dir, _ := os.Getwd()
	if file != "" {
		name = file
		data, err := readConfigFile(file)
		if err != nil {
			return nil, nil, err
		}
		// The default's variant list belongs to its family: a file that
		// picks another family without listing variants gets all of
		// them (unless env or a flag lists them: they come next).
		if root, err = decodeYAML(&c, file, data); err != nil {
			return nil, nil, err
		}
		if LineOf(root, "family") > 0 && LineOf(root, "variants") == 0 {
			c.Variants = []string{}
		}
		if _, err := os.Stat(file); err == nil {
			if abs, err := filepath.Abs(file); err == nil {
				dir = filepath.Dir(abs)
			}
			// A fragment path in the file is relative to the file, as
			// its patches are; a flag's (which replaces the list) stays
			// relative to the working directory.
			if LineOf(root, "kernel.fragments") > 0 {
				relativeTo(dir, c.Kernel.Fragments)
			}
			if LineOf(root, "debug.fragments") > 0 {
				relativeTo(dir, c.Debug.Fragments)
			}
		}
	}
	err := overlay(&c, flags)
	if err == nil {
		c.Dir = dir
		err = c.Validate()
	}
	if err == nil && c.Executor.Kind != LocalExecutor {
		// Every node must see the kernels, images and artifacts.
		c.CacheDir = filepath.Join(c.Executor.SharedDir, "cache")
		c.ResultsDir = filepath.Join(c.Executor.SharedDir, "results")
	}
	if err != nil {
		if fe, ok := err.(*FileError); ok {
			// Name where the bad value came from: a flag or the
			// environment override the file, so blaming the file's
			// line (or the built-in default) would send the user to
			// the wrong place.
			env := EnvName(fe.Key)
			switch {
			case flags != nil && flags.Lookup(FlagFor(fe.Key)) != nil && flags.Changed(FlagFor(fe.Key)):
				fe.File = "flag --" + flags.Lookup(FlagFor(fe.Key)).Name
			case os.Getenv(env) != "":
				fe.File = "environment " + env
			default:
				fe.File = name
				if root != nil && fe.Line == 0 {
					fe.Line = LineOf(root, fe.Key)
				}
			}
		}
		return nil, nil, err
	}
	return &c, root, nil
}

// relativeTo makes each relative path among fragment names absolute
// against dir (fileRelative).
func relativeTo(dir string, names []string) {
	for i, n := range names {
		names[i] = fileRelative(dir, n)
	}
}

// fileRelative is p, a name or path written in an experiment file in
// directory dir, with a relative path made absolute against dir; a name
// (no "/": a built-in fragment, a program on PATH) or dir "" leaves it
// as it is.
func fileRelative(dir, p string) string {
	if dir != "" && strings.ContainsRune(p, '/') && !filepath.IsAbs(p) {
		return filepath.Join(dir, p)
	}
	return p
}

// decodeYAML decodes a YAML document (the default experiment or file)
// over c with yaml.v3, strictly: an unknown key (or one in the wrong
// case), a wrong type or a mapping where a value belongs is an error
// naming the line and the key. Keys the document does not name keep c's
// values. It returns the document's node tree, for the lines of the keys
// Validate refuses (LineOf).
func decodeYAML(c *Config, file string, data []byte) (*yaml.Node, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &FileError{File: file, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	// Before decoding: the decoder's duplicate check, and the walks of
	// the tree below, take time by the keys, not by the bytes.
	if err := doclimit.YAML(&root); err != nil {
		return nil, &FileError{File: file, Msg: err.Error()}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		lines := []string{strings.TrimPrefix(err.Error(), "yaml: ")}
		var te *yaml.TypeError
		if errors.As(err, &te) {
			lines = te.Errors
		}
		return nil, plainYAMLErrors(file, &root, lines)
	}
	var host Config
	hostDefaults(&host)
	if err := asLayered(reflect.ValueOf(c).Elem(), reflect.ValueOf(host), &root, "", file); err != nil {
		return nil, err
	}
	return &root, nil
}

// asLayered keeps the rules of the layered decoding that the file's
// values had before yaml.v3 decoded them alone (viper decoded them, and
// the tests and users rely on the errors): a key with no value (null)
// is its type's zero, not left at the default experiment's, so that
// "repetitions:" is refused as 0 rather than silently 5, but a key with
// a host default (host: hostDefaults; vm.cpus, kernel.jobs, agent, the
// directories) falls back to it, as viper's defaults layer did, and a
// duration without a value is "", not a duration; a bool
// is true or false, not one of YAML 1.1's yes/no/on/off words that
// yaml.v3 still takes.
func asLayered(v, host reflect.Value, n *yaml.Node, prefix, file string) error {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode || v.Kind() != reflect.Struct {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if v.Type() == executorType {
			// A kind's block has no host defaults: null is its zero.
			if b, ok := v.Addr().Interface().(*Executor).blocks[k.Value]; ok {
				bv := reflect.ValueOf(b).Elem()
				if err := asLayered(bv, reflect.Zero(bv.Type()), val, prefix+k.Value+".", file); err != nil {
					return err
				}
				continue
			}
		}
		for j := 0; j < v.NumField(); j++ {
			if keyName(v.Type().Field(j)) != k.Value {
				continue
			}
			f := v.Field(j)
			switch {
			case f.Kind() == reflect.Struct:
				if err := asLayered(f, host.Field(j), val, prefix+k.Value+".", file); err != nil {
					return err
				}
			case val.ShortTag() == "!!null":
				// A text value (a duration) was decoded from "": an
				// error, not zero (executor.slurm.poll: would pass).
				if u, ok := f.Addr().Interface().(encoding.TextUnmarshaler); ok {
					if err := u.UnmarshalText(nil); err != nil {
						return &FileError{File: file, Line: k.Line, Key: prefix + k.Value, Msg: err.Error()}
					}
				}
				f.Set(host.Field(j))
			case f.Kind() == reflect.Bool && val.ShortTag() != "!!bool":
				return &FileError{File: file, Line: k.Line, Key: prefix + k.Value, Msg: strconv.Quote(val.Value) + " is not " + kindWords("bool")}
			case isInt(f.Type()) && fractional(val):
				// yaml.v3 truncates 2.5 into an int field without a word.
				return &FileError{File: file, Line: val.Line, Key: prefix + k.Value, Msg: strconv.Quote(val.Value) + " is not a whole number"}
			case f.Kind() == reflect.Slice && isInt(f.Type().Elem()) && val.Kind == yaml.SequenceNode:
				for _, e := range val.Content {
					if fractional(e) {
						return &FileError{File: file, Line: e.Line, Key: prefix + k.Value, Msg: strconv.Quote(e.Value) + " is not a whole number"}
					}
				}
			}
		}
	}
	return nil
}

// fileOnlyKeys are read from the experiment file only, never from the
// environment or flags (their values are documents, not scalars).
var fileOnlyKeys = map[string]bool{"families": true, "workload.benchmark": true}

// writtenKeys are written by kregress into a run's stored configuration,
// never set by a user: no environment variable or flag sets them. A file
// may carry them: `results show RUN --config` reproduces a stored run's
// configuration for `run -c`, and why the run judged what it judged
// still holds for it.
var writtenKeys = map[string]bool{"primary_fallback": true}

// overlay lays the environment (KREGRESS_VM_CPUS for vm.cpus) and the
// flags AddFlags made that were set over c, through viper and the yaml
// tags. A value of the wrong type is a FileError naming the key, which
// Load places (the flag, the variable).
func overlay(c *Config, flags *pflag.FlagSet) error {
	v := viper.New()
	// AutomaticEnv alone is ignored by Unmarshal for keys viper does not
	// know; bind every key, with dots as underscores.
	v.SetEnvPrefix("KREGRESS")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	for _, k := range Keys() {
		v.BindEnv(k)
		if flags == nil {
			continue
		}
		// Only a flag AddFlags made for this key sets it, and only when
		// set: an unset flag's default would override the file.
		if f := flags.Lookup(FlagFor(k)); f != nil && len(f.Annotations[FlagAnnotation]) > 0 && f.Changed {
			v.BindPFlag(k, f)
		}
	}
	// Each kind's block is decoded into its own value (which Config
	// holds but mapstructure does not see), named by its dotted key.
	settings := v.AllSettings()
	if err := decodeLayer(c, settings, "", flags); err != nil {
		return err
	}
	executor, _ := settings["executor"].(map[string]any)
	for _, k := range blockKinds() {
		if block, ok := executor[k.name]; ok {
			if err := decodeLayer(c.Executor.own(k), block, "executor."+k.name+".", flags); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodeLayer decodes viper's settings over out through the yaml tags:
// out is c, or a block whose keys are prefix's. A value of the wrong type
// is a FileError naming the key.
func decodeLayer(out, settings any, prefix string, flags *pflag.FlagSet) error {
	hook := mapstructure.ComposeDecodeHookFunc(mapstructure.TextUnmarshallerHookFunc(), mapstructure.StringToSliceHookFunc(","), intListHook)
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		DecodeHook:       hook,
		Result:           out,
		WeaklyTypedInput: true,
		TagName:          "yaml",
		// A map or list from env or a flag replaces the file's, as a
		// scalar does, rather than merging into it.
		ZeroFields: true,
	})
	if err != nil {
		return err
	}
	if err := dec.Decode(settings); err != nil {
		var de *mapstructure.DecodeError
		if errors.As(err, &de) {
			msg := strings.TrimPrefix(de.Unwrap().Error(), "error decoding '"+de.Name()+"': ")
			// A map's element (noise_floor_pct[reads_per_sec]) is
			// placed by its key, and named in the message.
			key, elem := splitElem(prefix + de.Name())
			value := pairValue(envOrFlagValue(key, func(key string) (string, bool) {
				if flags == nil {
					return "", false
				}
				f := flags.Lookup(FlagFor(key))
				if f == nil || !f.Changed {
					return "", false
				}
				return f.Value.String(), true
			}), elem)
			msg = plainParse(msg, value)
			if elem != "" {
				msg = elem + ": " + msg
			}
			return &FileError{Key: key, Msg: msg}
		}
		return &FileError{Msg: err.Error()}
	}
	return nil
}

// intListHook splits the text of a list of numbers from the environment
// ("2,8,16" for vm.cpus_sweep) into its elements, which the weakly typed
// decoding then reads as numbers (StringToSliceHookFunc splits text for
// lists of text only).
func intListHook(from, to reflect.Type, data any) (any, error) {
	s, ok := data.(string)
	if !ok || from.Kind() != reflect.String || to.Kind() != reflect.Slice || to.Elem().Kind() != reflect.Int {
		return data, nil
	}
	if strings.TrimSpace(s) == "" {
		return []string{}, nil
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts, nil
}

// LineOf finds the line of a dotted key in a YAML document (0 if absent).
func LineOf(root *yaml.Node, key string) int {
	if root == nil || key == "" {
		return 0
	}
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 0
	for _, part := range strings.Split(key, ".") {
		if n.Kind != yaml.MappingNode {
			return line
		}
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				line = n.Content[i].Line
				n = n.Content[i+1]
				found = true
				break
			}
		}
		if !found {
			return 0
		}
	}
	return line
}

// keyName is a field's key: its yaml tag's name ("" for a field that is
// no key: yaml "-", derived).
func keyName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// eachKey calls fn with every dotted key of struct type t that env and
// flags can set (not the file-only ones) and its Go type.
func eachKey(t reflect.Type, prefix string, fn func(key string, t reflect.Type)) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := keyName(f)
		if name == "" || fileOnlyKeys[prefix+name] || writtenKeys[prefix+name] {
			continue
		}
		if f.Type == executorType {
			eachKey(ExecutorLayout(), prefix+name+".", fn)
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			eachKey(f.Type, prefix+name+".", fn)
			continue
		}
		fn(prefix+name, f.Type)
	}
}

// Keys lists every configuration key that env and flags can set (for
// --help and `kregress config`).
func Keys() []string {
	var keys []string
	eachKey(reflect.TypeOf(Config{}), "", func(k string, _ reflect.Type) { keys = append(keys, k) })
	return keys
}

// isInt reports whether t is a signed or unsigned integer type.
func isInt(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// fractional reports whether n is a YAML float that is not a whole
// number (2.5, .inf): yaml.v3 would truncate it into an integer field.
func fractional(n *yaml.Node) bool {
	if n.ShortTag() != "!!float" {
		return false
	}
	var f float64
	if err := n.Decode(&f); err != nil {
		return true
	}
	return f != math.Trunc(f) || math.IsInf(f, 0)
}
