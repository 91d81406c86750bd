package outcome

import (
	"regexp"
	"strings"
)

// Kinds of verification run.
const (
	KindTest  = "test"  // a test runner
	KindBuild = "build" // a build or a compile
	KindLint  = "lint"  // a linter, a type checker, a vet
)

// match is what recognising one stage found.
type match struct {
	kind   string
	runner string // "go test", "pytest", …, or the configured pattern
	filter *Filter
}

// recognise reads one stage as a verification run of a default runner,
// or of one of the configured patterns (matched on the stage's text).
func recognise(s stage, custom []*regexp.Regexp) (match, bool) {
	w := s.words
	for _, re := range custom {
		if re.MatchString(strings.Join(w, " ")) {
			return match{kind: KindTest, runner: re.String()}, true
		}
	}
	head := base(w[0])
	arg := func(i int) string {
		if i < len(w) {
			return w[i]
		}
		return ""
	}
	// sub is the first argument that is not a flag.
	sub := ""
	for _, a := range w[1:] {
		if !strings.HasPrefix(a, "-") {
			sub = a
			break
		}
	}
	switch head {
	case "go":
		switch arg(1) {
		case "test":
			return match{kind: KindTest, runner: "go test", filter: goFilter(w[2:])}, true
		case "vet":
			return match{kind: KindLint, runner: "go vet"}, true
		case "build":
			return match{kind: KindBuild, runner: "go build"}, true
		}
	case "pytest", "py.test":
		return match{kind: KindTest, runner: "pytest", filter: pytestFilter(w[1:])}, true
	case "unittest", "nose2", "tox", "nox", "rspec", "phpunit", "ctest", "mocha", "ava", "tap", "karma":
		m := match{kind: KindTest, runner: head}
		if head == "mocha" {
			m.filter = patternFilter(w[1:], "-g", "--grep", false)
		}
		return m, true
	case "jest", "vitest":
		return match{kind: KindTest, runner: head, filter: patternFilter(w[1:], "-t", "--testNamePattern", true)}, true
	case "playwright", "cypress":
		if sub == "test" || sub == "run" {
			return match{kind: KindTest, runner: head + " " + sub}, true
		}
	case "npm", "pnpm", "yarn", "bun":
		script := sub
		if script == "run" || script == "run-script" {
			script = ""
			for _, a := range w[2:] {
				if !strings.HasPrefix(a, "-") {
					script = a
					break
				}
			}
		}
		switch {
		case script == "test" || script == "t" || strings.HasPrefix(script, "test:"):
			return match{kind: KindTest, runner: head + " test"}, true
		case script == "build" || strings.HasPrefix(script, "build:"):
			return match{kind: KindBuild, runner: head + " run build"}, true
		case script == "lint" || script == "typecheck" || script == "type-check" || script == "check" || strings.HasPrefix(script, "lint:"):
			return match{kind: KindLint, runner: head + " run " + script}, true
		}
	case "cargo":
		switch sub {
		case "test", "nextest":
			return match{kind: KindTest, runner: "cargo " + sub, filter: cargoFilter(w[2:])}, true
		case "check", "build":
			return match{kind: KindBuild, runner: "cargo " + sub}, true
		case "clippy":
			return match{kind: KindLint, runner: "cargo clippy"}, true
		}
	case "make", "gmake", "just", "task":
		switch sub {
		case "test", "tests", "check", "test-unit", "unit", "e2e", "ci", "verify":
			return match{kind: KindTest, runner: head + " " + sub}, true
		case "", "all", "build":
			if head == "make" || head == "gmake" {
				return match{kind: KindBuild, runner: strings.TrimSpace(head + " " + sub)}, true
			}
		case "lint", "vet", "typecheck":
			return match{kind: KindLint, runner: head + " " + sub}, true
		}
	case "mvn", "mvnw", "gradle", "gradlew":
		for _, a := range w[1:] {
			switch strings.TrimPrefix(a, ":") {
			case "test", "verify", "check", "integrationTest":
				return match{kind: KindTest, runner: head + " " + a}, true
			}
		}
		for _, a := range w[1:] {
			switch a {
			case "package", "compile", "build", "assemble", "install":
				return match{kind: KindBuild, runner: head + " " + a}, true
			}
		}
	case "dotnet", "swift", "mix", "deno", "zig", "stack", "cabal", "dart", "flutter":
		switch sub {
		case "test":
			return match{kind: KindTest, runner: head + " test"}, true
		case "build", "compile":
			return match{kind: KindBuild, runner: head + " " + sub}, true
		case "lint", "analyze", "check":
			return match{kind: KindLint, runner: head + " " + sub}, true
		}
	case "bundle", "rake", "rails":
		if sub == "test" || sub == "spec" {
			return match{kind: KindTest, runner: head + " " + sub}, true
		}
	case "tsc", "vue-tsc", "mypy", "pyright", "ruff", "eslint", "flake8", "pylint", "golangci-lint", "staticcheck",
		"shellcheck", "rubocop", "biome", "stylelint", "clippy-driver", "hadolint", "ktlint", "swiftlint":
		return match{kind: KindLint, runner: head}, true
	case "cmake":
		if arg(1) == "--build" {
			return match{kind: KindBuild, runner: "cmake --build"}, true
		}
	case "javac", "gcc", "g++", "clang", "clang++", "rustc":
		return match{kind: KindBuild, runner: head}, true
	}
	return match{}, false
}

// Filter is the selection of tests a run asked for (go test -run,
// pytest -k or node ids, jest -t, cargo test NAME); nil runs them all.
type Filter struct {
	// Text is the selection as written, for the words.
	Text string
	// covers reports whether a test of that name was selected; nil
	// when the filter cannot be read (it then counts as covering).
	covers func(name string) bool
}

// Covers reports whether the run selected the test name (a name it
// cannot judge counts as selected).
func (f *Filter) Covers(name string) bool {
	if f == nil || f.covers == nil {
		return true
	}
	return f.covers(name)
}

// flagValue finds a flag's value: "-run X", "-run=X" ("--run" too).
func flagValue(w []string, names ...string) (string, bool) {
	for i, a := range w {
		for _, n := range names {
			if a == n || a == "-"+n {
				if i+1 < len(w) {
					return w[i+1], true
				}
			} else if v, ok := strings.CutPrefix(a, n+"="); ok {
				return v, true
			} else if v, ok := strings.CutPrefix(a, "-"+n+"="); ok {
				return v, true
			}
		}
	}
	return "", false
}

// goFilter reads go test's -run and -skip: regular expressions on the
// top-level test name (the part before the first '/').
func goFilter(w []string) *Filter {
	run, hasRun := flagValue(w, "-run", "-test.run")
	skip, hasSkip := flagValue(w, "-skip", "-test.skip")
	if !hasRun && !hasSkip {
		return nil
	}
	f := &Filter{Text: strings.TrimSpace(strings.Join([]string{prefixIf("-run ", run, hasRun), prefixIf("-skip ", skip, hasSkip)}, " "))}
	runRe, err1 := regexp.Compile(topLevel(run))
	skipRe, err2 := regexp.Compile(topLevel(skip))
	if err1 != nil || err2 != nil {
		return f
	}
	f.covers = func(name string) bool {
		name, _, _ = strings.Cut(name, "/")
		if hasRun && !runRe.MatchString(name) {
			return false
		}
		return !(hasSkip && skip != "" && skipRe.MatchString(name))
	}
	return f
}

func prefixIf(p, v string, ok bool) string {
	if !ok {
		return ""
	}
	return p + v
}

// topLevel is the part of a -run expression for top-level tests.
func topLevel(re string) string {
	depth := 0
	for i := 0; i < len(re); i++ {
		switch re[i] {
		case '\\':
			i++
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '/':
			if depth == 0 {
				return re[:i]
			}
		}
	}
	return re
}

// pytestFilter reads pytest's -k expression and its node ids or paths.
func pytestFilter(w []string) *Filter {
	k, hasK := flagValue(w, "-k")
	var paths []string
	skipNext := false
	for _, a := range w {
		if skipNext {
			skipNext = false
			continue
		}
		if strings.HasPrefix(a, "-") {
			// Flags that take a value as the next word.
			switch a {
			case "-k", "-m", "-p", "-c", "-o", "--deselect", "--rootdir", "--maxfail", "-n", "--tb", "-W", "--junitxml", "--cov":
				skipNext = true
			}
			continue
		}
		if strings.Contains(a, "::") || strings.HasSuffix(a, ".py") {
			paths = append(paths, a)
		}
	}
	if !hasK && len(paths) == 0 {
		return nil
	}
	var text []string
	if hasK {
		text = append(text, "-k "+k)
	}
	text = append(text, paths...)
	f := &Filter{Text: strings.Join(text, " ")}
	f.covers = func(name string) bool {
		if len(paths) > 0 && strings.Contains(name, "::") {
			in := false
			for _, p := range paths {
				if name == p || strings.HasPrefix(name, p+"::") || strings.HasPrefix(name, p+"[") || strings.HasPrefix(name, strings.TrimSuffix(p, ".py")+".py::") && !strings.Contains(p, "::") {
					in = true
					break
				}
				// A node id written from another directory: compare the
				// ends.
				if strings.Contains(p, "::") && (strings.HasSuffix(name, "/"+p) || strings.HasSuffix(p, "/"+name)) {
					in = true
					break
				}
			}
			if !in {
				return false
			}
		}
		return !hasK || keywordMatch(k, name)
	}
	return f
}

// keywordMatch evaluates a pytest -k expression (or, and, not,
// parentheses dropped) as substrings of the test's id, ignoring case.
func keywordMatch(expr, name string) bool {
	name = strings.ToLower(name)
	expr = strings.NewReplacer("(", " ", ")", " ").Replace(strings.ToLower(expr))
	for _, term := range strings.Split(expr, " or ") {
		ok := true
		for _, factor := range strings.Split(term, " and ") {
			factor = strings.TrimSpace(factor)
			neg := false
			for strings.HasPrefix(factor, "not ") {
				neg, factor = !neg, strings.TrimSpace(factor[4:])
			}
			if factor == "" {
				continue
			}
			if strings.Contains(name, factor) == neg {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// patternFilter reads a name pattern flag (jest -t, mocha -g): a regular
// expression on the test's title, or a substring.
func patternFilter(w []string, short, long string, isRegexp bool) *Filter {
	v, ok := flagValue(w, short, long)
	if !ok {
		return nil
	}
	f := &Filter{Text: short + " " + v}
	re, err := regexp.Compile("(?i)" + v)
	if err != nil {
		return f
	}
	f.covers = func(name string) bool { return re.MatchString(name) || !isRegexp && strings.Contains(name, v) }
	return f
}

// cargoFilter reads cargo test's name filter (a substring; --exact after
// --).
func cargoFilter(w []string) *Filter {
	name, exact := "", false
	dashes := false
	for _, a := range w {
		switch {
		case a == "--":
			dashes = true
		case a == "--exact" && dashes:
			exact = true
		case strings.HasPrefix(a, "-"):
		case name == "" && !dashes:
			name = a
		case name == "" && dashes:
			name = a
		}
	}
	if name == "" {
		return nil
	}
	f := &Filter{Text: name}
	f.covers = func(n string) bool {
		if exact {
			return n == name
		}
		return strings.Contains(n, name)
	}
	return f
}
