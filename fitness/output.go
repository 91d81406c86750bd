package fitness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	goparser "go/parser"
	"go/token"
	"io"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	yaml "go.yaml.in/yaml/v3"

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
	// prose is the text of headings, paragraphs and list items, one block
	// per line and every soft line break kept. Code blocks are left out and
	// a code span becomes the word codeSpanWord, so code that mentions an
	// error is never taken for an error message.
	prose string
	// blocks holds the same prose, one entry per block.
	blocks []string
	// firstText is the first paragraph's text (list items excluded).
	firstText string
	// unclosed is set when a fenced block runs to the end of its container
	// without its closing fence (a truncated answer).
	unclosed bool
	// lastProse is the text of the output's last leaf block when that block
	// is prose (a paragraph or list item), "" otherwise.
	lastProse string
}

type fence struct {
	lang string
	code string
}

// codeSpanWord stands for a code span's content in analysis.prose.
const codeSpanWord = "`code`"

// closedAttr marks a fenced code block whose closing fence was seen.
const closedAttr = "sepad-fence-closed"

// closureFenceParser is goldmark's fenced code block parser, recording
// whether the closing fence was seen: goldmark itself does not keep that,
// an unclosed fence silently runs to the end of its container (document,
// block quote or list item).
type closureFenceParser struct{ parser.BlockParser }

// Continue marks the block closed when the wrapped parser closes it.
func (p closureFenceParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	st := p.BlockParser.Continue(node, reader, pc)
	if st&parser.Close != 0 {
		node.SetAttributeString(closedAttr, true)
	}
	return st
}

// markdown is goldmark's CommonMark parser with closureFenceParser in place
// of the fenced code block parser. It is built once and never changed; a
// goldmark parser keeps all parse state in a per-call context, so it is
// safe for concurrent use.
var markdown = sync.OnceValue(func() parser.Parser {
	fenced := parser.NewFencedCodeBlockParser()
	blocks := parser.DefaultBlockParsers()
	for i, b := range blocks {
		if b.Value == fenced {
			blocks[i] = util.Prioritized(closureFenceParser{fenced}, b.Priority)
		}
	}
	return parser.NewParser(
		parser.WithBlockParsers(blocks...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
})

// analyze parses a final output once and collects every fact the output
// signals use.
func analyze(out string) *analysis {
	src := []byte(out)
	doc := markdown().Parse(text.NewReader(src))
	a := &analysis{}
	var prose strings.Builder
	addProse := func(t string) {
		a.blocks = append(a.blocks, t)
		prose.WriteString(t)
		prose.WriteByte('\n')
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			a.headings++
			addProse(a.nodeText(n, src))
			a.lastProse = ""
			return ast.WalkSkipChildren, nil
		case *ast.List:
			a.lists++
		case *ast.FencedCodeBlock:
			f := fence{lang: strings.ToLower(string(n.Language(src))), code: linesText(n, src)}
			a.fences = append(a.fences, f)
			if _, closed := n.AttributeString(closedAttr); !closed {
				a.unclosed = true
			}
			a.lastProse = ""
			return ast.WalkSkipChildren, nil
		case *ast.CodeBlock, *ast.HTMLBlock, *ast.ThematicBreak:
			a.lastProse = ""
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph, *ast.TextBlock:
			t := a.nodeText(n, src)
			if _, inItem := n.Parent().(*ast.ListItem); a.firstText == "" && !inItem && n.Kind() == ast.KindParagraph {
				a.firstText = t
			}
			addProse(t)
			a.lastProse = t
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	a.prose = prose.String()
	return a
}

// nodeText returns the text of a block's inline content: text, link and
// emphasis text, raw inline HTML (where "<your name>" placeholders land),
// and codeSpanWord for each code span, which it counts. Line breaks are
// kept.
func (a *analysis) nodeText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			a.inlineCode++
			b.WriteString(codeSpanWord)
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				s := c.Segments.At(i)
				b.Write(s.Value(src))
			}
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

// outputQuality reads the final output; false are the answer's claims
// the execution's own observations contradict (package outcome), each an
// obvious error.
func outputQuality(x *execution.Execution, a *analysis, contra []string) Signal {
	s := Signal{Signal: SignalOutput}
	if a == nil && x.StopError != "" {
		// The turn ended on an API error: there is no answer, and that
		// is evidence against the execution, not an absence of evidence.
		s.Present = true
		s.Detail = "no answer: the turn ended on an API error (" + x.StopError + ")"
		return s
	}
	if a == nil {
		s.Detail = "no final output"
		return s
	}
	coding := IsCodingTask(x)
	syntaxOK, judged := fencesParse(a.fences)
	patterns := ErrorPatterns(a.prose)
	completeness := []item{
		{"answer", 0.3, true, hasDirectAnswer(a)},
		{"code", 0.3, coding, len(a.fences) > 0 || a.inlineCode > 0 || x.Edited()},
		{"explanation", 0.2, true, hasExplanation(a)},
		{"next steps", 0.2, true, hasNextSteps(a.prose)},
	}
	accuracy := []item{
		{"syntax valid", 0.4, judged > 0, syntaxOK},
		{"no obvious errors", 0.3, true, len(patterns) == 0 && len(contra) == 0},
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
	if len(contra) > 0 {
		s.Detail += " (" + joinDetail(contra) + ", which the execution's own runs contradict)"
	}
	return s
}

// IsCodingTask reports whether an execution is a coding task: it edited or
// wrote files, or its prompt holds a fenced code block, or its prompt asks
// for code work in so many words (codingWord). Words are whole words:
// "prefix" does not say "fix", "latest" does not say "test".
func IsCodingTask(x *execution.Execution) bool {
	if x.Edited() {
		return true
	}
	words := strings.FieldsFunc(strings.ToLower(x.Prompt), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	})
	for i, w := range words {
		if codingWord(w) && !(w == "code" && i > 0 && words[i-1] == "claude") {
			return true
		}
		if w == "write" && i+2 < len(words) && words[i+1] == "a" && words[i+2] == "script" {
			return true
		}
	}
	if strings.Contains(x.Prompt, "```") || strings.Contains(x.Prompt, "~~~") {
		return len(analyze(x.Prompt).fences) > 0
	}
	return false
}

// codingWord reports a prompt word that asks for code work: a form of
// implement, refactor, compile, function or endpoint, or one of fix, fixes,
// fixed, fixing, bug, bugs, buggy, test, tests, testing, code, coding.
// "code" right after "claude" is the product name, not a request.
func codingWord(w string) bool {
	for _, stem := range []string{"implement", "refactor", "compil", "function", "endpoint"} {
		if strings.HasPrefix(w, stem) {
			return true
		}
	}
	switch w {
	case "fix", "fixes", "fixed", "fixing", "bug", "bugs", "buggy", "test", "tests", "testing", "code", "coding":
		return true
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
	// Sentences end at . ! ? or at the end of a block; a sentence wrapped
	// over two lines is still one sentence.
	sentences := 0
	for _, b := range a.blocks {
		for _, f := range strings.FieldsFunc(b, func(r rune) bool { return r == '.' || r == '!' || r == '?' }) {
			if len(strings.Fields(f)) >= 4 {
				sentences++
			}
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

// followsFormat: every fence is closed, no template placeholder is left in
// the prose, and the answer does not stop mid-sentence (its last block is
// not prose ending in "..." or "…").
func followsFormat(a *analysis) bool {
	if a.unclosed {
		return false
	}
	p := strings.ToLower(a.prose)
	for _, w := range []string{"{{", "}}", "<insert", "[insert", "[placeholder]", "<placeholder", "lorem ipsum", "todo: fill", "[your ", "<your "} {
		if strings.Contains(p, w) {
			return false
		}
	}
	t := strings.TrimSpace(a.lastProse)
	return !strings.HasSuffix(t, "...") && !strings.HasSuffix(t, "…")
}

// fencesParse checks the fenced blocks in languages sepad can parse: json,
// jsonl/ndjson (every line), yaml/yml (every document of the stream),
// go/golang (see parseGo). judged counts the blocks checked; other
// languages (jsonc and json5 included: comments are not JSON), blocks
// without a language and empty blocks are not judged. A parser that panics
// leaves its block unjudged.
func fencesParse(fs []fence) (ok bool, judged int) {
	ok = true
	for _, f := range fs {
		if strings.TrimSpace(f.code) == "" {
			continue
		}
		valid, known := parses(f.lang, f.code)
		if !known {
			continue
		}
		judged++
		if !valid {
			ok = false
		}
	}
	return ok, judged
}

// parses checks one block; known is false when the language is not judged.
func parses(lang, code string) (valid, known bool) {
	defer func() {
		if recover() != nil {
			valid, known = false, false
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

// parseGo accepts a whole file, declarations (a package clause is added),
// or statements (wrapped in a function body). A line that is only "..." or
// "…" is an elision, not code, and is blanked first.
func parseGo(code string) error {
	var b strings.Builder
	for line := range strings.SplitSeq(code, "\n") {
		if t := strings.TrimSpace(line); t == "..." || t == "…" {
			line = ""
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	code = b.String()
	fset := token.NewFileSet()
	if _, err := goparser.ParseFile(fset, "", code, goparser.SkipObjectResolution); err == nil {
		return nil
	}
	if _, err := goparser.ParseFile(fset, "", "package p\n"+code, goparser.SkipObjectResolution); err == nil {
		return nil
	}
	_, err := goparser.ParseFile(fset, "", "package p\nfunc _() {\n"+code+"\n}\n", goparser.SkipObjectResolution)
	return err
}
