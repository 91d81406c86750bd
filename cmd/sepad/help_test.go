package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/sepad/sepad/render"
)

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("SEPA_HOME", home)
	t.Setenv("HOME", home)
	t.Setenv("SEPA_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", home)
	var o, e bytes.Buffer
	code = runMain(args, strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

// Every command has a help page on stdout: a usage line with its
// positional arguments, what it does, its flags as --flag, one example;
// `sepad CMD --help` prints the same as `sepad help CMD`.
var (
	flagLine = regexp.MustCompile(`^  --?[a-z][a-z-]*( [A-Z][A-Z0-9_]*(\|[A-Z][A-Z0-9_]*)?)?  +\S`)
	// goType is the name the flag package gives a value from its Go type
	// when the usage names none: help names what the value is instead.
	goType = regexp.MustCompile(`^  --?[a-z][a-z-]* (STRING|INT|UINT|INT64|UINT64|FLOAT|DURATION|VALUE)  `)
	goFile = regexp.MustCompile(`\b[a-z_]+\.go\b`)
)

func TestHelpEveryCommand(t *testing.T) {
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			h, ok := render.Helps[name]
			if !ok {
				t.Logf("no help text for %s in render/help.go (Helps): add its arguments and an example", name)
			}
			code, out, errOut := runCmd(t, "help", name)
			if code != 0 || errOut != "" {
				t.Fatalf("sepad help %s: exit %d, stderr %q", name, code, errOut)
			}
			first, _, _ := strings.Cut(out, "\n")
			if !strings.HasPrefix(first, "usage: sepad "+name) || !strings.HasSuffix(first, h.Args) {
				t.Errorf("usage line %q lacks its arguments %q", first, h.Args)
			}
			if !strings.Contains(out, "\nexample:\n  sepad "+name) && name != "hook" {
				t.Errorf("no example:\n%s", out)
			}
			for _, l := range strings.Split(out, "\n") {
				if strings.HasSuffix(l, " ") {
					t.Errorf("trailing space: %q", l)
				}
				// A flag is written as it is typed: --flag, and a
				// one-letter one -o FILE (issue 36 item 8).
				if f := strings.TrimSpace(l); strings.HasPrefix(f, "-") && !strings.HasPrefix(f, "--") && (len(f) < 2 || len(f) > 2 && f[2] != ' ') {
					t.Errorf("a flag not written --flag or -x: %q", l)
				}
				if f := strings.TrimSpace(l); strings.HasPrefix(f, "--") && len(f) > 3 && f[3] == ' ' {
					t.Errorf("a one-letter flag written --x: %q", l)
				}
				// A flag line is the flag, at most one value name in
				// capitals, then two spaces or more before its usage: a
				// backquoted command in a usage is not the value's name
				// ("--skill SEPAD LABEL LAST --SKILL with last: …").
				if strings.HasPrefix(l, "  -") && !flagLine.MatchString(l) {
					t.Errorf("a flag line not --flag [VALUE] then its usage: %q", l)
				}
				if goType.MatchString(l) {
					t.Errorf("a flag's value named by its Go type, not by what it is (--home DIR): %q", l)
				}
				// Help speaks to a person: no source file of sepad's.
				if goFile.MatchString(l) {
					t.Errorf("help names a source file: %q", l)
				}
			}
			if name == "hook" || name == "help" {
				return
			}
			code, out2, errOut := runCmd(t, name, "--help")
			if code != 0 || out2 != out || errOut != "" {
				t.Errorf("sepad %s --help: exit %d, stderr %q, stdout differs from sepad help %s:\n%s", name, code, errOut, name, out2)
			}
		})
	}
}

func TestHelpAndErrorsOnce(t *testing.T) {
	code, out, _ := runCmd(t, "help")
	if code != 0 || !strings.Contains(out, "  versions ") || !strings.Contains(out, "  version ") {
		t.Errorf("sepad help: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"grdes"}, `sepad: no command "grdes"; did you mean grades?`},
		{[]string{"grades", "--nope"}, "sepad grades: unknown flag --nope (see `sepad help grades`)"},
		// The command is named once (a walk read "sepad versions:
		// versions takes one SKILL", "sepad score: score needs …").
		{[]string{"history"}, "sepad history: takes one SKILL (see `sepad help history`)"},
		{[]string{"versions"}, "sepad versions: takes one SKILL"},
		{[]string{"score"}, "sepad score: needs at least one FILE"},
		{[]string{"import"}, "sepad import: needs a PATH"},
		{[]string{"forget", "deploy"}, "sepad forget: removes deploy's executions"},
		{[]string{"help", "nope"}, `sepad help: no command "nope"`},
	} {
		code, out, errOut := runCmd(t, c.args...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, c.want) {
			t.Errorf("sepad %v: exit %d, stdout %q, stderr %q; want one line starting %q", c.args, code, out, errOut, c.want)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := runCmd(t, args...)
		if code != 0 || !strings.HasPrefix(out, "sepad ") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("sepad %v: exit %d, %q", args, code, out)
		}
	}
	code, out, _ := runCmd(t, "version", "--json")
	var b struct{ Version, Go, Platform string }
	if code != 0 || json.Unmarshal([]byte(out), &b) != nil || b.Go != runtime.Version() || b.Version == "" || b.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("version --json: exit %d, %s", code, out)
	}
}
