package render

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// The CLI's help: the list of commands, each command's page (usage,
// what it does, flags, one example), the nearest commands to a mistyped
// one, and the shell completion scripts (completion.go).

// HelpText is what `sepad help CMD` and `sepad CMD --help` print besides
// the command's summary and flags: its positional arguments and one
// example.
type HelpText struct {
	Args, Example string
}

// helpMore explains a command's rules, when it has some a person must
// know to use it (propose's refusals).
var helpMore = map[string]string{
	"propose": "A proposal is refused, and nothing written, when the text is under half or over twice the baseline's length,\n" +
		"drops its headings or holds a dangerous command, when the skill had 10 proposals in 24 hours or fewer than 3 runs\n" +
		"since its last change, or when the skill is stable: its last 3 scores average above 85 with a variance below 5\n" +
		"(a skill that works is left alone). --force proposes to a stable skill anyway; the other checks still apply.\n" +
		"CLAUDE.md (SKILL CLAUDE.md: the project's instruction file) follows the same rules, --force included.",
	"evolve": "The mutator is asked only when a proposal could pass the limits: not when the skill had 10 proposals in 24 hours\n" +
		"or fewer than 3 runs since its last change, nor when it is stable: its last 3 scores average above 85 with a\n" +
		"variance below 5 (a prompt that works is left alone). --force evolves a stable skill, or CLAUDE.md, anyway; every\n" +
		"other rule still applies to the answer, as to sepad propose's.",
}

var Helps = map[string]HelpText{
	"accept":     {"SKILL", "sepad accept deploy"},
	"api":        {"PATH", "sepad api /v1/skills/deploy/versions"},
	"completion": {"bash|zsh|fish", "sepad completion bash > ~/.local/share/bash-completion/completions/sepad"},
	"config":     {"init [FILE] | show", "sepad config show"},
	"dashboard":  {"", "sepad dashboard --open"},
	"decisions":  {"[SKILL]", "sepad decisions deploy --limit 10"},
	"demo":       {"", "sepad demo --keep"},
	"diff":       {"SKILL A B", "sepad diff deploy v1 v3"},
	"doctor":     {"", "sepad doctor"},
	"eval":       {"SKILL [-- ARGS…]", "sepad eval acme:deploy -- --runs 3"},
	"evolve":     {"SKILL", "sepad evolve deploy --dry-run"},
	"executions": {"", "sepad executions --skill deploy --grade F --since 7d"},
	"explain":    {"[EXECUTION_ID|last]", "sepad explain 04dc90a1974e"},
	"export":     {"", "sepad export --format sft --skill deploy -o deploy-sft.jsonl"},
	"forget":     {"SKILL", "sepad forget old-skill --yes"},
	"grades":     {"[SKILL]", "sepad grades --fail-under B"},
	"help":       {"[COMMAND]", "sepad help grades"},
	"history":    {"SKILL", "sepad history deploy --limit 20"},
	"hook":       {"", "echo '{\"session_id\":\"s\",\"hook_event_name\":\"Stop\"}' | sepad hook"},
	"import":     {"PATH...", "sepad import ~/src/shop/logs"},
	"install":    {"", "sepad install --user"},
	"label":      {"EXECUTION|last success|failure", "sepad label last --skill deploy failure --rater ana --note 'edited the wrong file'"},
	"notices":    {"", "sepad notices"},
	"pin":        {"SKILL [VERSION]", "sepad pin deploy v2"},
	"prune":      {"", "sepad prune --before 90d --yes"},
	"propose":    {"SKILL FILE", "sepad propose deploy new-deploy.md --strategy shorter"},
	"quarantine": {"", "sepad quarantine --limit 5"},
	"reject":     {"SKILL", "sepad reject deploy"},
	"reload":     {"", "sepad reload"},
	"rollback":   {"SKILL", "sepad rollback deploy --to v1"},
	"run":        {"", "sepad run --http 127.0.0.1:7077"},
	"score":      {"FILE...", "sepad score --fail-under C hooks.jsonl"},
	"sessions":   {"", "sepad sessions --limit 10"},
	"show":       {"SKILL[@VERSION]", "sepad show deploy@v2"},
	"status":     {"", "sepad status --json"},
	"strategies": {"[SKILL]", "sepad strategies deploy"},
	"team":       {"init | status", "sepad team status --json"},
	"trust":      {"[DIR]", "sepad trust ~/src/shop"},
	"uninstall":  {"", "sepad uninstall --user"},
	"unpin":      {"SKILL", "sepad unpin deploy"},
	"validity":   {"[SKILL]", "sepad validity fix-tests --json"},
	"version":    {"", "sepad version --json"},
	"versions":   {"SKILL", "sepad versions deploy"},
}

// skillHelp explains SKILL for the commands that take one.
const skillHelp = "SKILL is a name, PROJECT#name, or the prompt file's path; a name used in several projects means, inside one of them,\n" +
	"that project's skill, and must be qualified elsewhere."

// CommandHelp prints a usage line with the positional arguments,
// what the command does, its flags as --flag, and one example.
func CommandHelp(w io.Writer, name, summary string, fs *flag.FlagSet) {
	h, ok := Helps[name]
	if !ok {
		h.Example = "sepad " + name // a command added without a help text
	}
	line := "sepad " + name
	if fs != nil && hasFlags(fs) {
		line += " [flags]"
	}
	if h.Args != "" {
		line += " " + h.Args
	}
	fmt.Fprintf(w, "usage: %s\n\n%s.\n", line, upperFirst(summary))
	if strings.Contains(h.Args, "SKILL") {
		fmt.Fprintf(w, "%s\n", skillHelp)
	}
	if m := helpMore[name]; m != "" {
		fmt.Fprintf(w, "\n%s\n", m)
	}
	if fs != nil && hasFlags(fs) {
		fmt.Fprintln(w, "\nflags:")
		type row struct{ left, usage string }
		var rows []row
		width := 22
		fs.VisitAll(func(f *flag.Flag) {
			typ, usage := flagValue(f)
			// A one-letter flag is shown as it is typed (-o FILE), the
			// others with two dashes; the value's name is the usage's
			// `NAME` when it has one.
			left := "--" + f.Name
			if len(f.Name) == 1 {
				left = "-" + f.Name
			}
			if typ != "" {
				left += " " + strings.ToUpper(typ)
			}
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
				usage += fmt.Sprintf(" (default %s)", f.DefValue)
			}
			rows = append(rows, row{left, usage})
			width = max(width, len(left)+1)
		})
		for _, r := range rows {
			fmt.Fprintf(w, "  %-*s %s\n", width, r.left, r.usage)
		}
	}
	if h.Example != "" {
		fmt.Fprintf(w, "\nexample:\n  %s\n", h.Example)
	}
}

// flagValue is a flag's value name and usage, as flag.UnquoteUsage gives
// them, except that a backquoted phrase (a command the usage names, as
// `sepad label last --skill`) is not taken for the value's name, nor is
// anything backquoted in a boolean flag's usage, which takes no value.
func flagValue(f *flag.Flag) (typ, usage string) {
	typ, usage = flag.UnquoteUsage(f)
	b, isBool := f.Value.(interface{ IsBoolFlag() bool })
	if isBool && b.IsBoolFlag() {
		return "", f.Usage
	}
	if strings.Contains(typ, " ") {
		typ, _ = flag.UnquoteUsage(&flag.Flag{Name: f.Name, Value: f.Value})
		return typ, f.Usage
	}
	return typ, usage
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Commands writes the list of commands with their summaries
// (`sepad help`, and `sepad` alone on stderr).
func Commands(w io.Writer, summaries map[string]string) {
	fmt.Fprintln(w, "usage: sepad COMMAND [flags] [args]   (sepad help COMMAND: its usage, flags and an example)")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(summaries))
	for n := range summaries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, summaries[n])
	}
}

// UnknownCommand says a command does not exist, naming the nearest of
// names.
func UnknownCommand(name string, names []string) string {
	var near []string
	for _, n := range names {
		if strings.HasPrefix(n, name) || strings.HasPrefix(name, n) || editDistance(n, name) <= 2 {
			near = append(near, n)
		}
	}
	sort.Strings(near)
	hint := ""
	if len(near) > 0 {
		hint = "; did you mean " + strings.Join(near, " or ") + "?"
	}
	return fmt.Sprintf("no command %q%s (`sepad help` lists them)", name, hint)
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
