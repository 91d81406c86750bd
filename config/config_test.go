package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Limit{
		"simple":  {30 * time.Second, 5, 0},
		"medium":  {120 * time.Second, 15, 0},
		"complex": {300 * time.Second, 30, 0},
	}
	for k, v := range want {
		if c.MaxExpected[k] != v {
			t.Errorf("max_expected.%s = %+v, want %+v", k, c.MaxExpected[k], v)
		}
	}
	if cx, l := c.LimitFor("anything"); cx != "medium" || l.Tools != 15 {
		t.Errorf("LimitFor default = %s %+v", cx, l)
	}
	if got := c.Aggregate.Weights; len(got) != 5 || got[0] != 1.0 || got[4] != 0.6 {
		t.Errorf("weights = %v", got)
	}
}

func TestOverrideKeyByKey(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(p, []byte("max_expected:\n  simple:\n    tools: 7\nskills:\n  deploy: complex\n"), 0o600)
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if l := c.MaxExpected["simple"]; l.Tools != 7 || l.Time != 30*time.Second {
		t.Errorf("simple = %+v, want tools 7 and the default time 30s", l)
	}
	if cx, l := c.LimitFor("deploy"); cx != "complex" || l.Tools != 30 {
		t.Errorf("deploy = %s %+v", cx, l)
	}
	if c.Source != p {
		t.Errorf("Source = %q", c.Source)
	}
	// The defaults were not modified by the override.
	d, _ := Load("")
	if d.MaxExpected["simple"].Tools != 5 {
		t.Error("override leaked into defaults")
	}
}

func TestErrorsNameFileLineKey(t *testing.T) {
	cases := []struct {
		name, yaml, key string
		line            int
	}{
		{"unknown_top_key", "aggregate:\n  weights: [1]\nbogus: 1\n", "bogus", 3},
		{"unknown_nested_key", "collector:\n  idle_timout: 5m\n", "collector.idle_timout", 2},
		{"bad_duration", "collector:\n  idle_timeout: soon\n", "collector.idle_timeout", 2},
		{"bad_int", "max_expected:\n  medium:\n    tools: many\n", "max_expected.medium.tools", 3},
		{"bad_complexity", "skills:\n  deploy: huge\n", "skills.deploy", 2},
		{"negative_weight", "aggregate:\n  weights: [1, -1]\n", "aggregate.weights", 2},
		{"bad_method", "\n\nmutation:\n  method: coinflip\n", "mutation.method", 4},
		{"unknown_complexity_row", "max_expected:\n  trivial:\n    tools: 1\n    time: 1s\n", "max_expected.trivial", 2},
		{"relative_extra_file", "collector:\n  extra_files: [logs/x.jsonl]\n", "collector.extra_files", 2},
		{"relative_extra_root", "mutation:\n  debounce: 1s\n  extra_roots: [src/app]\n", "mutation.extra_roots", 3},
		{"slash_extra_root", "mutation:\n  extra_roots: [/srv/app, /]\n", "mutation.extra_roots", 2},
		{"team_postgres_not_a_dsn", "team:\n  postgres: db.example.com\n", "team.postgres", 2},
		{"team_relative_password_file", "team:\n  postgres: host=db\n  password_file: pw.txt\n", "team.password_file", 3},
		{"otel_not_a_url", "otel:\n  endpoint: localhost:4318\n", "otel.endpoint", 2},
		{"team_empty_person", "\nteam:\n  person: \"\"\n", "team.person", 3},
		{"home_extra_root", "mutation:\n  extra_roots:\n    - " + userHome(t) + "\n", "mutation.extra_roots", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "bad.yaml")
			os.WriteFile(p, []byte(tc.yaml), 0o600)
			_, err := Load(p)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *config.Error", err)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Error("not ErrInvalid")
			}
			if ce.File != p || ce.Line != tc.line || ce.Key != tc.key {
				t.Errorf("got %s:%d key %q, want line %d key %q (%v)", ce.File, ce.Line, ce.Key, tc.line, tc.key, err)
			}
			if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.key) {
				t.Errorf("message %q lacks file or key", err)
			}
		})
	}
}

func userHome(t *testing.T) string {
	h, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	return h
}

func TestSyntaxError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(p, []byte("a: b\n c: : d\n\t- x\n"), 0o600)
	_, err := Load(p)
	var ce *Error
	if !errors.As(err, &ce) || ce.Line == 0 {
		t.Fatalf("err = %v, want a located syntax error", err)
	}
}

func TestMissingExplicitFile(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "nope.yaml")); err == nil {
		t.Fatal("want error for a named file that does not exist")
	}
}

func TestEmptyFileIsDefaults(t *testing.T) {
	p := filepath.Join(t.TempDir(), "empty.yaml")
	os.WriteFile(p, []byte("# nothing\n"), 0o600)
	c, err := Load(p)
	if err != nil || c.MaxExpected["medium"].Tools != 15 {
		t.Fatalf("c=%v err=%v", c, err)
	}
}

func TestPathPrecedence(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("SEPA_CONFIG", "")
	if p := Path(""); p != "" {
		t.Errorf("no file: Path = %q", p)
	}
	os.MkdirAll(filepath.Join(dir, "sepa"), 0o700)
	xdg := filepath.Join(dir, "sepa", "config.yaml")
	os.WriteFile(xdg, nil, 0o600)
	if p := Path(""); p != xdg {
		t.Errorf("xdg: Path = %q", p)
	}
	t.Setenv("SEPA_CONFIG", "/env.yaml")
	if p := Path(""); p != "/env.yaml" {
		t.Errorf("env: Path = %q", p)
	}
	if p := Path("/flag.yaml"); p != "/flag.yaml" {
		t.Errorf("flag: Path = %q", p)
	}
}

// TestClaudeCLI: --claude, then $SEPAD_CLAUDE, then mutation.claude,
// then claude when the file does not load.
func TestClaudeCLI(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte("mutation:\n  claude: /opt/claude\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("mutation: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SEPAD_CLAUDE", "")
	for _, c := range []struct{ bin, env, path, want string }{
		{"/bin/flag", "/bin/env", file, "/bin/flag"},
		{"", "/bin/env", file, "/bin/env"},
		{"", "", file, "/opt/claude"},
		{"", "", "", "claude"},
		{"", "", bad, "claude"},
	} {
		t.Setenv("SEPAD_CLAUDE", c.env)
		if got := ClaudeCLI(c.bin, c.path); got != c.want {
			t.Errorf("ClaudeCLI(%q, %q) with $SEPAD_CLAUDE %q = %q, want %q", c.bin, c.path, c.env, got, c.want)
		}
	}
}
