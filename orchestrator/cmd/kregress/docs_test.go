package main

// The docs test: every `kregress ...` command line in README.md and
// docs/*.md must parse against the real command tree (the command exists,
// its flags exist and are spelt as the tree spells them, values have the
// flag's type, argument counts hold); every command is shown at least
// once; every configuration key is documented in docs/configuration.md and
// every key documented there exists. This is what keeps help, README and reference from drifting
// apart; help_test.go checks the --help examples. It
// runs in-process on newRoot(): no binary, no store, nothing is executed.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/orchestrator/config"
)

// repoRoot is where README.md lives, from this package's directory.
const repoRoot = "../../.."

// docCommand is one kregress command line found in a document.
type docCommand struct {
	where string   // file:line, or the command whose Example it is
	args  []string // the words after "kregress"
}

func (d docCommand) String() string {
	return fmt.Sprintf("%s: kregress %s", d.where, strings.Join(d.args, " "))
}

// inlineCode matches a Markdown code span, which may continue on the next
// line of its paragraph.
var inlineCode = regexp.MustCompile("`([^`]+)`")

// extractCommands finds the kregress command lines of a Markdown text:
// in fenced code blocks, every shell command (a line, with its backslash
// continuations) whose program is kregress; in prose, every code span that
// starts with kregress. Lines of program output inside fences are not
// commands, since they do not start with the program's name.
func extractCommands(name, text string) []docCommand {
	var out []docCommand
	lines := strings.Split(text, "\n")
	inFence := false
	var para []string // the prose paragraph being read
	paraStart := 0
	flushPara := func() {
		joined := strings.Join(para, "\n")
		for _, m := range inlineCode.FindAllStringSubmatchIndex(joined, -1) {
			span := strings.TrimSpace(strings.ReplaceAll(joined[m[2]:m[3]], "\n", " "))
			where := fmt.Sprintf("%s:%d", name, paraStart+strings.Count(joined[:m[0]], "\n")+1)
			if words := strings.Fields(span); len(words) > 0 && isKregress(words[0]) {
				out = append(out, shellCommands(where, span)...)
			}
		}
		para = nil
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			flushPara()
			inFence = !inFence
			continue
		}
		if inFence {
			where := fmt.Sprintf("%s:%d", name, i+1)
			for strings.HasSuffix(strings.TrimSpace(line), `\`) && i+1 < len(lines) {
				line = strings.TrimSuffix(strings.TrimSpace(line), `\`) + " " + lines[i+1]
				i++
			}
			out = append(out, shellCommands(where, line)...)
			continue
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "|") {
			// A table row is a paragraph of its own: a span never
			// continues from one row into the next.
			flushPara()
			if trimmed == "" {
				continue
			}
			paraStart = i
			para = []string{line}
			flushPara()
			continue
		}
		if para == nil {
			paraStart = i
		}
		para = append(para, line)
	}
	flushPara()
	return out
}

// shellVar matches a word that is one shell variable: $NAME or ${NAME}.
var shellVar = regexp.MustCompile(`^\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)$`)

// isKregress says whether a shell word runs kregress: the installed name
// or the repository's build output.
func isKregress(word string) bool {
	return word == "kregress" || word == "bin/kregress" || word == "./bin/kregress"
}

// shellCommands splits one shell line into its commands (at |, &&, ||,
// ;) and returns those that run kregress: directly, after environment
// assignments, or as the program of `git bisect run`. Quotes are honoured,
// a word starting with # ends the line, redirections are dropped.
func shellCommands(where, line string) []docCommand {
	line = strings.TrimPrefix(strings.TrimSpace(line), "$ ")
	var out []docCommand
	for _, words := range splitShell(line) {
		for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
			words = words[1:] // KREGRESS_VM_CPUS=4 kregress ...
		}
		if len(words) >= 3 && words[0] == "git" && words[1] == "bisect" && words[2] == "run" {
			words = words[3:]
		}
		if len(words) == 0 || !isKregress(words[0]) {
			continue
		}
		args := append([]string(nil), words[1:]...)
		for i, w := range args {
			// The shell expands a variable; the document cannot know
			// its value, only that it is one word ($SLURM_ARRAY_TASK_ID
			// for --index): stand in a number, which every flag type
			// that a variable feeds here (int, string) accepts.
			if shellVar.MatchString(w) {
				args[i] = "1"
			}
		}
		out = append(out, docCommand{where: where, args: args})
	}
	return out
}

// splitShell tokenizes a shell line into commands of words: enough of
// POSIX sh for documentation (quotes, comments, pipes, lists,
// redirections), not a shell.
func splitShell(line string) [][]string {
	var cmds [][]string
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	flushWord := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	flushCmd := func() {
		flushWord()
		cmds = append(cmds, dropRedirections(words))
		words = nil
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			flushWord()
		case r == '#' && !inWord:
			flushCmd()
			return cmds
		case r == '|' || r == ';' || (r == '&' && i+1 < len(rs) && rs[i+1] == '&'):
			flushCmd()
			if i+1 < len(rs) && (rs[i+1] == '|' || rs[i+1] == '&') {
				i++
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	flushCmd()
	return cmds
}

// dropRedirections removes "> file", ">file", "2>&1" and the like.
func dropRedirections(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := strings.TrimLeft(words[i], "0123456789")
		if strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<") {
			if w == ">" || w == ">>" || w == "<" {
				i++ // the file is the next word
			}
			continue
		}
		out = append(out, words[i])
	}
	return out
}

// newDocsRoot is the command tree as a user meets it: with the help and
// completion commands cobra adds at Execute, and every command's --help
// flag.
func newDocsRoot() *cobra.Command {
	root := newRoot()
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.InitDefaultVersionFlag()
	walkTree(root, func(c *cobra.Command) { c.InitDefaultHelpFlag() })
	return root
}

// walkTree calls f on c and every command below it, help and completion
// included (help_test.go's walkCommands leaves them out).
func walkTree(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		walkTree(sub, f)
	}
}

// checkCommand parses one documented command line against a fresh command
// tree and returns the command it names, or why it does not parse. A flag
// must be written as the tree names it (not a deprecated alias, not an
// underscore spelling that normalisation happens to accept): the docs
// teach the one vocabulary.
func checkCommand(d docCommand) (*cobra.Command, error) {
	root := newDocsRoot()
	cmd, rest, err := root.Find(d.args)
	if err != nil {
		return nil, err
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return nil, fmt.Errorf("%s: %w", cmd.CommandPath(), err)
	}
	pos := cmd.Flags().Args()
	if cmd.HasAvailableSubCommands() && !cmd.Runnable() && len(pos) > 0 {
		return nil, fmt.Errorf("%s has no subcommand %q", cmd.CommandPath(), pos[0])
	}
	if err := cmd.ValidateArgs(pos); err != nil {
		return nil, fmt.Errorf("%s: %w", cmd.CommandPath(), err)
	}
	for _, w := range rest {
		if w == "--" {
			break
		}
		if !strings.HasPrefix(w, "--") || len(w) == 2 {
			continue
		}
		name, _, _ := strings.Cut(w[2:], "=")
		f := cmd.Flags().Lookup(name)
		if f == nil {
			continue // a flag's value that looks like a flag; Parse accepted it
		}
		if f.Name != name {
			return nil, fmt.Errorf("%s: --%s is spelt --%s", cmd.CommandPath(), name, f.Name)
		}
		if f.Deprecated != "" {
			return nil, fmt.Errorf("%s: --%s is deprecated: %s", cmd.CommandPath(), name, f.Deprecated)
		}
	}
	if cmd.Deprecated != "" {
		return nil, fmt.Errorf("%s is deprecated: %s", cmd.CommandPath(), cmd.Deprecated)
	}
	return cmd, nil
}

// checkAll parses every command and returns one message per command that
// does not parse, and the paths of the commands that do.
func checkAll(cmds []docCommand) (problems []string, shown map[string]bool) {
	shown = map[string]bool{}
	for _, d := range cmds {
		c, err := checkCommand(d)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%v\n\t%v", d, err))
			continue
		}
		// A command shown shows its parents (kregress results list
		// shows kregress results).
		for ; c.HasParent(); c = c.Parent() {
			shown[c.CommandPath()] = true
		}
	}
	return problems, shown
}

// docFiles are the documents a user reads: README.md and docs/*.md.
func docFiles(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	names = append(names, filepath.Join(repoRoot, "README.md"))
	files := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repoRoot, n)
		files[rel] = string(b)
	}
	return files
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func TestDocumentedCommandsParse(t *testing.T) {
	files := docFiles(t)
	var all []docCommand
	for _, name := range sortedKeys(files) {
		all = append(all, extractCommands(name, files[name])...)
	}
	if len(all) < 50 {
		t.Fatalf("found only %d kregress command lines in README.md and docs/: the extractor is broken", len(all))
	}
	problems, shown := checkAll(all)
	for _, p := range problems {
		t.Errorf("documented command does not parse: %s", p)
	}
	// Every command a user can run is shown at least once.
	walkTree(newDocsRoot(), func(c *cobra.Command) {
		if !c.IsAvailableCommand() || c.Name() == "help" || c.HasParent() && c.Parent().Name() == "completion" {
			return
		}
		if !shown[c.CommandPath()] && c.HasParent() {
			t.Errorf("%q appears in no command line of README.md or docs/", c.CommandPath())
		}
	})
	t.Logf("%d command lines checked, %d commands shown", len(all), len(shown))
}

// TestDocsCheckCatchesRenamedFlag proves the check can fail: a README
// whose first flag is renamed, whose first subcommand is misspelt, or
// whose flag takes a value of the wrong type does not pass.
func TestDocsCheckCatchesRenamedFlag(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	cmds := extractCommands("README.md", readme)
	if problems, _ := checkAll(cmds); len(problems) != 0 {
		t.Fatalf("the unmutated README must pass first: %v", problems)
	}
	flag := regexp.MustCompile(`kregress [^\n]*?(--[a-z][a-z.-]+)`).FindStringSubmatch(readme)
	if flag == nil {
		t.Fatal("README.md shows no kregress command with a long flag")
	}
	renamed := strings.Replace(readme, flag[0], strings.Replace(flag[0], flag[1], flag[1]+"-renamed", 1), 1)
	problems, _ := checkAll(extractCommands("README.md", renamed))
	if len(problems) != 1 || !strings.Contains(problems[0], flag[1]+"-renamed") {
		t.Errorf("README with %s renamed: want one problem naming it, got %q", flag[1], problems)
	}
	misspelt := strings.Replace(readme, "kregress results list", "kregress results lsit", 1)
	if misspelt == readme {
		t.Fatal("README.md shows no `kregress results list`")
	}
	if problems, _ := checkAll(extractCommands("README.md", misspelt)); len(problems) == 0 {
		t.Error("README with `results lsit` passed the check")
	}
	badValue := shellCommands("mutated", "kregress run --repetitions eight")
	if problems, _ := checkAll(badValue); len(problems) != 1 {
		t.Errorf("--repetitions eight: want one problem, got %q", problems)
	}
	if problems, _ := checkAll(shellCommands("mutated", "kregress run --vm.memory_mb 2048")); len(problems) != 1 {
		t.Errorf("--vm.memory_mb (underscore spelling): want one problem, got %q", problems)
	}
}

// TestExtractCommands pins what counts as a command line.
func TestExtractCommands(t *testing.T) {
	doc := "Run `kregress run -c x.yaml` or `make run`.\n" +
		"```sh\n" +
		"bin/kregress diff 12 \\\n  -f markdown   # a comment\n" +
		"KREGRESS_VM_CPUS=4 kregress results export 12 -f benchfmt > run12.txt && benchstat -col /variant run12.txt\n" +
		"git bisect run kregress bisect step --good v6.12 --bad HEAD --metric m\n" +
		"orchestrator/cmd/kregress   the CLI\n" +
		"verdict: no significant change (kregress selftests known)\n" +
		"kregress diff 'a b.json' b.json#stock\n" +
		"```\n" +
		"Then `kregress results\nshow 12` reads it.\n"
	got := extractCommands("doc.md", doc)
	want := []string{
		"doc.md:1: kregress run -c x.yaml",
		"doc.md:3: kregress diff 12 -f markdown",
		"doc.md:5: kregress results export 12 -f benchfmt",
		"doc.md:6: kregress bisect step --good v6.12 --bad HEAD --metric m",
		"doc.md:9: kregress diff a b.json b.json#stock",
		"doc.md:11: kregress results show 12",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d commands %v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("command %d: got %q, want %q", i, got[i], want[i])
		}
	}
	if got[4].args[1] != "a b.json" {
		t.Errorf("quoted word split: %q", got[4].args)
	}
}

// configFileKeys lists every key an experiment file may set: the yaml
// names of config.Config's fields, nested with dots (maps such as
// workload.params and families are one key each).
func configFileKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		if f.Type == reflect.TypeOf(config.Executor{}) {
			f.Type = config.ExecutorLayout() // with each kind's block
		}
		if f.Type.Kind() == reflect.Struct {
			keys = append(keys, configFileKeys(f.Type, prefix+name+".")...)
			continue
		}
		keys = append(keys, prefix+name)
	}
	return keys
}

// documentedKeys reads the first column of docs/configuration.md's key
// tables: rows starting with "| `key`".
func documentedKeys(text string) map[string]bool {
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9_.]+)` \\|")
	keys := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(text, -1) {
		keys[m[1]] = true
	}
	return keys
}

func TestEveryConfigKeyDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(text string) []string {
		var problems []string
		documented := documentedKeys(text)
		real := map[string]bool{}
		for _, k := range configFileKeys(reflect.TypeOf(config.Config{}), "") {
			real[k] = true
			if !documented[k] {
				problems = append(problems, fmt.Sprintf("config key %s has no row in docs/configuration.md", k))
			}
		}
		for _, k := range sortedKeys(documented) {
			if !real[k] {
				problems = append(problems, fmt.Sprintf("docs/configuration.md documents %s, which is not a config key", k))
			}
		}
		return problems
	}
	for _, p := range check(string(b)) {
		t.Error(p)
	}
	// The keys env and flags reach (mapstructure) are among the file's.
	fileKeys := map[string]bool{}
	for _, k := range configFileKeys(reflect.TypeOf(config.Config{}), "") {
		fileKeys[k] = true
	}
	for _, k := range config.Keys() {
		if k != "-" && !fileKeys[k] {
			t.Errorf("config.Keys() lists %s, which no experiment file can set", k)
		}
	}
	// The check fails on a dropped row and on a renamed key.
	dropped := regexp.MustCompile("(?m)^\\| `vm.cpus` \\|.*\n").ReplaceAllString(string(b), "")
	if p := check(dropped); len(p) != 1 || !strings.Contains(p[0], "vm.cpus") {
		t.Errorf("docs without the vm.cpus row: want one problem naming it, got %q", p)
	}
	renamed := strings.Replace(string(b), "| `vm.cpus` |", "| `vm.vcpus` |", 1)
	if p := check(renamed); len(p) != 2 {
		t.Errorf("docs with vm.cpus renamed vm.vcpus: want two problems, got %q", p)
	}
}

// TestExitCodesDocumented: every exit status the root help's table lists
// (help_test.go checks that table against the code's constants) has a
// row in docs/verdict.md's table (the README's short table links it), so
// the docs cannot lag behind the code.
func TestExitCodesDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "verdict.md"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(doc string) []string {
		var missing []string
		for _, m := range regexp.MustCompile(`(?m)^  (\d+) `).FindAllStringSubmatch(newRoot().Long, -1) {
			if !strings.Contains(doc, "\n| "+m[1]+" | ") {
				missing = append(missing, m[1])
			}
		}
		return missing
	}
	if missing := check(string(b)); len(missing) > 0 {
		t.Errorf("exit codes in kregress --help without a row in docs/verdict.md's table: %v", missing)
	}
	if missing := check(strings.Replace(string(b), "\n| 7 | ", "\n| seven | ", 1)); len(missing) != 1 {
		t.Errorf("docs/verdict.md without the row of exit code 7: want it missing, got %v", missing)
	}
}

// pendingDocs are pages that README.md links and another branch adds; a
// link to one passes while it is absent (and is logged), and is checked
// like any other once it exists. Empty this map once they are merged.
var pendingDocs = map[string]string{}

// mdLink matches a Markdown link's target.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// slug is GitHub's anchor for a heading: lower case, punctuation dropped
// (hyphens and underscores kept), spaces as hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists a Markdown text's heading anchors.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if !inFence && strings.HasPrefix(line, "#") {
			out[slug(strings.TrimLeft(line, "#"))] = true
		}
	}
	return out
}

// brokenLinks returns the relative links of the documents that name a
// file that does not exist or a heading the file does not have.
func brokenLinks(t *testing.T, files map[string]string) []string {
	var broken []string
	for _, name := range sortedKeys(files) {
		for _, m := range mdLink.FindAllStringSubmatch(files[name], -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			rel := name
			if file != "" {
				rel = filepath.ToSlash(filepath.Join(filepath.Dir(name), file))
			}
			text, known := files[rel]
			if !known {
				b, err := os.ReadFile(filepath.Join(repoRoot, rel))
				if err != nil {
					if why, ok := pendingDocs[rel]; ok {
						t.Logf("%s links %s, not here yet: %s", name, rel, why)
						continue
					}
					broken = append(broken, fmt.Sprintf("%s: %s: no such file", name, target))
					continue
				}
				text = string(b)
			}
			if anchor != "" && strings.HasSuffix(rel, ".md") && !anchors(text)[anchor] {
				broken = append(broken, fmt.Sprintf("%s: %s: %s has no such heading", name, target, rel))
			}
		}
	}
	return broken
}

func TestDocLinksResolve(t *testing.T) {
	files := docFiles(t)
	for _, b := range brokenLinks(t, files) {
		t.Error(b)
	}
	// The check fails on a renamed heading and a missing file.
	mutated := map[string]string{}
	for k, v := range files {
		mutated[k] = v
	}
	mutated["docs/gate.md"] = strings.Replace(files["docs/gate.md"], "## The debug pass", "## The debugging pass", 1)
	mutated["README.md"] = files["README.md"] + "\n[gone](docs/no-such-page.md)\n"
	if b := brokenLinks(t, mutated); len(b) < 2 {
		t.Errorf("a renamed heading and a missing page: want both reported, got %q", b)
	}
}

// TestHelpExamplesUseTheOneVocabulary: the --help examples (extracted as
// help_test.go does) pass the docs' stricter check too: flags spelt as the
// tree names them, no deprecated alias, no deprecated command.
func TestHelpExamplesUseTheOneVocabulary(t *testing.T) {
	n := 0
	walkCommands(func(c *cobra.Command) {
		for i, line := range strings.Split(c.Example, "\n") {
			for _, args := range exampleArgs(strings.TrimSpace(line)) {
				n++
				d := docCommand{where: fmt.Sprintf("%s --help, Example line %d", c.CommandPath(), i+1), args: args}
				if _, err := checkCommand(d); err != nil {
					t.Errorf("%v\n\t%v", d, err)
				}
			}
		}
	})
	if n < 20 {
		t.Fatalf("only %d help examples found", n)
	}
}

// workloadRows reads docs/workloads.md's metrics table: per workload (or
// "all"), each documented metric name and the direction its row states.
func workloadRows(text string) map[string]map[string]string {
	row := regexp.MustCompile("(?m)^\\| ([a-z-]+) \\| (`[^|]+`) \\| [^|]+ \\| (higher|lower|info) \\|")
	name := regexp.MustCompile("`([a-z0-9_]+)`")
	out := map[string]map[string]string{}
	for _, m := range row.FindAllStringSubmatch(text, -1) {
		if out[m[1]] == nil {
			out[m[1]] = map[string]string{}
		}
		for _, n := range name.FindAllStringSubmatch(m[2], -1) {
			out[m[1]][n[1]] = m[3]
		}
	}
	return out
}

// TestWorkloadsDocListsEveryMetric: docs/workloads.md's table and the
// code's one list of metrics (the workloads' descriptors, what kregress metrics
// prints) agree: every metric has a row under its workload (or "all")
// with its direction, and every row names a metric the workload reports.
func TestWorkloadsDocListsEveryMetric(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "workloads.md"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(text string) []string {
		var problems []string
		rows := workloadRows(text)
		for _, w := range workload.Sorted() {
			for _, s := range workload.Metrics(w) {
				dir, ok := rows[w][s.Name]
				if !ok {
					dir, ok = rows["all"][s.Name]
				}
				switch {
				case !ok:
					problems = append(problems, fmt.Sprintf("%s's metric %s has no row in docs/workloads.md", w, s.Name))
				case dir != string(s.Direction):
					problems = append(problems, fmt.Sprintf("docs/workloads.md says %s's %s is %s, the code says %s", w, s.Name, dir, s.Direction))
				}
			}
		}
		for w, names := range rows {
			for n := range names {
				found := false
				for _, cw := range workload.Sorted() {
					if _, ok := workload.Metric(cw, n); ok && (w == "all" || w == cw) {
						found = true
					}
				}
				if !found {
					problems = append(problems, fmt.Sprintf("docs/workloads.md lists %s under %s, which reports no such metric", n, w))
				}
			}
		}
		sort.Strings(problems)
		return problems
	}
	for _, p := range check(string(b)) {
		t.Error(p)
	}
	// The check fails on a renamed metric and on a wrong direction.
	renamed := strings.Replace(string(b), "`execs_per_sec_per_worker`", "`execs_per_worker`", 1)
	if p := check(renamed); len(p) != 2 {
		t.Errorf("execs_per_sec_per_worker renamed: want two problems, got %q", p)
	}
	flipped := strings.Replace(string(b), "| `execs_per_sec` | execs/s | higher |", "| `execs_per_sec` | execs/s | lower |", 1)
	if p := check(flipped); len(p) != 1 {
		t.Errorf("execs_per_sec said lower: want one problem, got %q", p)
	}
}
