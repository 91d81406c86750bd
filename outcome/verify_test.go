package outcome

import (
	"strings"
	"testing"

	"github.com/sepad/sepad/execution"
)

func TestRecognise(t *testing.T) {
	rules, err := Compile([]string{`^\./scripts/check\.sh\b`, `^just verify$`})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd, kind, runner string
		masked            bool
	}{
		{"go test ./...", KindTest, "go test", false},
		{"go vet ./...", KindLint, "go vet", false},
		{"go build ./cmd/x", KindBuild, "go build", false},
		{"cd pkg && go test -run TestSum .", KindTest, "go test", false},
		{"go test ./... 2>&1 | tail -20", KindTest, "go test", true},
		{"go test ./... | tee out.txt", KindTest, "go test", true},
		{"go test ./... || true", KindTest, "go test", true},
		{"CGO_ENABLED=0 GOFLAGS=-count=1 go test ./...", KindTest, "go test", false},
		{"env -i PATH=/bin go test ./...", KindTest, "go test", false},
		{"timeout 120 go test ./...", KindTest, "go test", false},
		{"time pytest -q", KindTest, "pytest", false},
		{`sh -c 'cd app && pytest -x'`, KindTest, "pytest", false},
		{`bash -lc "npm test 2>&1 | tail -5"`, KindTest, "npm test", true},
		{"python -m pytest tests/", KindTest, "pytest", false},
		{"python3 -m unittest discover", KindTest, "unittest", false},
		{"uv run pytest -k sum", KindTest, "pytest", false},
		{"poetry run pytest", KindTest, "pytest", false},
		{"npm test", KindTest, "npm test", false},
		{"npm run test -- --watch=false", KindTest, "npm test", false},
		{"pnpm test", KindTest, "pnpm test", false},
		{"yarn test", KindTest, "yarn test", false},
		{"bun test", KindTest, "bun test", false},
		{"npx jest src/sum.test.js", KindTest, "jest", false},
		{"npx vitest run", KindTest, "vitest", false},
		{"cargo test", KindTest, "cargo test", false},
		{"cargo check --all-targets", KindBuild, "cargo check", false},
		{"cargo clippy -- -D warnings", KindLint, "cargo clippy", false},
		{"make test", KindTest, "make test", false},
		{"make check", KindTest, "make check", false},
		{"mvn -q test", KindTest, "mvn test", false},
		{"./gradlew test", KindTest, "gradlew test", false},
		{"gradle test", KindTest, "gradle test", false},
		{"dotnet test", KindTest, "dotnet test", false},
		{"npx tsc --noEmit", KindLint, "tsc", false},
		{"ruff check .", KindLint, "ruff", false},
		{"eslint src", KindLint, "eslint", false},
		{"npm run lint", KindLint, "npm run lint", false},
		{"npm run build", KindBuild, "npm run build", false},
		{"go fmt ./... ; go test ./pkg/...", KindTest, "go test", false},
		{"./scripts/check.sh --fast", KindTest, `^\./scripts/check\.sh\b`, false},
		{"just verify", KindTest, `^just verify$`, false},
		{"(cd web && npm test)", KindTest, "npm test", false},
	} {
		m, masked, ok := recogniseLine(tc.cmd, rules)
		if !ok || m.kind != tc.kind || m.runner != tc.runner || masked != tc.masked {
			t.Errorf("%q: got %+v masked=%v ok=%v, want %s %q masked=%v", tc.cmd, m, masked, ok, tc.kind, tc.runner, tc.masked)
		}
	}
	for _, cmd := range []string{"ls -la", "cat go.mod", "echo go test", "git commit -m 'run go test'", "grep -r pytest .", "sed -n 1,20p main_test.go", ""} {
		if m, _, ok := recogniseLine(cmd, rules); ok {
			t.Errorf("%q recognised as %+v", cmd, m)
		}
	}
}

func TestFilters(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		name string
		want bool
	}{
		{"go test -run 'TestMax|TestMin' ./...", "TestSum", false},
		{"go test -run 'TestMax|TestMin' ./...", "TestMax", true},
		{"go test -run=TestSum ./...", "TestSum", true},
		{"go test -run TestSum/zero .", "TestSum/zero", true},
		{"go test -run TestSum/zero .", "TestMax", false},
		{"go test -skip TestSum ./...", "TestSum", false},
		{"go test ./...", "TestSum", true},
		{"pytest -k 'max or min'", "tests/test_calc.py::test_sum", false},
		{"pytest -k 'max or min'", "tests/test_calc.py::test_max", true},
		{"pytest -k 'not sum'", "tests/test_calc.py::test_sum", false},
		{"pytest tests/test_calc.py::test_max", "tests/test_calc.py::test_sum", false},
		{"pytest tests/test_calc.py::test_sum", "tests/test_calc.py::test_sum", true},
		{"pytest tests/test_calc.py", "tests/test_calc.py::test_sum", true},
		{"pytest tests/test_other.py", "tests/test_calc.py::test_sum", false},
		{"npx jest -t 'max'", "sum adds", false},
		{"npx jest -t 'sum'", "sum adds", true},
		{"cargo test max", "tests::sum", false},
		{"cargo test sum", "tests::sum", true},
	} {
		m, _, ok := recogniseLine(tc.cmd, nil)
		if !ok {
			t.Fatalf("%q not recognised", tc.cmd)
		}
		if got := m.filter.Covers(tc.name); got != tc.want {
			t.Errorf("%q covers %q = %v, want %v", tc.cmd, tc.name, got, tc.want)
		}
	}
}

// bash builds a finished Bash call; code 0 is a success with out as its
// stdout, else a failure "Exit code N" with out.
func bash(cmd string, code int, out string) execution.ToolCall {
	c := execution.ToolCall{Name: "Bash", Command: cmd, Done: true}
	if code != 0 {
		c.Failed = true
		c.Error = "Exit code " + itoa(code) + "\n" + out
	} else {
		c.Response = out
	}
	return c
}

func edit() execution.ToolCall { return execution.ToolCall{Name: "Edit", Done: true} }

const (
	goRed   = "--- FAIL: TestSum (0.00s)\n    calc_test.go:9: Sum(2, 3) = 6, want 5\nFAIL\nFAIL\texample.com/calc\t0.002s\nFAIL"
	goGreen = "ok  \texample.com/calc\t0.002s"
	goSub   = "ok  \texample.com/calc\t0.002s"
)

func TestStates(t *testing.T) {
	for _, tc := range []struct {
		name    string
		calls   []execution.ToolCall
		state   string
		fixLoop bool
		fixed   []int
	}{
		{"no edits, no runs", []execution.ToolCall{{Name: "Read", Done: true}}, NoEdits, false, nil},
		{"fix loop", []execution.ToolCall{bash("go test ./...", 1, goRed), edit(), bash("go test ./...", 0, goGreen)}, Passed, true, []int{0}},
		{"edit then green", []execution.ToolCall{edit(), bash("go test ./...", 0, goGreen)}, Passed, false, nil},
		{"edit, never verified", []execution.ToolCall{{Name: "Read", Done: true}, edit()}, Unverified, false, nil},
		{"red, edit, no rerun", []execution.ToolCall{bash("go test ./...", 1, goRed), edit()}, Unverified, false, nil},
		{"red, edit, red", []execution.ToolCall{bash("go test ./...", 1, goRed), edit(), bash("go test ./...", 1, goRed)}, Failed, false, nil},
		{"tail hides red", []execution.ToolCall{bash("go test ./...", 1, goRed), edit(), bash("go test ./... 2>&1 | tail -5", 0, goRed)}, Failed, false, nil},
		{"subset leaves out the failing test", []execution.ToolCall{bash("go test ./...", 1, goRed), edit(), bash("go test -run 'TestMax|TestMin' ./...", 0, goSub)}, Unverified, false, nil},
		{"a selection with no failure to target", []execution.ToolCall{edit(), bash("go test -run 'TestMax|TestMin' ./...", 0, goSub)}, Unverified, false, nil},
		{"subset covering the failing test", []execution.ToolCall{bash("go test ./...", 1, goRed), edit(), bash("go test -run TestSum ./...", 0, goSub)}, Passed, true, []int{0}},
		{"green then edit", []execution.ToolCall{edit(), bash("go test ./...", 0, goGreen), edit()}, Unverified, false, nil},
		{"rerun without edit is not a fix", []execution.ToolCall{bash("go test ./...", 1, goRed), bash("go test ./...", 0, goGreen), edit(), bash("go vet ./...", 0, "")}, Passed, false, nil},
		{"vacuous run", []execution.ToolCall{edit(), bash("go test -run TestNope ./...", 0, "testing: warning: no tests to run\nPASS")}, Unverified, false, nil},
		{"pytest red via N failed", []execution.ToolCall{edit(), bash("pytest -q | tail -3", 0, "FAILED tests/test_calc.py::test_sum - assert 6 == 5\n1 failed, 2 passed in 0.03s")}, Failed, false, nil},
		{"build red after test green", []execution.ToolCall{edit(), bash("go test ./...", 0, goGreen), bash("go build ./...", 1, "# x\n./a.go:3:2: undefined: y")}, Failed, false, nil},
	} {
		x := &execution.Execution{Calls: tc.calls}
		r := Analyze(x, nil)
		if r.State != tc.state || r.FixLoop != tc.fixLoop || !equalInts(r.Fixed, tc.fixed) {
			t.Errorf("%s: state %s (%s) fix loop %v fixed %v; want %s %v %v", tc.name, r.State, r.Detail, r.FixLoop, r.Fixed, tc.state, tc.fixLoop, tc.fixed)
		}
	}
}

func TestSubsetDetailNamesTheTest(t *testing.T) {
	x := &execution.Execution{Calls: []execution.ToolCall{bash("go test ./...", 1, goRed), edit(), bash("go test -run 'TestMax|TestMin' ./...", 0, goSub)}}
	r := Analyze(x, nil)
	if !strings.Contains(r.Detail, "TestSum") {
		t.Errorf("detail %q does not name TestSum", r.Detail)
	}
	if run := r.RunAt(0); run == nil || len(run.FailedTests) != 1 || run.FailedTests[0] != "TestSum" {
		t.Errorf("run 0: %+v", run)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func FuzzRecognise(f *testing.F) {
	for _, s := range []string{"go test ./... | tail", `sh -c 'bash -c "pytest -k \"a or b\""'`, "a && b || c; d | e & f", "'unterminated", `"x\`, "X= env -- timeout", "cd x && (npm test) 2>&1 >out"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		m, _, ok := recogniseLine(cmd, nil)
		if ok && (m.kind == "" || m.runner == "") {
			t.Fatalf("%q: empty match %+v", cmd, m)
		}
		if ok {
			_ = m.filter.Covers("TestX")
		}
		x := &execution.Execution{Calls: []execution.ToolCall{bash(cmd, 1, cmd), edit(), bash(cmd, 0, cmd)}, Output: cmd, HasOutput: true}
		r := Analyze(x, nil)
		switch r.State {
		case Passed, Failed, Unverified:
		default:
			t.Fatalf("state %q", r.State)
		}
	})
}
