// Package outcome reads what an execution's work came to: the
// verification runs among its Bash calls (tests, builds, linters, their
// results read from the exit status and the output, and the tests they
// selected), whether the last one after the last edit passed, and what
// the final answer claims against those observations. It is pure; the
// rules are in docs/outcome.md.
package outcome

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/sepad/sepad/execution"
)

// States of an execution's verification (Report.State).
const (
	// NoEdits: the execution changed no file.
	NoEdits = "no_edits"
	// Passed: after the last edit, every kind of verification that ran
	// passed, and the tests that had failed ran again.
	Passed = "passed"
	// Failed: the last verification of a kind after the last edit failed.
	Failed = "failed"
	// Unverified: files changed, and nothing after the last edit checked
	// them (or only a selection that left out the tests that failed).
	Unverified = "unverified"
)

// Run is one verification run: a Bash call whose command runs a test
// runner, a build or a linter.
type Run struct {
	// Call is the index of the Bash call in the execution's calls.
	Call int `json:"call"`
	// Kind is KindTest, KindBuild or KindLint; Runner names it ("go
	// test", "pytest", or the configured pattern).
	Kind   string `json:"kind"`
	Runner string `json:"runner"`
	// Passed is the result; Why says what decided it ("exit code 1",
	// "--- FAIL in the output though the exit status was 0").
	Passed bool   `json:"passed"`
	Why    string `json:"why,omitempty"`
	// Masked is set when the shell's exit status could not tell (piped
	// through tail or tee, or `|| true`).
	Masked bool `json:"masked,omitempty"`
	// Vacuous is set when the run selected no test at all.
	Vacuous bool `json:"vacuous,omitempty"`
	// FailedTests are the names of the tests the output shows failing.
	FailedTests []string `json:"failed_tests,omitempty"`
	// Selection is the run's test selection as written (go test -run,
	// pytest -k, …); "" runs them all.
	Selection string `json:"selection,omitempty"`
	// AfterStop marks sepad's own check after the execution
	// (outcome.after_stop): Call is then one past the last call.
	AfterStop bool `json:"after_stop,omitempty"`
	filter    *Filter
}

// Rules are the configured verification patterns (outcome.verify):
// regular expressions matched on each command a Bash call runs.
type Rules struct {
	Verify []*regexp.Regexp
}

// Compile compiles the configured patterns.
func Compile(patterns []string) (*Rules, error) {
	r := &Rules{}
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", p, err)
		}
		r.Verify = append(r.Verify, re)
	}
	return r, nil
}

// Recognise reads one Bash command: the verification it runs (the last
// recognised command of the line), or ok false.
func Recognise(command string, r *Rules) (kind, runner string, ok bool) {
	m, _, ok := recogniseLine(command, r)
	return m.kind, m.runner, ok
}

// maxLine bounds the command text read.
const maxLine = 4096

func recogniseLine(command string, r *Rules) (match, bool, bool) {
	if len(command) > maxLine {
		command = command[:maxLine]
	}
	var custom []*regexp.Regexp
	if r != nil {
		custom = r.Verify
	}
	var found match
	masked, ok := false, false
	for _, s := range stages(command) {
		if m, hit := recognise(s, custom); hit {
			found, masked, ok = m, s.masked, true
		}
	}
	return found, masked, ok
}

// failureMarks are what a failing test run, build or lint prints,
// whatever the exit status the shell passed on.
var failureMarks = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*--- FAIL\b|^FAIL(\s|$)|^panic: |\bFAILED\b|\b[1-9]\d* (failed|failing|errors?)\b|` +
		`\berror\[E\d+\]|^error(\[\w+\])?: |npm ERR!|^npm error |\berror TS\d+|BUILD FAILURE|\bFailures: [1-9]|` +
		`^[^\s:]+\.go:\d+:\d+: |✕|^Traceback \(most recent call last\)|^make(\[\d+\])?: \*\*\* |\bFailed!|` +
		`^Found [1-9]\d* errors?|✖ [1-9]\d* problems?|\b[1-9]\d* problems? \([1-9]\d* errors?`)
})

// vacuousMarks are what a run that selected nothing prints.
var vacuousMarks = regexp.MustCompile(`no tests to run|collected 0 items|Ran 0 tests|No tests found|no tests ran|0 passing`)

// passMarks show that something did run and pass.
var passMarks = regexp.MustCompile(`(?m)^ok\s+\S+\s+(\(cached\)|[\d.]+s)\s*$|\b[1-9]\d* passed\b|\b[1-9]\d* passing\b|test result: ok\. [1-9]`)

// testNames find the names of failing tests: go, pytest, cargo, jest.
var testNames = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`),
	regexp.MustCompile(`(?m)^FAILED (\S+)`),
	regexp.MustCompile(`(?m)^test (\S+) \.\.\. FAILED`),
	regexp.MustCompile(`(?m)^\s*✕ (.+?)(?: \(\d+ ?m?s\))?\s*$`),
}

// maxNames bounds the failing test names kept per run.
const maxNames = 32

// readResult decides a verification's result from the call's outcome
// and the text it printed.
func readResult(c *execution.ToolCall, masked bool) (passed, vacuous bool, why string, names []string) {
	text := c.Response
	if c.Failed {
		text = c.Error
	}
	for _, re := range testNames {
		for _, m := range re.FindAllStringSubmatch(text, maxNames) {
			n := strings.TrimSuffix(m[1], ":")
			if len(names) < maxNames && !contains(names, n) {
				names = append(names, n)
			}
		}
	}
	mark := failureMarks().FindString(text)
	switch {
	case c.Failed:
		code := "a non-zero exit status"
		if first, _, _ := strings.Cut(c.Error, "\n"); strings.HasPrefix(first, "Exit code ") {
			code = strings.ToLower(first[:1]) + first[1:]
		}
		return false, false, code, names
	case mark != "":
		why := strings.TrimSpace(mark) + " in the output"
		if masked {
			why += " (the exit status was hidden)"
		} else {
			why += " though the exit status was 0"
		}
		return false, false, why, names
	case vacuousMarks.MatchString(text) && !passMarks.MatchString(text):
		return true, true, "no test was selected", nil
	}
	return true, false, "", nil
}

// Report is what one execution's work came to.
type Report struct {
	// Runs are the verification runs, in call order.
	Runs []Run `json:"runs,omitempty"`
	// Edits counts the calls that changed files (Edit, Write,
	// MultiEdit, NotebookEdit) and succeeded; LastEdit is the index of
	// the last one, -1 without.
	Edits    int `json:"edits"`
	LastEdit int `json:"last_edit"`
	// State is NoEdits, Passed, Failed or Unverified; Detail says why in
	// words.
	State  string `json:"state"`
	Detail string `json:"detail"`
	// FixLoop: a verification failed, files changed, and the same
	// verification (the tests that had failed among those selected)
	// passed after the last edit.
	FixLoop bool `json:"fix_loop,omitempty"`
	// Fixed are the call indices of failed verification runs a later
	// run of the same kind, after an edit, passed on the same tests: the
	// work going right, not tool failures.
	Fixed []int `json:"fixed,omitempty"`
	// Claims are the final answer's claims checked against the runs.
	Claims []Claim `json:"claims,omitempty"`
	// Admission is the answer's clause that reports the work failing
	// ("TestSum still fails"), "" without one.
	Admission string `json:"admission,omitempty"`
	// Unknown are the calls of unknown outcome (a PreToolUse without a
	// post event in an imported log, execution.ToolCall.Unknown) that
	// would have been edits, verification runs or deploys: a claim they
	// alone could decide is Unknown, neither borne out nor unsupported
	// (docs/import.md, "Unknown outcome, not failed").
	Unknown []UnknownCall `json:"unknown,omitempty"`
	// AfterStop is sepad's own check after the execution
	// (execution.AfterStop), when one ran; an observed one is also the
	// last of Runs.
	AfterStop *execution.Check `json:"after_stop,omitempty"`

	edits []int // the indices of the edits
}

// UnknownCall is a call of unknown outcome that could have decided a
// claim: its index and what it was (KindEdit, a verification kind, or
// execution.KindDeploy), and its runner for a verification.
type UnknownCall struct {
	Call   int    `json:"call"`
	Kind   string `json:"kind"`
	Runner string `json:"runner,omitempty"`
}

// KindEdit marks an UnknownCall that would have changed files.
const KindEdit = "edit"

// lastUnknown is the last call of unknown outcome of a kind of after
// call from, nil without one.
func (r *Report) lastUnknown(from int, of func(kind string) bool) *UnknownCall {
	for i := len(r.Unknown) - 1; i >= 0; i-- {
		if u := &r.Unknown[i]; u.Call > from && of(u.Kind) {
			return u
		}
	}
	return nil
}

// unknownWords says a call of unknown outcome.
func unknownWords(u *UnknownCall) string {
	what := u.Kind
	switch {
	case u.Runner != "":
		what = u.Runner
	case u.Kind == KindEdit:
		what = "an edit"
	}
	return fmt.Sprintf("call %d, %s, has no known outcome (the log has no post event for it)", u.Call, what)
}

// Any reports whether the report holds evidence: runs, edits or claims.
func (r *Report) Any() bool {
	return r != nil && (len(r.Runs) > 0 || r.Edits > 0 || len(r.Claims) > 0 || r.AfterStop != nil)
}

// IsFixed reports whether call i is a failed run that was fixed.
func (r *Report) IsFixed(i int) bool {
	if r == nil {
		return false
	}
	for _, f := range r.Fixed {
		if f == i {
			return true
		}
	}
	return false
}

// RunAt is the verification run of call i, or nil.
func (r *Report) RunAt(i int) *Run {
	if r == nil {
		return nil
	}
	for k := range r.Runs {
		if r.Runs[k].Call == i {
			return &r.Runs[k]
		}
	}
	return nil
}

// Analyze reads x's verification runs, edits and final claims with the
// configured rules r (nil: the defaults only).
//
// sepad's own check after the execution (x.AfterStop, outcome.after_stop),
// when it ran to its end, is the last verification run: after every call,
// so after the last edit.
func Analyze(x *execution.Execution, r *Rules) *Report {
	rep := &Report{LastEdit: -1}
	if x == nil {
		rep.State = NoEdits
		return rep
	}
	for i := range x.Calls {
		c := &x.Calls[i]
		if c.Unknown {
			rep.noteUnknown(i, c, r)
			continue
		}
		if execution.ChangesFiles(c.Name) && c.OK() {
			rep.Edits++
			rep.LastEdit = i
			rep.edits = append(rep.edits, i)
			continue
		}
		if c.Name != "Bash" || !c.Done || c.Unknown || c.Interrupted {
			continue
		}
		m, masked, ok := recogniseLine(c.Command, r)
		if !ok && c.Command == "" && (c.Kind == execution.KindTest || c.Kind == execution.KindBuild) {
			// A call grouped before commands were kept: its kind only.
			m, ok = match{kind: c.Kind, runner: "a " + c.Kind + " command"}, true
		}
		if !ok {
			continue
		}
		run := Run{Call: i, Kind: m.kind, Runner: m.runner, Masked: masked, filter: m.filter}
		if m.filter != nil {
			run.Selection = m.filter.Text
		}
		run.Passed, run.Vacuous, run.Why, run.FailedTests = readResult(c, masked)
		rep.Runs = append(rep.Runs, run)
	}
	if rep.AfterStop = x.AfterStop; x.AfterStop.Observed() {
		rep.Runs = append(rep.Runs, checkRun(x.AfterStop, len(x.Calls), r))
	}
	rep.settle()
	rep.Claims = checkClaims(x, rep)
	return rep
}

// noteUnknown keeps call i, of unknown outcome, when it would have been
// an edit, a verification run or a deploy.
func (rep *Report) noteUnknown(i int, c *execution.ToolCall, r *Rules) {
	switch {
	case execution.ChangesFiles(c.Name):
		rep.Unknown = append(rep.Unknown, UnknownCall{Call: i, Kind: KindEdit})
	case c.Name != "Bash":
	case c.Kind == execution.KindDeploy:
		rep.Unknown = append(rep.Unknown, UnknownCall{Call: i, Kind: execution.KindDeploy})
	default:
		if m, _, ok := recogniseLine(c.Command, r); ok {
			rep.Unknown = append(rep.Unknown, UnknownCall{Call: i, Kind: m.kind, Runner: m.runner})
		} else if c.Command == "" && (c.Kind == execution.KindTest || c.Kind == execution.KindBuild) {
			rep.Unknown = append(rep.Unknown, UnknownCall{Call: i, Kind: c.Kind, Runner: "a " + c.Kind + " command"})
		}
	}
}

// settle computes State, Detail, FixLoop and Fixed from the runs.
func (rep *Report) settle() {
	// Per kind: the tests still failing (by name), whether a run of the
	// kind failed with no name to tell, and the last run that counts.
	type kindState struct {
		pending   map[string]bool // failing tests not yet seen passing
		unnamed   []int           // failed runs without names, waiting for a full rerun
		redCalls  []int           // failed runs not yet fixed
		last      *Run            // the last run after the last edit that counts
		lastAny   *Run            // the last run of the kind at all
		leftOut   []string        // failing tests the last passing run left out
		fixedByUs bool
		// partial is the last passing run after the last edit when it
		// ran only a selection of the tests and no failure was known for
		// it to target: it verifies the selection, not the change.
		partial *Run
	}
	kinds := map[string]*kindState{}
	var order []string
	for k := range rep.Runs {
		run := &rep.Runs[k]
		ks := kinds[run.Kind]
		if ks == nil {
			ks = &kindState{pending: map[string]bool{}}
			kinds[run.Kind] = ks
			order = append(order, run.Kind)
		}
		ks.lastAny = run
		after := run.Call > rep.LastEdit
		if !run.Passed {
			if after {
				ks.partial = nil
			}
			for _, n := range run.FailedTests {
				ks.pending[n] = true
			}
			if len(run.FailedTests) == 0 {
				ks.unnamed = append(ks.unnamed, run.Call)
			}
			ks.redCalls = append(ks.redCalls, run.Call)
			if after {
				ks.last, ks.leftOut = run, nil
			}
			continue
		}
		if run.Vacuous {
			continue
		}
		// A passing run: which of the failing tests did it run again?
		var left []string
		for n := range ks.pending {
			if !run.filter.Covers(n) {
				left = append(left, n)
			}
		}
		if len(ks.unnamed) > 0 && run.filter != nil {
			left = append(left, "the tests that failed in call "+itoa(ks.unnamed[len(ks.unnamed)-1]))
		}
		if len(left) > 0 {
			if after {
				sort.Strings(left)
				ks.leftOut = left
			}
			continue
		}
		// A selection with no known failure to target: the tests it
		// left out are unknown, not verified.
		targeted := len(ks.pending) > 0 || len(ks.unnamed) > 0
		if after {
			ks.partial = nil
			if run.filter != nil && !targeted {
				ks.partial = run
			}
		}
		// Every failure so far ran again and passed: the red runs before
		// an edit that precedes this run are fixed.
		for _, rc := range ks.redCalls {
			if hasEditBetween(rep, rc, run.Call) {
				rep.Fixed = append(rep.Fixed, rc)
				ks.fixedByUs = true
			}
		}
		ks.redCalls, ks.unnamed = nil, nil
		clear(ks.pending)
		if after {
			ks.last, ks.leftOut = run, nil
		}
	}
	if rep.Edits == 0 {
		rep.State = NoEdits
		rep.Detail = "no file was changed"
		if rep.lastUnknown(-1, func(k string) bool { return k == KindEdit }) != nil {
			rep.Detail = "no edit of known outcome"
		}
		if n := len(rep.Runs); n > 0 {
			last := &rep.Runs[n-1]
			rep.Detail += "; the last verification (" + runWords(last) + ") " + resultWords(last)
		}
		return
	}
	var failed, passed, unverified []string
	for _, k := range order {
		ks := kinds[k]
		switch {
		case ks.last != nil && !ks.last.Passed:
			failed = append(failed, fmt.Sprintf("the last %s after the last edit (%s) failed: %s", kindWord(k), runWords(ks.last), ks.last.Why))
		case ks.last != nil && len(ks.leftOut) == 0 && ks.partial != nil:
			unverified = append(unverified, fmt.Sprintf("only a selection of the tests ran after the last edit (%s)", runWords(ks.partial)))
		case ks.last != nil && len(ks.leftOut) == 0:
			passed = append(passed, fmt.Sprintf("%s passed after the last edit (%s)", kindWord(k), runWords(ks.last)))
			if ks.fixedByUs {
				rep.FixLoop = true
			}
		case len(ks.leftOut) > 0:
			unverified = append(unverified, fmt.Sprintf("the %s after the last edit left out %s, which failed before", kindWord(k), strings.Join(ks.leftOut, ", ")))
		case ks.lastAny != nil && !ks.lastAny.Passed:
			unverified = append(unverified, fmt.Sprintf("the %s failed before the last edit (%s) and did not run again", kindWord(k), runWords(ks.lastAny)))
		}
	}
	switch {
	case len(failed) > 0:
		rep.State, rep.Detail = Failed, strings.Join(failed, "; ")
		rep.FixLoop = false
	case len(unverified) > 0:
		rep.State, rep.Detail = Unverified, strings.Join(unverified, "; ")
		rep.FixLoop = false
	case len(passed) > 0:
		rep.State, rep.Detail = Passed, strings.Join(passed, "; ")
	default:
		rep.State = Unverified
		rep.Detail = fmt.Sprintf("%d %s changed files and no test, build or lint ran after the last one", rep.Edits, plural(rep.Edits, "call", "calls"))
	}
}

// hasEditBetween reports whether a file changed between calls from and to.
func hasEditBetween(rep *Report, from, to int) bool {
	for _, e := range rep.edits {
		if e > from && e < to {
			return true
		}
	}
	return false
}

func kindWord(k string) string {
	switch k {
	case KindTest:
		return "test run"
	case KindBuild:
		return "build"
	}
	return "lint"
}

func runWords(r *Run) string {
	s := fmt.Sprintf("call %d, %s", r.Call, r.Runner)
	if r.AfterStop {
		s = "sepad's own check after the stop, " + r.Runner
	}
	if r.Selection != "" {
		s += " " + r.Selection
	}
	return s
}

func resultWords(r *Run) string {
	switch {
	case !r.Passed:
		return "failed: " + r.Why
	case r.Vacuous:
		return "selected no test"
	}
	return "passed"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func itoa(i int) string { return strconv.Itoa(i) }
