package mutation

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// ErrRefused is wrapped by every refusal of a proposal or manual action.
var ErrRefused = errors.New("refused")

// RefusalError says which rule refused a proposal, with the numbers.
type RefusalError struct {
	Rule   string
	Detail string
}

func (e *RefusalError) Error() string { return fmt.Sprintf("refused by %s: %s", e.Rule, e.Detail) }

// Unwrap makes every refusal match ErrRefused.
func (e *RefusalError) Unwrap() error { return ErrRefused }

// ProposalOptions are the limits on proposals from a mutator.
type ProposalOptions struct {
	MinRatio, MaxRatio float64  // length against the baseline: 0.5 and 2
	Dangerous          []string // case-insensitive substrings refused
	PerDay             int      // proposals per skill per day: 10
	MinExecutions      int      // executions since the last change: 3
	StableMean         float64  // no proposal while mean > 85 …
	StableSD           float64  // … and sd < 5 over the last 3 executions
}

// DefaultProposalOptions are the protocol's limits.
func DefaultProposalOptions() ProposalOptions {
	return ProposalOptions{MinRatio: 0.5, MaxRatio: 2, PerDay: 10, MinExecutions: 3, StableMean: 85, StableSD: 5,
		Dangerous: []string{"rm -rf /", "rm -rf ~", "ignore all previous instructions", "ignore previous instructions",
			"disregard all prior instructions", "curl | sh", "curl | bash", "chmod -r 777 /", "--no-verify", "git push --force"}}
}

// ProposalHistory is what the limits look at.
type ProposalHistory struct {
	// Recent are the times of this skill's earlier proposals.
	Recent []time.Time
	// SinceChange counts executions since the file last changed.
	SinceChange int
	// Last3 are the newest three scores, newest first.
	Last3 []float64
	Now   time.Time
}

// CheckProposal checks a proposed text against the baseline's and the
// limits; the error says which rule refused it and the numbers.
func CheckProposal(baseline, proposed []byte, h ProposalHistory, o ProposalOptions) error {
	p := strings.TrimSpace(string(proposed))
	if p == "" {
		return &RefusalError{"empty", "the proposed text is empty"}
	}
	if len(baseline) > 0 {
		ratio := float64(len(proposed)) / float64(len(baseline))
		if ratio < o.MinRatio || ratio > o.MaxRatio {
			return &RefusalError{"length", fmt.Sprintf("%d bytes is %.2f× the baseline's %d (allowed %.1f× to %.1f×)", len(proposed), ratio, len(baseline), o.MinRatio, o.MaxRatio)}
		}
		have := map[string]bool{}
		for _, hd := range headings(proposed) {
			have[hd] = true
		}
		for _, hd := range headings(baseline) {
			if !have[hd] {
				return &RefusalError{"headings", fmt.Sprintf("the baseline's heading %q is missing", hd)}
			}
		}
	}
	low := strings.ToLower(p)
	for _, d := range o.Dangerous {
		if strings.Contains(low, strings.ToLower(d)) {
			return &RefusalError{"dangerous_pattern", fmt.Sprintf("contains %q", d)}
		}
	}
	day := 0
	for _, t := range h.Recent {
		if h.Now.Sub(t) < 24*time.Hour {
			day++
		}
	}
	if day >= o.PerDay {
		return &RefusalError{"rate_limit", fmt.Sprintf("%d proposals in the last 24 hours (limit %d)", day, o.PerDay)}
	}
	if h.SinceChange < o.MinExecutions {
		return &RefusalError{"too_soon", fmt.Sprintf("%d executions since the last change (need %d)", h.SinceChange, o.MinExecutions)}
	}
	if len(h.Last3) >= 3 {
		m, sd := meanSD(h.Last3[:3])
		if m > o.StableMean && sd < o.StableSD {
			return &RefusalError{"stable", fmt.Sprintf("the skill is stable: mean %.2f > %.0f and sd %.2f < %.0f over the last 3 executions", m, o.StableMean, sd, o.StableSD)}
		}
	}
	return nil
}

var mdParser = sync.OnceValue(func() goldmark.Markdown { return goldmark.New() })

// headings lists a markdown text's headings (from the AST: a '#' in a code
// block is not a heading).
func headings(src []byte) []string {
	doc := mdParser().Parser().Parse(text.NewReader(src))
	var out []string
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			var b strings.Builder
			for c := h.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Segment.Value(src))
				}
			}
			out = append(out, strings.TrimSpace(b.String()))
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}
