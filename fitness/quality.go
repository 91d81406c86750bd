package fitness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/sepad/sepad/execution"
)

// item is one checklist item of completeness or accuracy. Items that do not
// apply drop out and the others are renormalised, like absent signals.
type item struct {
	name    string
	weight  float64
	applies bool
	ok      bool
}

// itemsScore returns the share of the applicable items' weight that is met.
func itemsScore(items []item) float64 {
	var w, got float64
	for _, it := range items {
		if it.applies {
			w += it.weight
			if it.ok {
				got += it.weight
			}
		}
	}
	if w == 0 {
		return 0
	}
	return got / w
}

// outputQuality is (completeness + accuracy) / 2 over the seed's checklist.
func outputQuality(x *execution.Execution, d *doc, prose string, hits []string) Signal {
	s := Signal{Signal: SignalOutputQuality}
	if d == nil {
		s.Detail = "no final output"
		return s
	}
	coding := IsCodingTask(x)
	judged, valid := checkSyntax(d.fences)
	completeness := []item{
		{"direct answer", 0.3, true, hasDirectAnswer(d)},
		{"code", 0.3, coding, len(d.fences) > 0 || d.indented > 0 || editedFiles(x, true)},
		{"explanation", 0.2, true, hasExplanation(d, prose)},
		{"next steps", 0.2, true, hasNextSteps(d, prose)},
	}
	accuracy := []item{
		{"valid syntax", 0.4, judged > 0, valid == judged},
		{"no error text", 0.3, true, len(hits) == 0},
		{"clean format", 0.3, true, formatProblem(d, prose) == ""},
	}
	c, a := itemsScore(completeness), itemsScore(accuracy)
	s.Present = true
	s.Value = (c + a) / 2
	s.SubScore = s.Value
	var lacks []string
	for _, it := range append(completeness, accuracy...) {
		if it.applies && !it.ok {
			name := it.name
			switch name {
			case "valid syntax":
				name = fmt.Sprintf("valid syntax (%d of %d blocks parse)", valid, judged)
			case "no error text":
				name = "no error text (" + strings.Join(hits, ", ") + ")"
			case "clean format":
				name = "clean format (" + formatProblem(d, prose) + ")"
			}
			lacks = append(lacks, name)
		}
	}
	task := "non-coding task"
	if coding {
		task = "coding task"
	}
	s.Detail = fmt.Sprintf("completeness %.2f, accuracy %.2f, %s", c, a, task)
	if len(lacks) > 0 {
		s.Detail += "; lacks " + strings.Join(lacks, ", ")
	}
	return s
}

// editTools are the tools that change files: calling one makes an execution
// a coding task.
var editTools = map[string]bool{"Edit": true, "MultiEdit": true, "Write": true, "NotebookEdit": true}

// codingWords are prompt words that ask for code work. Whole words only:
// "prefix" does not contain "fix", "latest" does not contain "test".
var codingWords = map[string]bool{
	"implement": true, "implements": true, "implementing": true, "implementation": true,
	"refactor": true, "refactors": true, "refactoring": true,
	"debug": true, "debugging": true, "fix": true, "fixes": true, "fixing": true,
	"bug": true, "bugs": true, "compile": true, "compiles": true, "compiler": true, "compilation": true,
	"code": true, "coding": true, "function": true, "functions": true, "method": true, "methods": true,
	"script": true, "scripts": true, "endpoint": true, "endpoints": true, "regex": true,
	"test": true, "tests": true, "unittest": true,
}

// IsCodingTask reports whether an execution is a coding task: it called a
// file-editing tool (Edit, MultiEdit, Write, NotebookEdit), or its prompt
// holds a code block, or its prompt uses a coding word (see codingWords;
// "code" in "Claude Code" does not count).
func IsCodingTask(x *execution.Execution) bool {
	if editedFiles(x, false) {
		return true
	}
	words := strings.FieldsFunc(strings.ToLower(x.Prompt), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	for i, w := range words {
		if codingWords[w] && !(w == "code" && i > 0 && words[i-1] == "claude") {
			return true
		}
	}
	if strings.Contains(x.Prompt, "```") || strings.Contains(x.Prompt, "~~~") || strings.Contains(x.Prompt, "\n    ") || strings.Contains(x.Prompt, "\n\t") {
		// Cheap pre-check above; goldmark decides.
		p := parseMarkdown(x.Prompt)
		return len(p.fences) > 0 || p.indented > 0
	}
	return false
}

// editedFiles reports a call to a file-editing tool; okOnly counts only
// calls that succeeded.
func editedFiles(x *execution.Execution, okOnly bool) bool {
	for i := range x.Calls {
		if c := &x.Calls[i]; editTools[c.Name] && (!okOnly || c.OK()) {
			return true
		}
	}
	return false
}

// hasDirectAnswer: the output's first block (headings skipped) is a closed
// code block, or prose of at least three words that is not a question back
// to the user and shows no error pattern.
func hasDirectAnswer(d *doc) bool {
	switch d.firstBlock {
	case "fence", "code":
		return d.firstClosed
	case "paragraph":
		t := strings.TrimSpace(d.firstText)
		return len(strings.Fields(t)) >= 3 && !strings.HasSuffix(t, "?") && len(ErrorPatterns(t)) == 0
	}
	return false
}

// causalWords mark an explanation: the output says why, not only what.
var causalWords = []string{"because", "since ", "so that", "due to", "the reason", "this means", "which means",
	"therefore", "caused by", "as a result", "in order to", "that's why", "this is why", "that is why"}

// hasExplanation: the prose gives a reason (a causal connective) or runs to
// at least two sentences of four words or more.
func hasExplanation(d *doc, prose string) bool {
	lower := strings.ToLower(strings.ReplaceAll(prose, "\u2019", "'"))
	if containsAny(lower, causalWords...) {
		return true
	}
	n := 0
	for _, p := range d.prose {
		if p.heading {
			continue
		}
		for _, f := range strings.FieldsFunc(p.text, func(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '\n' }) {
			if len(strings.Fields(f)) >= 4 {
				n++
			}
		}
	}
	return n >= 2
}

// nextStepWords mark next steps or recommendations in prose.
var nextStepWords = []string{"next step", "next:", "i recommend", "i'd recommend", "i would recommend",
	"we recommend", "recommendation", "you could", "you can now", "you may want", "you might want",
	"consider ", "follow-up", "follow up", "todo:", "to do:", "then run", "try running", "to verify",
	"want me to", "would you like me to", "should now", "remaining work"}

// nextStepHeadings mark a next-steps section by its heading.
var nextStepHeadings = []string{"next", "recommend", "follow-up", "follow up", "todo", "to do", "remaining", "what's left"}

// hasNextSteps: the output proposes what to do next, in a heading or in
// prose.
func hasNextSteps(d *doc, prose string) bool {
	for _, p := range d.prose {
		if p.heading && containsAny(strings.ToLower(p.text), nextStepHeadings...) {
			return true
		}
	}
	return containsAny(strings.ToLower(strings.ReplaceAll(prose, "\u2019", "'")), nextStepWords...)
}

// placeholders are template leftovers that should never reach a user.
var placeholders = []string{"{{", "<insert", "[insert", "<your ", "[your ", "lorem ipsum", "<placeholder", "[placeholder", "todo: fill"}

// formatProblem returns why the output does not follow the format, or ""
// when it does: every fence closed, no template placeholder in the prose,
// and the answer does not stop mid-way (last block a heading, or prose
// ending in "...", "…" or ":").
func formatProblem(d *doc, prose string) string {
	for _, f := range d.fences {
		if !f.closed {
			return "unclosed code fence"
		}
	}
	if lower := strings.ToLower(prose); containsAny(lower, placeholders...) {
		return "template placeholder"
	}
	switch d.lastBlock {
	case "heading":
		return "ends with a heading"
	case "paragraph":
		t := strings.TrimSpace(d.lastText)
		if strings.HasSuffix(t, "...") || strings.HasSuffix(t, "…") || strings.HasSuffix(t, ":") {
			return "ends mid-way"
		}
	}
	return ""
}

// checkSyntax parses the closed fenced blocks written in a language sepad
// can parse (json, jsonl/ndjson, yaml/yml, go/golang). judged counts the
// blocks checked, valid those that parse. Other languages, empty blocks and
// unclosed blocks (already a format problem) are not judged.
func checkSyntax(fs []fence) (judged, valid int) {
	for _, f := range fs {
		if !f.closed || strings.TrimSpace(f.code) == "" {
			continue
		}
		ok, known := parses(f.lang, f.code)
		if !known {
			continue
		}
		judged++
		if ok {
			valid++
		}
	}
	return judged, valid
}

// parses checks one block. known is false for languages it does not judge,
// and when a parser panics (that says nothing about the code).
func parses(lang, code string) (ok, known bool) {
	defer func() {
		if recover() != nil {
			ok, known = false, false
		}
	}()
	switch lang {
	case "json":
		return json.Valid([]byte(code)), true
	case "jsonl", "ndjson":
		for line := range strings.SplitSeq(code, "\n") {
			if strings.TrimSpace(line) != "" && !json.Valid([]byte(line)) {
				return false, true
			}
		}
		return true, true
	case "yaml", "yml":
		return parseYAML(code) == nil, true
	case "go", "golang":
		return parseGo(code) == nil, true
	}
	return false, false
}

// parseYAML decodes every document of a YAML stream.
func parseYAML(code string) error {
	dec := yaml.NewDecoder(strings.NewReader(code))
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// parseGo accepts a whole file, top-level declarations, or statements (the
// fragment wrapped in a function body). A line that is only "..." or "…"
// is an elision, not code.
func parseGo(code string) error {
	var b bytes.Buffer
	for line := range strings.SplitSeq(code, "\n") {
		if t := strings.TrimSpace(line); t == "..." || t == "…" {
			line = ""
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	src := b.String()
	fset := token.NewFileSet()
	const mode = parser.SkipObjectResolution
	if _, err := parser.ParseFile(fset, "", src, mode); err == nil {
		return nil
	}
	if _, err := parser.ParseFile(fset, "", "package p\n"+src, mode); err == nil {
		return nil
	}
	_, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+src+"\n}\n", mode)
	return err
}
