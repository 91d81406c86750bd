package evals

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// What a prompt text makes Claude Code run or allow beyond its words
// (docs/security.md, "What a prompt file may run"): front matter keys that
// run commands (hooks), grant or take away tools (allowed-tools, tools,
// disallowedTools, mcpServers), or choose the model, the permission mode,
// the shell or the agent that runs it; and the shell lines of its body
// (!`cmd`, and ```! blocks), which Claude Code runs when the skill or
// command is loaded. A mutator may change the words, never these (the
// proposal rule "powers"); sepad evaluates only a text that runs nothing
// of its own.

// powerKeys are the front matter keys that grant, run or choose, by
// their normal form (lower case, without '-' and '_').
var powerKeys = map[string]bool{
	"hooks": true, "allowedtools": true, "tools": true, "disallowedtools": true, "mcpservers": true,
	"model": true, "permissionmode": true, "permissions": true, "shell": true, "agent": true, "context": true,
}

// runKeys are the power keys that make a text run code of its own.
var runKeys = map[string]bool{"hooks": true, "mcpservers": true}

// Powers are the powers a prompt text claims.
type Powers struct {
	// Keys maps each power key of the front matter, as written, to its
	// value re-encoded as YAML (so that equal values compare equal).
	Keys map[string]string
	// Shell are the commands of the body's shell lines, in order.
	Shell []string
	// Broken: the text has a front matter that is not a YAML mapping,
	// so what it claims cannot be told.
	Broken bool
}

var (
	shellInline = regexp.MustCompile("!`([^`\n]+)`")
	shellBlock  = regexp.MustCompile("(?ms)^[ \t]*```!.*?$\n(.*?)^[ \t]*```")
)

// PowersOf reads the powers of a prompt text.
func PowersOf(text []byte) Powers {
	p := Powers{Keys: map[string]string{}}
	fm, _, ok := SplitFrontmatter(text)
	if ok && len(bytes.TrimSpace(fm)) > 0 {
		var m map[string]any
		if err := decodeYAML(fm, &m); err != nil {
			// Not YAML (an unquoted colon in a description is common):
			// the keys at the start of a line, as a lenient reader sees
			// them, with the text up to the next such key as the value.
			p.Broken = true
			p.Keys = lineKeys(fm)
		}
		for k, v := range m {
			if powerKeys[normalKey(k)] {
				b, _ := yaml.Marshal(v)
				p.Keys[k] = strings.TrimSpace(string(b))
			}
		}
	}
	// The whole text: a shell line in the front matter's description
	// is loaded too.
	for _, m := range shellBlock.FindAllSubmatch(text, -1) {
		p.Shell = append(p.Shell, strings.TrimSpace(string(m[1])))
	}
	for _, m := range shellInline.FindAllSubmatch(text, -1) {
		p.Shell = append(p.Shell, string(m[1]))
	}
	return p
}

// RunsCode says what in a text would run code of its own ("" when
// nothing): front matter hooks or MCP servers (read line by line when the
// front matter is not YAML), or shell lines.
func (p Powers) RunsCode() string {
	var what []string
	for _, k := range p.keysSorted() {
		if runKeys[normalKey(k)] {
			what = append(what, "front matter "+k)
		}
	}
	if len(p.Shell) > 0 {
		what = append(what, fmt.Sprintf("%d shell line(s) (!`%s`)", len(p.Shell), p.Shell[0]))
	}
	return strings.Join(what, ", ")
}

// lineKeys reads the power keys of a front matter that is not YAML: each
// line that starts with a key and a colon, its value the rest of that
// line and the indented lines after it.
func lineKeys(fm []byte) map[string]string {
	keys := map[string]string{}
	cur := ""
	for _, line := range strings.Split(string(fm), "\n") {
		line = strings.TrimRight(line, "\r")
		if line != "" && line[0] != ' ' && line[0] != '\t' && line[0] != '#' {
			cur = ""
			if k, v, ok := strings.Cut(line, ":"); ok && powerKeys[normalKey(strings.Trim(k, `"'`))] {
				cur = strings.Trim(k, `"'`)
				keys[cur] = strings.TrimSpace(v)
			}
			continue
		}
		if cur != "" {
			keys[cur] = strings.TrimSpace(keys[cur] + "\n" + line)
		}
	}
	return keys
}

// Added compares p (a proposed text's) with base (the text it replaces)
// and says, one phrase per change, what p adds, widens or removes:
// "adds hooks", "changes allowed-tools from Read to Bash(*)", "adds a
// shell line !`curl …`". Nil when p claims nothing base does not.
func (p Powers) Added(base Powers) []string {
	var out []string
	if p.Broken && !base.Broken {
		out = append(out, "has a front matter that is not YAML (what it allows cannot be told)")
	}
	for _, k := range p.keysSorted() {
		was, ok := base.Keys[k]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("adds %s (%s)", k, short(p.Keys[k])))
		case was != p.Keys[k]:
			out = append(out, fmt.Sprintf("changes %s from %s to %s", k, short(was), short(p.Keys[k])))
		}
	}
	for _, k := range base.keysSorted() {
		if _, ok := p.Keys[k]; !ok {
			out = append(out, "removes "+k)
		}
	}
	have := map[string]int{}
	for _, c := range base.Shell {
		have[c]++
	}
	for _, c := range p.Shell {
		if have[c] > 0 {
			have[c]--
			continue
		}
		out = append(out, fmt.Sprintf("adds a shell line !`%s`", short(c)))
	}
	return out
}

func (p Powers) keysSorted() []string {
	ks := make([]string, 0, len(p.Keys))
	for k := range p.Keys {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// normalKey is a front matter key's normal form: allowed-tools,
// allowed_tools and allowedTools are one key.
func normalKey(k string) string {
	return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(strings.TrimSpace(k)))
}

// short cuts a value for a sentence, on one line.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}

// SplitFrontmatter returns a leading YAML front matter block (between
// "---" lines at the very top) and the body after it.
func SplitFrontmatter(src []byte) (fm []byte, body []byte, ok bool) {
	s := bytes.TrimPrefix(src, []byte("\ufeff"))
	first, rest, found := bytes.Cut(s, []byte("\n"))
	if !found || strings.TrimRight(string(first), " \t\r") != "---" {
		return nil, src, false
	}
	off := 0
	for off <= len(rest) {
		line, _, more := bytes.Cut(rest[off:], []byte("\n"))
		if t := strings.TrimRight(string(line), " \t\r"); t == "---" || t == "..." {
			end := off + len(line)
			if more {
				end++
			}
			return rest[:off], rest[end:], true
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return nil, src, false
}

// decodeYAML decodes a front matter; a panic in the decoder on hostile
// input becomes an error.
func decodeYAML(src []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("YAML decoder failed: %v", r)
		}
	}()
	return yaml.Unmarshal(src, v)
}
