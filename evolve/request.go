package evolve

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/outcome"
	"github.com/sepad/sepad/record"
)

// Bounds of a request (docs/evolve.md, "The request").
const (
	// MaxText is the largest prompt file sent: a larger one is refused
	// (ErrTooLarge) rather than cut, since the answer replaces it whole.
	MaxText = 64 << 10
	// WorstRuns is how many of the version's lowest-scoring runs give
	// evidence.
	WorstRuns = 3
	// BestRuns is how many of its highest-scoring runs show what works.
	BestRuns = 2
	// MaxFailedCalls per run; MaxErrorText and MaxOutputText cut each
	// failed call's error and each run's final output.
	MaxFailedCalls = 4
	MaxErrorText   = 300
	MaxOutputText  = 600
	// MaxEvidence bounds the whole evidence section: runs beyond it are
	// left out and counted.
	MaxEvidence = 6 << 10
	// MaxRejected, MaxEditLines and MaxMemory bound the memory of
	// rejected changes: the newest MaxRejected, each change cut at
	// MaxEditLines lines, the section at MaxMemory bytes.
	MaxRejected  = 5
	MaxEditLines = 30
	MaxMemory    = 4 << 10
	// LowOutput is the output_quality below which a run's final output is
	// shown as evidence.
	LowOutput = 0.6
)

// FailedCall is a failed tool call as evidence.
type FailedCall struct {
	Tool  string `json:"tool"`
	Error string `json:"error"`
}

// Run is one low-scoring execution as evidence.
type Run struct {
	Score       float64      `json:"score"`
	Failed      []FailedCall `json:"failed,omitempty"`
	Output      string       `json:"output,omitempty"`
	Corrections int          `json:"corrections,omitempty"`
	// Said is what the person said when they corrected the answer
	// (the start of their prompt, execution.VerdictRecord).
	Said      []string `json:"said,omitempty"`
	StopError string   `json:"stop_error,omitempty"`
	// Outcome is what the run's work came to, in words (outcome.Report):
	// its verification runs, and each claim of its answer against them
	// ("claimed the tests pass; but the last test run … failed").
	Outcome []string `json:"outcome,omitempty"`
	// Acceptances counts the times the person accepted the answer.
	Acceptances int `json:"acceptances,omitempty"`
}

// Input is everything a request is built from.
type Input struct {
	Skill string
	// File is the prompt file's base name (its directories are not sent).
	File    string
	Version int
	Grade   string
	Score   float64
	N       int
	Text    []byte
	Choice  Choice
	Signals []SignalValue
	Runs    []Run
	// Best are the version's highest-scoring runs (BestRuns), apart
	// from those in Runs: what to keep.
	Best []Run
	// MinBytes and MaxBytes are the proposal length rule's bounds.
	MinBytes, MaxBytes int
	// Cases are the shown half of the skill's eval suite (SplitCases);
	// HeldOut counts the cases not shown.
	Cases   []Case
	HeldOut int
	// EditBytes is the edit budget: how many bytes a change may touch
	// (0: not stated).
	EditBytes int
	// Rejected are the skill's earlier candidates that were rejected or
	// rolled back, newest first (mutation.RejectedEdits).
	Rejected []mutation.Rejected
}

// Markers around the current text in a request.
const (
	BeginText = "=== BEGIN CURRENT TEXT ==="
	EndText   = "=== END CURRENT TEXT ==="
)

// Build writes the mutation request: the task and the rules the answer
// must keep, the strategy's instruction, the weakest signals with their
// numbers, evidence from the worst runs (cut) and the current text. Its
// size is the text plus at most about MaxEvidence+3 KiB.
func Build(in Input) (string, error) {
	if len(in.Text) > MaxText {
		return "", fmt.Errorf("%w: %s is %d bytes, more than the %d a request carries", ErrTooLarge, in.File, len(in.Text), MaxText)
	}
	st, ok := Lookup(in.Choice.Strategy)
	if !ok {
		return "", fmt.Errorf("%w: %q", ErrUnknownStrategy, in.Choice.Strategy)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "You are improving a prompt file of Claude Code: the skill %q (%s), version v%d.\n", in.Skill, in.File, in.Version)
	b.WriteString("Answer with a JSON list of edits and nothing else, each edit one of:\n")
	b.WriteString(`- {"op": "replace", "passage": "exact text of the current file", "text": "what replaces it", "reason": "why"}` + "\n")
	b.WriteString(`- {"op": "delete", "passage": "exact text of the current file", "reason": "why"}` + "\n")
	b.WriteString(`- {"op": "add", "passage": "exact text after which to add (empty: at the end)", "text": "what to add", "reason": "why"}` + "\n")
	b.WriteString("Each passage must occur exactly once in the current text, byte for byte, and no two edits may touch the same passage. ")
	b.WriteString("Keep what works: change only what the evidence asks for. ")
	b.WriteString("(The complete new text of the file, with no preamble and no code fence, is also accepted, and measured by its difference.)\n\n")
	b.WriteString("The answer is refused unless it:\n")
	b.WriteString("- keeps the front matter between the --- lines, every key of it, and the same name;\n")
	b.WriteString("- keeps every markdown heading of the current text (same level and words; new headings are fine);\n")
	b.WriteString("- keeps what the skill may run: no new or changed hooks, allowed-tools, tools, model, permission, shell or agent key, no new !`command` line;\n")
	if in.MaxBytes > 0 {
		fmt.Fprintf(&b, "- is between %d and %d bytes long (the current text is %d);\n", in.MinBytes, in.MaxBytes, len(in.Text))
	}
	if in.EditBytes > 0 {
		fmt.Fprintf(&b, "- changes at most %d bytes: for each run of changed lines, the bytes of the lines removed or of those added, whichever is more;\n", in.EditBytes)
	}
	b.WriteString("- adds no destructive command and no instruction to ignore earlier instructions;\n")
	b.WriteString("- is not a text, and does not make a change, listed under \"Already tried, made it worse\".\n\n")
	fmt.Fprintf(&b, "## Strategy: %s (risk %s)\n\n%s\n\n", st.Name, st.Risk, st.Instruction)
	fmt.Fprintf(&b, "Chosen because: %s.\n\n", in.Choice.Reason)
	fmt.Fprintf(&b, "## Signals of v%d (grade %s, %.2f over %d runs)\n\n", in.Version, in.Grade, in.Score, in.N)
	b.WriteString(signalLines(in.Signals))
	b.WriteString("\n## Evidence from the worst runs\n\n")
	b.WriteString(evidence(in.Runs))
	b.WriteString("\n## Evidence from the best runs (what to keep)\n\n")
	if len(in.Best) == 0 {
		b.WriteString("No other run of this version has a score.\n")
	} else {
		b.WriteString(evidence(in.Best))
	}
	if len(in.Cases) > 0 {
		fmt.Fprintf(&b, "\n## Eval cases of this skill (%d shown, %d held out)\n\n", len(in.Cases), in.HeldOut)
		for _, c := range in.Cases {
			fmt.Fprintf(&b, "- case %s: %s\n", quote(c.Name), quote(c.Prompt))
		}
	}
	b.WriteString("\n## Already tried, made it worse\n\n")
	b.WriteString(memory(in.Rejected))
	fmt.Fprintf(&b, "\n## Current text\n\n%s\n%s", BeginText, in.Text)
	if len(in.Text) > 0 && in.Text[len(in.Text)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(EndText + "\n")
	return b.String(), nil
}

// signalLines lists the signals weakest first (by distance to what is
// good: sub-scores, so that error_rate's rate counts inverted).
func signalLines(sigs []SignalValue) string {
	type row struct {
		s   SignalValue
		sub float64
	}
	var rows []row
	for _, s := range sigs {
		if s.N == 0 {
			continue
		}
		sub := s.Value
		if s.Signal == fitness.SignalErrorRate {
			sub = 1 - s.Value
		}
		rows = append(rows, row{s, sub})
	}
	if len(rows) == 0 {
		return "- no signal had evidence\n"
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].sub < rows[j].sub })
	limits := map[string]string{fitness.SignalErrorRate: "weak above 0.3", fitness.SignalEfficiency: "weak below 0.5",
		fitness.SignalOutput: "weak below 0.6", fitness.SignalStructure: "weak below 0.5", fitness.SignalToolSuccess: "share of tool calls that succeeded"}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "- %s %.2f (%s; %d runs)\n", r.s.Signal, r.s.Value, limits[r.s.Signal], r.s.N)
	}
	return b.String()
}

// evidence writes the runs, each cut, until MaxEvidence.
func evidence(runs []Run) string {
	if len(runs) == 0 {
		return "No run of this version has a score yet.\n"
	}
	var b strings.Builder
	for i, r := range runs {
		var e strings.Builder
		fmt.Fprintf(&e, "### Run %d: score %.2f\n", i+1, r.Score)
		for j, f := range r.Failed {
			if j == MaxFailedCalls {
				fmt.Fprintf(&e, "- and %s more\n", count(len(r.Failed)-j, "failed call", "failed calls"))
				break
			}
			fmt.Fprintf(&e, "- failed %s: %s\n", f.Tool, quote(cut(f.Error, MaxErrorText)))
		}
		for _, o := range r.Outcome {
			fmt.Fprintf(&e, "- outcome: %s\n", quote(cut(o, MaxErrorText)))
		}
		if r.Acceptances > 0 {
			fmt.Fprintf(&e, "- the user accepted the answer %s\n", count(r.Acceptances, "time", "times"))
		}
		if r.Corrections > 0 {
			fmt.Fprintf(&e, "- the user corrected the answer %s\n", count(r.Corrections, "time", "times"))
		}
		for _, q := range r.Said {
			fmt.Fprintf(&e, "- the user said: %s\n", quote(cut(q, MaxErrorText)))
		}
		if r.StopError != "" {
			fmt.Fprintf(&e, "- the turn ended on an API error: %s\n", quote(cut(r.StopError, MaxErrorText)))
		}
		if r.Output != "" {
			fmt.Fprintf(&e, "- final output: %s\n", quote(cut(r.Output, MaxOutputText)))
		}
		if b.Len()+e.Len() > MaxEvidence {
			fmt.Fprintf(&b, "(%d more runs left out: the evidence is limited to %d bytes)\n", len(runs)-i, MaxEvidence)
			break
		}
		b.WriteString(e.String())
	}
	return b.String()
}

// memory writes the rejected candidates, newest first: each one's
// change (quoted lines) and the evidence against it, until MaxMemory.
func memory(rs []mutation.Rejected) string {
	if len(rs) == 0 {
		return "Nothing yet: no earlier change of this skill was rejected or rolled back.\n"
	}
	var b strings.Builder
	for i, r := range rs {
		if i == MaxRejected {
			fmt.Fprintf(&b, "(%d older rejected changes left out)\n", len(rs)-i)
			break
		}
		var e strings.Builder
		fmt.Fprintf(&e, "### v%d, %s (%s points against the version it was compared with)\n", r.Seq, r.Status, signed(r.Delta))
		if r.Words != "" {
			fmt.Fprintf(&e, "- why: %s\n", quote(cut(r.Words, MaxErrorText)))
		}
		for _, s := range r.Worst {
			fmt.Fprintf(&e, "- %s: %.2f before, %.2f with it (%s points)\n", s.Signal, s.Baseline, s.Candidate, signed(s.Points))
		}
		if len(r.Edit) > 0 {
			fmt.Fprintf(&e, "- its change to v%d (removed lines start with -, added with +):\n", r.ParentSeq)
			for j, l := range r.Edit {
				if j == MaxEditLines {
					fmt.Fprintf(&e, "  (and %d more lines)\n", len(r.Edit)-j)
					break
				}
				if l == "@@" {
					e.WriteString("  @@\n")
					continue
				}
				fmt.Fprintf(&e, "  %s\n", quote(cut(l, MaxErrorText)))
			}
		}
		if b.Len()+e.Len() > MaxMemory {
			fmt.Fprintf(&b, "(%d more rejected changes left out: this section is limited to %d bytes)\n", len(rs)-i, MaxMemory)
			break
		}
		b.WriteString(e.String())
	}
	return b.String()
}

// signed writes x with its sign.
func signed(x float64) string { return fmt.Sprintf("%+.2f", x) }

// quote shows a piece of text on one line, escaped, so that it cannot
// pass for the request's own structure.
func quote(s string) string { return fmt.Sprintf("%q", s) }

// cut keeps at most n bytes of s on a rune boundary and says how much
// was cut.
func cut(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return fmt.Sprintf("%s… (cut, %d bytes)", s[:k], len(s))
}

// Signals are a version's mean signals over its scored executions.
func Signals(xs []record.Scored) []SignalValue {
	names := []string{fitness.SignalToolSuccess, fitness.SignalOutput, fitness.SignalEfficiency, fitness.SignalErrorRate, fitness.SignalStructure}
	sum := map[string]float64{}
	n := map[string]int{}
	for i := range xs {
		r := &xs[i].Result
		if !r.Scored || !fitness.SameRules(r.RubricVersion) {
			continue
		}
		for _, s := range r.Signals {
			if s.Present {
				sum[s.Signal] += s.Value
				n[s.Signal]++
			}
		}
	}
	out := make([]SignalValue, 0, len(names))
	for _, name := range names {
		v := SignalValue{Signal: name, N: n[name]}
		if v.N > 0 {
			v.Value = round4(sum[name] / float64(v.N))
		}
		out = append(out, v)
	}
	return out
}

// Worst picks the k lowest-scoring scored executions as evidence: their
// failed calls with the error text, their final output when its quality
// was low, what their work came to (verification runs, the answer's
// claims against them), corrections and an API error that ended the turn.
func Worst(xs []record.Scored, k int) []Run {
	idx := ranked(xs)
	if len(idx) > k {
		idx = idx[:k]
	}
	return runsOf(xs, idx)
}

// Best picks the k highest-scoring scored executions that are not among
// the skip lowest (those Worst(xs, skip) gives): the same evidence, from
// the runs that went best.
func Best(xs []record.Scored, k, skip int) []Run {
	idx := ranked(xs)
	var out []int
	for j := len(idx) - 1; j >= skip && len(out) < k; j-- {
		out = append(out, idx[j])
	}
	return runsOf(xs, out)
}

// ranked lists the scored executions' indices, lowest score first.
func ranked(xs []record.Scored) []int {
	idx := make([]int, 0, len(xs))
	for i := range xs {
		if xs[i].Result.Scored {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]].Result.Score < xs[idx[b]].Result.Score })
	return idx
}

func runsOf(xs []record.Scored, idx []int) []Run {
	out := make([]Run, 0, len(idx))
	for _, i := range idx {
		x := &xs[i]
		r := Run{Score: x.Result.Score, Corrections: x.Exec.Corrections, Acceptances: x.Exec.Acceptances, StopError: x.Exec.StopError}
		if rep := outcome.Analyze(&x.Exec, nil); rep != nil && (rep.Edits > 0 || len(rep.Runs) > 0 || len(rep.Claims) > 0) {
			r.Outcome = rep.Words()
		}
		for _, v := range x.Exec.Verdicts {
			if v.Verdict == execution.VerdictCorrection && v.Quote != "" {
				r.Said = append(r.Said, v.Quote)
			}
		}
		for _, c := range x.Exec.Calls {
			if c.OK() {
				continue
			}
			r.Failed = append(r.Failed, FailedCall{Tool: c.Name, Error: callError(&c)})
		}
		for _, s := range x.Result.Signals {
			if s.Signal == fitness.SignalOutput && s.Present && s.Value < LowOutput {
				r.Output = x.Exec.Output
			}
		}
		out = append(out, r)
	}
	return out
}

func callError(c *execution.ToolCall) string {
	switch {
	case c.Error != "":
		return c.Error
	case c.Response != "":
		return c.Response
	case c.Interrupted:
		return "interrupted"
	case c.NoPost:
		return "no answer from the tool"
	}
	return "failed"
}

// count is "1 time", "2 times".
func count(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
