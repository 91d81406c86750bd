package fitness

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// doc is everything the output signals need to know about a markdown text,
// read from one walk of its goldmark AST. No signal looks at the raw
// markdown with regexes: a '#' inside a code block is code, not a heading.
type doc struct {
	headings int
	lists    int
	// fences are the fenced code blocks (``` or ~~~), in document order.
	fences []fence
	// indented counts indented code blocks: code, but not "fenced".
	indented int
	// prose holds the text of headings, paragraphs and list items, one
	// entry per block, soft line breaks kept as '\n'. Code blocks are left
	// out and code spans become the neutral word "`code`", so code that
	// handles errors is never mistaken for an error message.
	prose []proseBlock
	// lastBlock is the kind of the document's last leaf block ("" when
	// the document is empty), lastText its text when it is prose.
	lastBlock string
	lastText  string
	// firstBlock, firstText and firstClosed describe the first leaf block
	// that is not a heading: where a direct answer should be.
	firstBlock  string
	firstText   string
	firstClosed bool
}

type proseBlock struct {
	heading bool
	text    string
}

type fence struct {
	lang   string // lower-cased first word of the info string
	code   string
	closed bool // false when the block runs to the end without its closing fence
}

// codeSpanWord replaces a code span's content in prose.
const codeSpanWord = "`code`"

// closedAttr marks fenced code blocks whose closing fence was seen.
const closedAttr = "sepad-fence-closed"

// closureFenceParser wraps goldmark's fenced code block parser to record
// whether the closing fence was seen, which goldmark itself does not keep:
// an unclosed fence (a truncated answer) silently runs to the end of its
// container.
type closureFenceParser struct{ parser.BlockParser }

func (p closureFenceParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	st := p.BlockParser.Continue(node, reader, pc)
	if st&parser.Close != 0 {
		node.SetAttributeString(closedAttr, true)
	}
	return st
}

// mdParser is built once and never changed; goldmark parsers are safe for
// concurrent use (all parse state lives in a per-call context).
var mdParser = newMarkdownParser()

func newMarkdownParser() parser.Parser {
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
}

// parseMarkdown parses s once and collects the facts of doc.
func parseMarkdown(s string) *doc {
	src := []byte(s)
	root := mdParser.Parse(text.NewReader(src))
	d := &doc{}
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			d.headings++
			d.addProse(true, inlineText(n, src))
			return ast.WalkSkipChildren, nil
		case *ast.List:
			d.lists++
		case *ast.FencedCodeBlock:
			_, closed := n.AttributeString(closedAttr)
			lang := ""
			if l := n.Language(src); l != nil {
				lang = strings.ToLower(string(l))
			}
			d.fences = append(d.fences, fence{lang: lang, code: blockLines(n, src), closed: closed})
			d.leaf("fence", "", closed)
			return ast.WalkSkipChildren, nil
		case *ast.CodeBlock:
			d.indented++
			d.leaf("code", "", true)
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock:
			d.leaf("html", "", true)
			return ast.WalkSkipChildren, nil
		case *ast.ThematicBreak:
			d.leaf("break", "", true)
		case *ast.Paragraph, *ast.TextBlock:
			d.addProse(false, inlineText(n, src))
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return d
}

func (d *doc) addProse(heading bool, t string) {
	d.prose = append(d.prose, proseBlock{heading: heading, text: t})
	kind := "paragraph"
	if heading {
		kind = "heading"
	}
	d.leaf(kind, t, true)
}

// leaf records a leaf block in document order.
func (d *doc) leaf(kind, t string, closed bool) {
	d.lastBlock, d.lastText = kind, t
	if d.firstBlock == "" && kind != "heading" && kind != "break" {
		d.firstBlock, d.firstText, d.firstClosed = kind, t, closed
	}
}

// proseText joins every prose block, one block per line.
func (d *doc) proseText() string {
	var b strings.Builder
	for _, p := range d.prose {
		b.WriteString(p.text)
		b.WriteByte('\n')
	}
	return b.String()
}

// inlineText returns the text of a block's inline content: text, link text,
// emphasis, raw inline HTML (kept, it is where "<your name>" placeholders
// land), code spans as codeSpanWord. Soft and hard line breaks become '\n'.
func inlineText(n ast.Node, src []byte) string {
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

// blockLines returns a code block's content.
func blockLines(n ast.Node, src []byte) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		b.Write(s.Value(src))
	}
	return b.String()
}
