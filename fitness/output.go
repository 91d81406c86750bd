package fitness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"gopkg.in/yaml.v3"

	"github.com/sepad/sepad/execution"
)

// analysis is what the rubric needs to know about a final output, read from
// its goldmark AST (never from regexes over markdown).
type analysis struct {
	headings int
	lists    int
	fences   []fence
	// inlineCode counts code spans (`x`).
	inlineCode int
	// prose is the text outside code blocks, one block per line.
	prose string
	// firstText is the first paragraph's text.
	firstText string
	// unclosed is set when a fenced block runs to the end of the output
	// without its closing fence (a truncated answer).
	unclosed bool
}

type fence struct {
	lang string
	code string
}

var markdown = sync.OnceValue(func() goldmark.Markdown { return goldmark.New() })

// analyze parses a final output once and collects every fact the output
// signals use.
func analyze(out string) *analysis {
	src := []byte(out)
	doc := markdown().Parser().Parse(text.NewReader(src))
	a := &analysis{}
	var prose strings.Builder
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			a.headings++
			prose.WriteString(nodeText(n, src))
			prose.WriteByte('\n')
			return ast.WalkSkipChildren, nil
		case *ast.List:
			a.lists++
		case *ast.FencedCodeBlock:
			f := fence{lang: strings.ToLower(string(n.Language(src))), code: linesText(n, src)}
			a.fences = append(a.fences, f)
			if !fenceClosed(n, src) {
				a.unclosed = true
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeBlock:
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			a.inlineCode++
		case *ast.Paragraph:
			t := nodeText(n, src)
			if a.firstText == "" {
				a.firstText = t
			}
			prose.WriteString(t)
			prose.WriteByte('\n')
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	a.prose = prose.String()
	return a
}

// nodeText returns the text of a block's inline content, code spans
// included.
func nodeText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.CodeSpan:
			b.WriteByte('`')
			for ch := c.FirstChild(); ch != nil; ch = ch.NextSibling() {
				if t, ok := ch.(*ast.Text); ok {
					b.Write(t.Segment.Value(src))
				}
			}
			b.WriteByte('`')
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

func linesText(n ast.Node, src []byte) string {
	var b bytes.Buffer
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		b.Write(s.Value(src))
	}
	return b.String()
}

// fenceClosed reports whether a fenced block has its closing fence: goldmark
// runs an unclosed fence to the end of the document, so a block is closed
// when a fence line follows its last content line.
func fenceClosed(n *ast.FencedCodeBlock, src []byte) bool {
	end := 0
	if l := n.Lines(); l.Len() > 0 {
		end = l.At(l.Len() - 1).Stop
	} else if n.Info != nil {
		end = n.Info.Segment.Stop
	}
	if end > len(src) {
		return false
	}
	for _, line := range strings.Split(string(src[end:]), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			return true
		}
	}
	return false
}

// item is one scored item of completeness or accuracy.
type item struct {
	name    string
	weight  float64
	applies bool
	ok      bool
}

// sumItems returns the renormalised score of the applicable items.
func sumItems(items []item) (float64, bool) {
	var w, got float64
	for _, it := range items {
		if !it.applies {
			continue
		}
		w += it.weight
		if it.ok {
			got += it.weight
		}
	}
	if w == 0 {
		return 0, false
	}
	return got / w, true
}

func outputQuality(x *execution.Execution, a *analysis) Signal {
	s := Signal{Signal: SignalOutput}
	if a == nil {
		s.Detail = "no final output"
		return s
	}
	coding := IsCodingTask(x)
	syntaxOK, judged := fencesParse(a.fences)
	patterns := ErrorPatterns(a.prose)
	completeness := []item{
		{"answer", 0.3, true, hasDirectAnswer(a)},
		{"code", 0.3, coding, len(a.fences) > 0 || a.inlineCode > 0 || wroteCode(x)},
		{"explanation", 0.2, true, hasExplanation(a)},
		{"next steps", 0.2, true, hasNextSteps(a.prose)},
	}
	accuracy := []item{
		{"syntax valid", 0.4, judged > 0, syntaxOK},
		{"no obvious errors", 0.3, true, len(patterns) == 0},
		{"follows format", 0.3, true, followsFormat(a)},
	}
	c, _ := sumItems(completeness)
	acc, _ := sumItems(accuracy)
	s.Present = true
	s.Value = round((c+acc)/2, 4)
	s.SubScore = s.Value
	var missing []string
	for _, it := range append(completeness, accuracy...) {
		if it.applies && !it.ok {
			missing = append(missing, it.name)
		}
	}
	s.Detail = fmt.Sprintf("completeness %.2f, accuracy %.2f", c, acc)
	if len(missing) > 0 {
		s.Detail += "; lacks " + joinDetail(missing)
	}
	return s
}

// IsCodingTask reports whether an execution is a coding task: it edited or
// wrote files, or its prompt asks for code work.
func IsCodingTask(x *execution.Execution) bool {
	if wroteCode(x) {
		return true
	}
	p := strings.ToLower(x.Prompt)
	for _, w := range []string{"implement", "fix", "refactor", "function", "bug", "compile", "test", "code", "```", "write a script", "endpoint"} {
		if strings.Contains(p, w) {
			return true
		}
	}
	return false
}

func wroteCode(x *execution.Execution) bool {
	for i := range x.Calls {
		switch x.Calls[i].Name {
		case "Edit", "Write", "MultiEdit", "NotebookEdit":
			if x.Calls[i].OK() {
				return true
			}
		}
	}
	return false
}

// hasDirectAnswer: the output's first paragraph is a real sentence (at
// least five words) and not an admission of failure.
func hasDirectAnswer(a *analysis) bool {
	t := a.firstText
	if t == "" {
		// A heading followed by a list is still an answer.
		return a.headings > 0 && a.lists > 0
	}
	return len(strings.Fields(t)) >= 5 && len(ErrorPatterns(t)) == 0
}

// hasExplanation: at least two sentences of prose, or one with a causal
// connective.
func hasExplanation(a *analysis) bool {
	p := strings.ToLower(a.prose)
	for _, w := range []string{"because", "since ", "so that", "due to", "the reason", "this means", "therefore", "which means", "caused by"} {
		if strings.Contains(p, w) {
			return true
		}
	}
	sentences := 0
	for _, f := range strings.FieldsFunc(a.prose, func(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '\n' }) {
		if len(strings.Fields(f)) >= 4 {
			sentences++
		}
	}
	return sentences >= 2
}

// hasNextSteps: the output proposes what to do next.
func hasNextSteps(prose string) bool {
	p := strings.ToLower(prose)
	for _, w := range []string{"next step", "next:", "next,", "i recommend", "we recommend", "recommendation", "you could", "you can now", "you may want", "consider ", "follow-up", "follow up", "todo", "to do:", "then run", "before merging", "should now"} {
		if strings.Contains(p, w) {
			return true
		}
	}
	return false
}

// followsFormat: every fence is closed, and no template placeholder or
// truncation marker is left in the answer.
func followsFormat(a *analysis) bool {
	if a.unclosed {
		return false
	}
	p := strings.ToLower(a.prose)
	for _, w := range []string{"{{", "}}", "<insert", "[placeholder]", "lorem ipsum", "todo: fill", "[your ", "<your "} {
		if strings.Contains(p, w) {
			return false
		}
	}
	t := strings.TrimSpace(a.prose)
	return !strings.HasSuffix(t, "...") || len(t) < 3
}

// fencesParse checks the fenced blocks in languages sepad can parse (json,
// yaml, go). judged counts the blocks checked; unknown languages are not
// judged.
func fencesParse(fs []fence) (ok bool, judged int) {
	ok = true
	for _, f := range fs {
		var err error
		switch f.lang {
		case "json", "jsonc":
			judged++
			if !json.Valid([]byte(f.code)) {
				err = fmt.Errorf("invalid json")
			}
		case "yaml", "yml":
			judged++
			var v any
			err = yaml.Unmarshal([]byte(f.code), &v)
		case "go", "golang":
			judged++
			err = parseGo(f.code)
		default:
			continue
		}
		if err != nil {
			ok = false
		}
	}
	return ok, judged
}

// parseGo accepts a whole file, declarations, or statements.
func parseGo(code string) error {
	fset := token.NewFileSet()
	if _, err := parser.ParseFile(fset, "", code, parser.SkipObjectResolution); err == nil {
		return nil
	}
	if _, err := parser.ParseFile(fset, "", "package p\n"+code, parser.SkipObjectResolution); err == nil {
		return nil
	}
	_, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+code+"\n}\n", parser.SkipObjectResolution)
	return err
}
