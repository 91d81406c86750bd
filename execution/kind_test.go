package execution

import "testing"

func TestCommandKind(t *testing.T) {
	for _, c := range []struct{ tool, cmd, want string }{
		{"Bash", "go test ./...", KindTest},
		{"Bash", "cd web && npm test", KindTest},
		{"Bash", "python -m pytest -q tests/", KindTest},
		{"Bash", "cargo test --all", KindTest},
		{"Bash", "make test", KindTest},
		{"Bash", "go build ./... && go test ./pkg", KindTest},
		{"Bash", "go test ./... && make deploy ENV=staging", KindDeploy}, // the last command decides
		{"Bash", "kubectl apply -f k8s/", KindDeploy},
		{"Bash", "./scripts/deploy.sh prod", KindDeploy},
		{"Bash", "go build ./cmd/...", KindBuild},
		{"Bash", "npm run build", KindBuild},
		{"Bash", "ls -la", ""},
		{"Bash", "grep -r test .", ""},
		{"Bash", "echo latest", ""},
		{"Read", "go test ./...", ""},
	} {
		in := []byte(`{"command":` + quote(c.cmd) + `}`)
		if got := CommandKind(c.tool, in); got != c.want {
			t.Errorf("CommandKind(%s, %q) = %q, want %q", c.tool, c.cmd, got, c.want)
		}
	}
	if CommandKind("Bash", []byte(`not json`)) != "" {
		t.Error("bad input classified")
	}
}

func quote(s string) string { return `"` + s + `"` }
