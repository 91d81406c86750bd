package outcome

import "strings"

// The shell reading of a Bash command: enough of sh's grammar to find the
// commands a line runs (sequences, pipelines, `sh -c`, quoting), never
// run or expanded.

// stage is one simple command of a pipeline.
type stage struct {
	words []string
	// after names the commands the stage's output was piped through
	// (tail, tee, grep, …) in the same pipeline.
	after []string
	// masked is set when the pipeline's exit status does not come from
	// this stage: piped on, or followed by `|| true`.
	masked bool
}

// maxDepth bounds nested `sh -c` strings.
const maxDepth = 4

// stages splits a command line into its simple commands, in order,
// reading into `sh -c`/`bash -c` strings.
func stages(cmd string) []stage {
	return stagesDepth(cmd, 0)
}

func stagesDepth(cmd string, depth int) []stage {
	var out []stage
	for _, pl := range pipelines(tokens(cmd)) {
		for i, words := range pl.stages {
			words = stripPrefixes(words)
			if len(words) == 0 {
				continue
			}
			if inner, ok := shellC(words); ok && depth < maxDepth {
				sub := stagesDepth(inner, depth+1)
				if i < len(pl.stages)-1 || pl.orTrue {
					for j := range sub {
						sub[j].masked = true
					}
				}
				out = append(out, sub...)
				continue
			}
			s := stage{words: words, masked: i < len(pl.stages)-1 || pl.orTrue}
			for _, next := range pl.stages[i+1:] {
				if next = stripPrefixes(next); len(next) > 0 {
					s.after = append(s.after, base(next[0]))
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// token is a word or an operator (&&, ||, ;, |, &, newline).
type token struct {
	text string
	op   bool
}

// tokens splits a command line into words and operators, honouring
// single and double quotes and backslashes; redirections are dropped.
func tokens(s string) []token {
	var out []token
	var w strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			out = append(out, token{text: w.String()})
			w.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				w.WriteString(s[i+1:])
				i = len(s)
			} else {
				w.WriteString(s[i+1 : i+1+j])
				i += j + 1
			}
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`+"`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
		case c == '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					inWord = true
					w.WriteByte(s[i])
				}
			}
		case c == ' ' || c == '\t':
			flush()
		case c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			flush()
			op := string(c)
			if (c == '&' || c == '|') && i+1 < len(s) && s[i+1] == c {
				op += string(c)
				i++
			} else if c == '|' && i+1 < len(s) && s[i+1] == '&' {
				i++ // |& pipes stderr too
			} else if c == '&' && i+1 < len(s) && s[i+1] == '>' {
				// &> file: a redirection
				i++
				for i+1 < len(s) && s[i+1] == ' ' {
					i++
				}
				for i+1 < len(s) && !strings.ContainsRune(" \t\n;&|", rune(s[i+1])) {
					i++
				}
				continue
			}
			if c == '(' || c == ')' {
				op = ";"
			}
			out = append(out, token{text: op, op: true})
		case c == '>' || c == '<':
			// A redirection: drop it and its target ("2>&1", "> out",
			// "2>/dev/null"); the digits before it were part of it.
			if inWord && isDigits(w.String()) {
				w.Reset()
				inWord = false
			}
			flush()
			for i+1 < len(s) && (s[i+1] == '>' || s[i+1] == '&' || s[i+1] == '<') {
				i++
			}
			for i+1 < len(s) && s[i+1] == ' ' {
				i++
			}
			for i+1 < len(s) && !strings.ContainsRune(" \t\n;&|()", rune(s[i+1])) {
				i++
			}
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	flush()
	return out
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

type pipeline struct {
	stages [][]string
	// orTrue: followed by `|| true` (or `|| :`, `|| exit 0`), which
	// hides its exit status.
	orTrue bool
}

// pipelines groups tokens into pipelines separated by &&, ||, ;, & and
// newlines.
func pipelines(ts []token) []pipeline {
	var out []pipeline
	cur := pipeline{stages: [][]string{nil}}
	end := func() {
		if len(cur.stages) > 1 || len(cur.stages[0]) > 0 {
			out = append(out, cur)
		}
		cur = pipeline{stages: [][]string{nil}}
	}
	for i, t := range ts {
		if !t.op {
			last := len(cur.stages) - 1
			cur.stages[last] = append(cur.stages[last], t.text)
			continue
		}
		switch t.text {
		case "|":
			cur.stages = append(cur.stages, nil)
		case "||":
			if i+1 < len(ts) && !ts[i+1].op {
				switch ts[i+1].text {
				case "true", ":", "exit", "echo":
					cur.orTrue = true
				}
			}
			end()
		default:
			end()
		}
	}
	end()
	return out
}

// wrappers run the command that follows them: a prefix to skip.
var wrappers = map[string]bool{"time": true, "nice": true, "nohup": true, "command": true, "exec": true,
	"sudo": true, "xvfb-run": true, "stdbuf": true, "ionice": true, "unbuffer": true}

// runners run a tool by name: `npx jest`, `uv run pytest`.
var runners = map[string][]string{
	"npx": nil, "bunx": nil, "pnpx": nil,
	"uv": {"run"}, "poetry": {"run"}, "pipenv": {"run"}, "pdm": {"run"}, "hatch": {"run"}, "rye": {"run"},
	"pnpm": {"exec", "dlx"}, "yarn": {"exec", "dlx"}, "bundle": {"exec"},
}

// stripPrefixes removes what only sets up a command: variable
// assignments, env, time, timeout N, npx, `uv run`, `python -m`.
func stripPrefixes(w []string) []string {
	for n := 0; len(w) > 0 && n < 16; n++ {
		head := base(w[0])
		switch {
		case isAssignment(w[0]):
			w = w[1:]
		case head == "env":
			w = w[1:]
			for len(w) > 0 && (isAssignment(w[0]) || strings.HasPrefix(w[0], "-")) {
				w = w[1:]
			}
		case head == "timeout" || head == "gtimeout":
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				w = w[1:]
			}
			if len(w) > 0 {
				w = w[1:] // the duration
			}
		case wrappers[head]:
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				w = w[1:]
			}
		case head == "python" || head == "python3" || head == "py":
			if len(w) > 2 && w[1] == "-m" {
				w = w[2:]
			} else {
				return w
			}
		default:
			sub, ok := runners[head]
			if !ok {
				return w
			}
			if sub == nil {
				w = w[1:]
				for len(w) > 0 && strings.HasPrefix(w[0], "-") {
					w = w[1:]
				}
				continue
			}
			if len(w) > 1 && contains(sub, w[1]) {
				w = w[2:]
				continue
			}
			return w
		}
	}
	return w
}

func isAssignment(s string) bool {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return false
	}
	for _, r := range s[:i] {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// shellC returns the string of `sh -c STRING` (bash, zsh, dash; -lc,
// -ec, …).
func shellC(w []string) (string, bool) {
	switch base(w[0]) {
	case "sh", "bash", "zsh", "dash", "ksh":
	default:
		return "", false
	}
	for i := 1; i < len(w); i++ {
		a := w[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return "", false
		}
		if strings.HasPrefix(a, "--") {
			continue
		}
		if strings.ContainsRune(a, 'c') {
			if i+1 < len(w) {
				return w[i+1], true
			}
			return "", false
		}
	}
	return "", false
}

// base is a command's name without its directory (./gradlew → gradlew).
func base(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}
