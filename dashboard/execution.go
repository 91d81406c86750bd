package dashboard

import (
	"bytes"
	"html/template"
	"net/http"

	"github.com/sepad/sepad/query"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// markdown renders outputs without their raw HTML (goldmark's default:
// raw HTML is left out and dangerous link targets dropped): outputs are
// untrusted. The page's Content-Security-Policy also refuses outside
// images, so an output cannot make the browser fetch anything.
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))

// renderMarkdown renders untrusted markdown as safe HTML.
func renderMarkdown(s string) template.HTML {
	var b bytes.Buffer
	if err := markdown.Convert([]byte(s), &b); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(s) + "</pre>")
	}
	return template.HTML(b.String())
}

type fact struct{ Name, Value string }

type executionPage struct {
	base
	X         *query.Explain
	Output    template.HTML
	HasOutput bool
	Facts     []fact
}

func (d *Dashboard) execution(r *http.Request) (any, error) {
	x, err := query.ExplainExecution(d.o.DB, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	out, ok, err := executionOutput(d.o.DB, x.Execution.ID)
	if err != nil {
		return nil, err
	}
	p := &executionPage{base: d.base(r, "Execution "+x.Execution.ID), X: x, HasOutput: ok}
	if ok {
		p.Output = renderMarkdown(out)
	}
	complete := "yes"
	if !x.Execution.Complete {
		complete = "no"
	}
	p.Facts = []fact{{"skill", query.DisplayName(x.Execution.Skill)}, {"project", x.Execution.Project}, {"session", x.Execution.SessionID},
		{"complete", complete}, {"rubric", x.Score.RubricVersion}, {"aggregate", x.Aggregate.In}}
	if x.AgentID != "" {
		p.Facts = append(p.Facts, fact{"agent", x.AgentID})
	}
	if x.StopError != "" {
		p.Facts = append(p.Facts, fact{"stop error", x.StopError})
	}
	for _, c := range x.Compactions {
		// The model went on from a summary (docs/executions.md, "Compactions").
		p.Facts = append(p.Facts, fact{"compacted", c.Trigger + " at " + c.At.UTC().Format("15:04:05")})
	}
	return p, nil
}
