package fastquery

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sepad/sepad/api"
)

// TestMain: a child this test started whose init did not serve the
// command exits 3 here instead of running the tests again.
func TestMain(m *testing.M) {
	if os.Getenv("FASTQUERY_CHILD") == "1" {
		os.Exit(3)
	}
	os.Exit(m.Run())
}

func TestSocketNameIsAPIs(t *testing.T) {
	if socketName != api.SocketName {
		t.Fatalf("socketName %q, api.SocketName %q", socketName, api.SocketName)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		args        []string
		home, query string
		ok          bool
	}{
		{nil, "", "format=text", true},
		{[]string{"--home", "/h"}, "/h", "format=text", true},
		{[]string{"-home=/h", "deploy"}, "/h", "format=text&match=deploy", true},
		{[]string{"deploy", "--all-versions", "--home=/h"}, "/h", "all_versions=true&format=text&match=deploy", true},
		{[]string{"-all-versions", "shop#deploy"}, "", "all_versions=true&format=text&match=shop%23deploy", true},
		{[]string{"--json"}, "", "indent=true", true},
		{[]string{"deploy", "-json", "--all-versions"}, "", "all_versions=true&indent=true&match=deploy", true},
		{[]string{"--fail-under", "B"}, "", "", false},
		{[]string{"--config", "c.yaml"}, "", "", false},
		{[]string{"-h"}, "", "", false},
		{[]string{"--"}, "", "", false},
		{[]string{"--home"}, "", "", false},
		{[]string{"--all-versions=false"}, "", "", false},
		{[]string{"a", "b"}, "", "", false},
		{[]string{"skills" + string(os.PathSeparator) + "deploy" + string(os.PathSeparator) + "SKILL.md"}, "", "", false},
		{[]string{""}, "", "", false},
	} {
		home, query, ok := parse(c.args)
		if home != c.home || query != c.query || ok != c.ok {
			t.Errorf("%q: %q %q %v, want %q %q %v", c.args, home, query, ok, c.home, c.query, c.ok)
		}
	}
}

// serve answers on home's socket as the daemon would, or as an older or
// failing one: text, JSON, or an error.
func serve(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) string {
	t.Helper()
	home, err := os.MkdirTemp("", "fq") // a short path: socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	l, err := net.Listen("unix", filepath.Join(home, api.SocketName))
	if err != nil {
		t.Fatal(err)
	}
	s := &http.Server{Handler: http.HandlerFunc(answer)}
	go s.Serve(l)
	t.Cleanup(func() { s.Close() })
	return home
}

const table = "SKILL   PROJECT\ndeploy  shop\n\nrubric 2.0.0; a version is graded from 3 scored executions\n"

func TestRun(t *testing.T) {
	var asked string
	text := serve(t, func(w http.ResponseWriter, r *http.Request) {
		asked = r.URL.String()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte(table))
	})
	var b bytes.Buffer
	if !Run([]string{"deploy", "--home", text, "--all-versions"}, &b) || b.String() != table {
		t.Fatalf("served %q", b.String())
	}
	if asked != "/v1/skills?all_versions=true&format=text&match=deploy" {
		t.Errorf("asked %s", asked)
	}
	for name, answer := range map[string]func(w http.ResponseWriter, r *http.Request){
		"a daemon without format=text": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"grades":[]}`))
		},
		"a chunked answer (no length)": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write([]byte(table[:10]))
			w.(http.Flusher).Flush()
			w.Write([]byte(table[10:]))
		},
		"an error": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(404)
			w.Write([]byte(`{"error":"no skill matches","status":404}`))
		},
	} {
		home := serve(t, answer)
		var b bytes.Buffer
		if Run([]string{"--home", home}, &b) || b.Len() > 0 {
			t.Errorf("%s: served %q", name, b.String())
		}
	}
	var none bytes.Buffer
	if Run([]string{"--home", t.TempDir()}, &none) || none.Len() > 0 {
		t.Errorf("no daemon: served %q", none.String())
	}
	if Run([]string{"--json", "--home", text}, &none) || none.Len() > 0 {
		t.Errorf("--json answered with text: served %q", none.String())
	}
	// --json: the document the daemon indented, as it came; a compact one
	// (a daemon without indent=true) is left to main.
	const doc = "{\n  \"grades\": []\n}\n"
	for body, served := range map[string]bool{doc: true, `{"grades":[]}` + "\n": false} {
		home := serve(t, func(w http.ResponseWriter, r *http.Request) {
			asked = r.URL.String()
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(body))
		})
		var b bytes.Buffer
		if got := Run([]string{"--json", "--home", home}, &b); got != served || (served && b.String() != doc) || (!served && b.Len() > 0) {
			t.Errorf("--json, answer %q: served %v %q", body, got, b.String())
		}
		if asked != "/v1/skills?indent=true" {
			t.Errorf("--json asked %s", asked)
		}
	}
}

// TestGradesRunsFromInit starts this test binary as `BINARY grades
// --home DIR`: the package's init prints the daemon's table and exits 0
// before any test runs; with no daemon it returns and the binary goes on
// (here: exits 3 from TestMain).
func TestGradesRunsFromInit(t *testing.T) {
	home := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte(table))
	})
	cmd := exec.Command(os.Args[0], "grades", "--home", home)
	cmd.Env = append(os.Environ(), "FASTQUERY_CHILD=1")
	out, err := cmd.Output()
	if err != nil || string(out) != table {
		t.Fatalf("grades from init: %v, %q", err, out)
	}
	cmd = exec.Command(os.Args[0], "grades", "--home", t.TempDir())
	cmd.Env = append(os.Environ(), "FASTQUERY_CHILD=1")
	if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("no daemon: %v (want exit 3: init returned)", err)
	}
}
