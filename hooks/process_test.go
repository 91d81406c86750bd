package hooks

// Tests that run the real `sepad hook` binary and post-execution.sh as
// subprocesses. The binary is built once, on first use.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/hooks/settings"
	"github.com/sepad/sepad/internal/testbin"
	"github.com/sepad/sepad/spool"
)

var (
	binDir   string
	binMu    sync.Mutex
	bins     = map[string]string{} // package name under cmd/ -> built binary
	binErrs  = map[string]error{}
	heavyRun = os.Getenv("SEPAD_HEAVY") == "1"
)

func TestMain(m *testing.M) {
	if home := os.Getenv("SEPAD_TEST_HOLD_LOCK"); home != "" {
		holdLock(home)
		return
	}
	// Nothing in these tests may write to the user's real state
	// directory, whatever a test passes as --home.
	guard, err := os.MkdirTemp("", "sepad-guard-")
	if err == nil {
		os.Setenv("SEPA_HOME", guard)
	}
	code := m.Run()
	if ents, _ := os.ReadDir(guard); len(ents) > 0 {
		fmt.Println("a test wrote to the default state directory:", guard)
		code = 1
	}
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.RemoveAll(guard)
	os.Exit(code)
}

// holdLock is the helper process of TestHookBoundedWait: it takes the
// spool lock, says so, and keeps it until its stdin closes.
func holdLock(home string) {
	unlock, err := spool.Lock(home, 5*time.Second)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin)
	unlock()
	os.Exit(0)
}

// buildBin builds cmd/<name> once per test run (linked at most once per
// source tree, internal/testbin), into one temporary directory, so that
// sepad and sepad-hook sit side by side as go install puts them.
func buildBin(t testing.TB, name string) string {
	t.Helper()
	binMu.Lock()
	defer binMu.Unlock()
	if _, done := bins[name]; !done {
		if binDir == "" {
			d, err := os.MkdirTemp("", "sepad-hooks-test-")
			if err != nil {
				t.Fatal(err)
			}
			binDir = d
		}
		ps, err := testbin.Build(binDir, name)
		if err != nil {
			binErrs[name] = err
		} else {
			bins[name] = ps[0]
		}
	}
	if err := binErrs[name]; err != nil {
		t.Fatal(err)
	}
	return bins[name]
}

// sepadBin is the sepad binary; hookOnlyBin is sepad-hook, next to it.
func sepadBin(t testing.TB) string    { return buildBin(t, "sepad") }
func hookOnlyBin(t testing.TB) string { return buildBin(t, "sepad-hook") }

type run struct {
	stdout, stderr string
	err            error
}

// runHook runs `sepad hook` with payload on stdin.
func runHook(t testing.TB, bin, home string, payload []byte, args ...string) run {
	cmd := exec.Command(bin, append([]string{"hook", "--home", home}, args...)...)
	cmd.Stdin = bytes.NewReader(payload)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	return run{o.String(), e.String(), err}
}

// checkQuiet asserts the hook contract: exit 0, nothing on stdout, at most
// one short line on stderr.
func checkQuiet(t testing.TB, r run) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("hook exited with %v (stderr %q)", r.err, r.stderr)
	}
	if r.stdout != "" {
		t.Fatalf("hook wrote to stdout: %q", r.stdout)
	}
	if strings.Count(r.stderr, "\n") > 1 || len(r.stderr) > 300 {
		t.Fatalf("hook stderr is more than one short line: %q", r.stderr)
	}
}

// readLines returns the lines of the spool and the fallback file.
func readLines(t testing.TB, home string) [][]byte {
	t.Helper()
	var lines [][]byte
	for _, p := range []string{spool.Path(home), spool.FallbackPath(home)} {
		b, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			t.Fatalf("%s ends with a partial line", p)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines = append(lines, append([]byte(nil), sc.Bytes()...))
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return lines
}

// The tests that wait on processes (fixtures, the bounded wait, the
// environment table, the script's lock) run in parallel with each other:
// each has its own state directory, and -short is the contributor's loop.

func TestHookProcessFixtures(t *testing.T) {
	t.Parallel()
	// `sepad hook`, and sepad-hook as `sepad install` writes it (exec form:
	// the binary with the one argument "hook").
	for name, bin := range map[string]string{"sepad": sepadBin(t), "sepad-hook": hookOnlyBin(t)} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testHookFixtures(t, bin)
		})
	}
}

func testHookFixtures(t *testing.T, bin string) {
	home := filepath.Join(t.TempDir(), "state")
	files, _ := filepath.Glob("testdata/payloads/*.json")
	if len(files) < 12 {
		t.Fatalf("only %d fixtures", len(files))
	}
	type input struct {
		name    string
		payload []byte
	}
	var inputs []input
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{filepath.Base(f), b})
	}
	// A 5 MB Read response, generated rather than committed.
	var content strings.Builder
	for i := 0; content.Len() < 5<<20; i++ {
		fmt.Fprintf(&content, "%6d\tline of a large file with \"quotes\", tabs\tand é😀\n", i)
	}
	big, _ := json.Marshal(map[string]any{
		"session_id": "big", "hook_event_name": "PostToolUse", "cwd": "/tmp", "tool_name": "Read",
		"tool_input":    map[string]any{"file_path": "/tmp/big.txt"},
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": "/tmp/big.txt", "content": content.String()}},
	})
	inputs = append(inputs,
		input{"big", big},
		input{"invalid-utf8", []byte("{\"session_id\":\"u\",\"hook_event_name\":\"Stop\",\"last_assistant_message\":\"caf\xe9 \xff\\ud800\"}")},
		input{"not-json", []byte("Traceback (most recent call last):\n  oops\x00\xff")},
		input{"empty", nil},
	)
	for _, in := range inputs {
		r := runHook(t, bin, home, in.payload)
		checkQuiet(t, r)
	}
	lines := readLines(t, home)
	if len(lines) != len(inputs) {
		t.Fatalf("%d lines for %d payloads", len(lines), len(inputs))
	}
	for i, l := range lines {
		in := inputs[i]
		if !json.Valid(l) || bytes.ContainsAny(l, "\r\n") {
			t.Fatalf("%s: line is not one valid JSON line", in.name)
		}
		ev, err := event.ParseLine(l)
		switch in.name {
		case "not-json", "empty":
			if ev.HookEvent != event.Quarantined || err == nil {
				t.Fatalf("%s: not quarantined: %s", in.name, l)
			}
			continue
		}
		if err != nil || ev.Sepa == nil {
			t.Fatalf("%s: ParseLine: %v", in.name, err)
		}
		var orig struct {
			SessionID string `json:"session_id"`
			Event     string `json:"hook_event_name"`
		}
		json.Unmarshal(in.payload, &orig)
		if ev.SessionID != orig.SessionID || ev.HookEvent != orig.Event {
			t.Fatalf("%s: got %s/%s", in.name, ev.SessionID, ev.HookEvent)
		}
		if in.name == "big" {
			sum := sha256.Sum256([]byte(content.String()))
			want := event.Cut{Field: "/tool_response/file/content", Len: content.Len(), SHA256: hex.EncodeToString(sum[:])}
			if len(ev.Sepa.Cut) != 1 || ev.Sepa.Cut[0] != want {
				t.Fatalf("big: cut %+v, want %+v", ev.Sepa.Cut, want)
			}
			if len(l) > 2*DefaultMaxField {
				t.Fatalf("big: line is %d bytes", len(l))
			}
		}
		if in.name == "PostToolUse_windows_2025.json" && ev.Sepa.Project != "C:/Users/ana/shop" {
			t.Fatalf("windows cwd: project %q", ev.Sepa.Project)
		}
		if strings.Contains(in.name, "Skill") && ev.Sepa.Skill != "review" {
			t.Fatalf("%s: skill %q", in.name, ev.Sepa.Skill)
		}
	}
	// The state directory and files are private.
	for p, want := range map[string]os.FileMode{home: 0o700, spool.Path(home): 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v %v", p, fi.Mode(), err)
		}
	}
}

func TestHookOversizedPayload(t *testing.T) {
	// The reader's limit is tested in-process (HandleReader); here the
	// binary's flags: --max-field and a bad flag that must not lose the
	// event.
	bin := sepadBin(t)
	home := t.TempDir()
	p := []byte(`{"session_id":"s","hook_event_name":"Stop","last_assistant_message":"` + strings.Repeat("m", 5000) + `"}`)
	checkQuiet(t, runHook(t, bin, home, p, "--max-field", "1000"))
	r := runHook(t, bin, home, p, "--bogus")
	checkQuiet(t, r)
	if !strings.Contains(r.stderr, "bad flags") {
		t.Fatalf("stderr %q", r.stderr)
	}
	lines := readLines(t, home)
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	a, _ := event.ParseLine(lines[0])
	b, _ := event.ParseLine(lines[1])
	if len(a.Sepa.Cut) != 1 || len(a.LastMessage) > 1000 || len(b.Sepa.Cut) != 0 {
		t.Fatalf("--max-field not applied: %d cut / %d bytes; default run cut %d", len(a.Sepa.Cut), len(a.LastMessage), len(b.Sepa.Cut))
	}
}

// TestHookBoundedWait: with the lock held by another process the hook
// still returns, and the line is in the fallback file.
func TestHookBoundedWait(t *testing.T) {
	t.Parallel()
	bin := sepadBin(t)
	home := t.TempDir()
	holder := exec.Command(os.Args[0])
	holder.Env = append(os.Environ(), "SEPAD_TEST_HOLD_LOCK="+home)
	stdin, _ := holder.StdinPipe()
	out, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); holder.Wait() }()
	if l, _ := bufio.NewReader(out).ReadString('\n'); l != "locked\n" {
		t.Fatalf("helper: %q", l)
	}
	payload, _ := os.ReadFile("testdata/payloads/PostToolUse.json")
	start := time.Now()
	done := make(chan run, 1)
	go func() { done <- runHook(t, bin, home, payload) }()
	var r run
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("hook did not return while the lock was held")
	}
	t.Logf("hook returned after %v with the lock held elsewhere", time.Since(start))
	checkQuiet(t, r)
	if !strings.Contains(r.stderr, "fallback") {
		t.Fatalf("stderr %q does not say where the line went", r.stderr)
	}
	if _, err := os.Stat(spool.Path(home)); !os.IsNotExist(err) {
		t.Fatal("the spool was written while another process held the lock")
	}
	lines := readLines(t, home)
	if len(lines) != 1 {
		t.Fatalf("%d lines in the fallback file", len(lines))
	}
	if ev, err := event.ParseLine(lines[0]); err != nil || ev.ToolUseID != "toolu_02" {
		t.Fatalf("fallback line: %v %+v", err, ev)
	}
	if n, _ := spool.FallbackCount(home); n != 1 {
		t.Fatalf("fallback count %d", n)
	}
}

// concurrencyPayload is call i of worker w: a PostToolUse whose stdout
// ranges from 100 bytes to 1 MB (every 25th call).
func concurrencyPayload(w, i int) []byte {
	size := 100 + (i*7919+w*104729)%4000
	if i%25 == 7 {
		size = 1 << 20
	}
	b, _ := json.Marshal(map[string]any{
		"session_id": fmt.Sprintf("sess-%d", w), "transcript_path": "/t.jsonl", "cwd": "/tmp",
		"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": fmt.Sprintf("w%d-%d", w, i),
		"tool_input":    map[string]any{"command": "cat big"},
		"tool_response": map[string]any{"stdout": strings.Repeat("o", size), "stderr": "", "interrupted": false},
	})
	return b
}

// hammer runs workers×calls invocations of cmd (a new process each) and
// checks that the spool and fallback hold exactly one parseable line per
// call.
func hammer(t *testing.T, workers, calls int, home string, command func() *exec.Cmd, enriched bool) {
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < calls; i++ {
				cmd := command()
				cmd.Stdin = bytes.NewReader(concurrencyPayload(w, i))
				var o, e bytes.Buffer
				cmd.Stdout, cmd.Stderr = &o, &e
				if err := cmd.Run(); err != nil || o.Len() > 0 || strings.Count(e.String(), "\n") > 1 {
					errs <- fmt.Errorf("worker %d call %d: %v, stdout %q, stderr %q", w, i, err, o.String(), e.String())
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	lines := readLines(t, home)
	seen := make(map[string]bool, len(lines))
	for _, l := range lines {
		ev, err := event.ParseLine(l)
		if err != nil {
			t.Fatalf("line does not parse: %v: %.200s", err, l)
		}
		if enriched && ev.Sepa == nil {
			t.Fatalf("line not enriched: %.200s", l)
		}
		if seen[ev.ToolUseID] {
			t.Fatalf("line %s appears twice", ev.ToolUseID)
		}
		seen[ev.ToolUseID] = true
	}
	if len(seen) != workers*calls {
		t.Fatalf("%d distinct lines, want %d", len(seen), workers*calls)
	}
	fb, _ := spool.FallbackCount(home)
	t.Logf("%d processes x %d calls: %d lines, %d via the fallback file, %v (%v per call)",
		workers, calls, len(lines), fb, elapsed.Round(time.Millisecond), (elapsed / time.Duration(workers*calls)).Round(time.Microsecond))
}

// TestHookConcurrent: 16 concurrent writers against one spool, through
// `sepad hook` and through sepad-hook. SEPAD_HEAVY=1 runs the full 16 x
// 2,000 calls for each.
func TestHookConcurrent(t *testing.T) {
	t.Parallel()
	workers, calls := 16, 100
	if heavyRun {
		calls = 2000
	} else if testing.Short() {
		// Still eight hooks at once on the lock, 40 processes a binary
		// instead of 400: -short is the contributor's loop.
		workers, calls = 8, 5
	}
	t.Run("sepad", func(t *testing.T) {
		bin, home := sepadBin(t), t.TempDir()
		hammer(t, workers, calls, home, func() *exec.Cmd { return exec.Command(bin, "hook", "--home", home) }, true)
	})
	// sepad-hook as `sepad install` writes it: exec form, the state
	// directory from the environment.
	t.Run("sepad-hook", func(t *testing.T) {
		bin, home := hookOnlyBin(t), t.TempDir()
		hammer(t, workers, calls, home, func() *exec.Cmd {
			c := exec.Command(bin, "hook")
			c.Env = append(os.Environ(), "SEPA_HOME="+home)
			return c
		}, true)
	})
}

// TestScriptConcurrent: the same for post-execution.sh, with and without
// sepad available.
func TestScriptConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of concurrent or simulated work: runs without -short")
	}
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shell script")
	}
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) not installed")
	}
	script, _ := filepath.Abs("post-execution.sh")
	calls := 40
	if heavyRun {
		calls = 500
	}
	t.Run("raw", func(t *testing.T) {
		home := t.TempDir()
		hammer(t, 8, calls, home, func() *exec.Cmd {
			c := exec.Command("sh", script)
			c.Env = []string{"PATH=/usr/bin:/bin", "SEPA_HOME=" + home, "HOME=" + home}
			return c
		}, false)
	})
	t.Run("exec sepad", func(t *testing.T) {
		home := t.TempDir()
		bin := sepadBin(t)
		hammer(t, 8, calls/4, home, func() *exec.Cmd {
			c := exec.Command("sh", script)
			c.Env = []string{"PATH=/usr/bin:/bin", "SEPAD=" + bin, "SEPA_HOME=" + home, "HOME=" + home}
			return c
		}, true)
	})
}

// TestScriptFindsHookOnPath: without $SEPAD, post-execution.sh runs
// sepad-hook from PATH, else sepad, and enriches the line either way; with
// both on PATH it takes sepad-hook (a stand-in sepad here records that it
// ran).
func TestScriptFindsHookOnPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shell script")
	}
	script, _ := filepath.Abs("post-execution.sh")
	for _, tc := range []struct {
		name       string
		hook       bool   // real sepad-hook on PATH
		sepad      string // "real", "fake" or ""
		wantMarker bool
	}{
		{"sepad-hook only", true, "", false},
		{"sepad only", false, "real", false},
		{"both: sepad-hook first", true, "fake", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, home := t.TempDir(), t.TempDir()
			marker := filepath.Join(t.TempDir(), "sepad-ran")
			if tc.hook {
				os.Symlink(hookOnlyBin(t), filepath.Join(dir, "sepad-hook"))
			}
			switch tc.sepad {
			case "real":
				os.Symlink(sepadBin(t), filepath.Join(dir, "sepad"))
			case "fake":
				os.WriteFile(filepath.Join(dir, "sepad"), []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755)
			}
			c := exec.Command("sh", script)
			c.Env = []string{"PATH=" + dir + ":/usr/bin:/bin", "SEPA_HOME=" + home, "HOME=" + home}
			c.Stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"Stop"}`)
			var o, e bytes.Buffer
			c.Stdout, c.Stderr = &o, &e
			checkQuiet(t, run{o.String(), e.String(), c.Run()})
			if _, err := os.Stat(marker); (err == nil) != tc.wantMarker {
				t.Fatalf("stand-in sepad ran: %v", err == nil)
			}
			lines := readLines(t, home)
			if len(lines) != 1 || !bytes.Contains(lines[0], []byte(`"sepa":{`)) {
				t.Fatalf("lines %q", lines)
			}
		})
	}
}

// TestScriptAndHookShareTheLock: post-execution.sh must wait for the lock
// sepad holds, then fall back like the hook does.
func TestScriptAndHookShareTheLock(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) not installed")
	}
	home := t.TempDir()
	unlock, err := spool.Lock(home, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("post-execution.sh")
	c := exec.Command("sh", script)
	c.Env = []string{"PATH=/usr/bin:/bin", "SEPA_HOME=" + home}
	c.Stdin = strings.NewReader("{\"session_id\":\"s\",\n\"hook_event_name\":\"Stop\"}\n")
	out, err := c.CombinedOutput()
	unlock()
	if err != nil || len(out) != 0 {
		t.Fatalf("script: %v %q", err, out)
	}
	if _, err := os.Stat(spool.Path(home)); !os.IsNotExist(err) {
		t.Fatal("script wrote the spool while the lock was held")
	}
	lines := readLines(t, home)
	if len(lines) != 1 || string(lines[0]) != `{"session_id":"s","hook_event_name":"Stop"}` {
		t.Fatalf("fallback lines %q", lines)
	}
	if n, _ := spool.FallbackCount(home); n != 1 {
		t.Fatalf("fallback count %d", n)
	}
}

// TestInstallCommand: `sepad install` and `sepad uninstall` as a user runs
// them, with the real binaries (their paths are what gets installed): the
// handler is sepad-hook, which sits next to sepad, in exec form, and in
// shell form with --shell-form; each runs as Claude Code runs it.
func TestInstallCommand(t *testing.T) {
	bin := sepadBin(t)
	hookBin := hookOnlyBin(t)
	proj := t.TempDir()
	settingsFile := settings.Path(proj, false, "")
	os.MkdirAll(filepath.Dir(settingsFile), 0o755)
	orig, _ := os.ReadFile("settings/testdata/settings/nested_settings.json")
	os.WriteFile(settingsFile, orig, 0o644)
	state := t.TempDir() // install records the project as a write root there
	sepad := func(args ...string) string {
		t.Helper()
		c := exec.Command(bin, args...)
		c.Dir = proj
		c.Env = append(os.Environ(), "SEPA_HOME="+state)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("sepad %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	// runInstalled feeds a payload to the Stop handler of the settings
	// file, started the way Claude Code starts it, and checks the spool.
	runInstalled := func(wantExec bool) {
		t.Helper()
		var s struct {
			Hooks map[string][]struct {
				Hooks []struct {
					Command string
					Args    []string
				}
			}
		}
		b, _ := os.ReadFile(settingsFile)
		if err := json.Unmarshal(b, &s); err != nil || len(s.Hooks["Stop"]) == 0 {
			t.Fatalf("settings: %v\n%s", err, b)
		}
		h := s.Hooks["Stop"][len(s.Hooks["Stop"])-1].Hooks[0]
		var c *exec.Cmd
		if h.Args != nil {
			c = exec.Command(h.Command, h.Args...)
		} else {
			c = exec.Command("sh", "-c", h.Command)
		}
		if (h.Args != nil) != wantExec {
			t.Fatalf("handler %+v, want exec form %v", h, wantExec)
		}
		home := t.TempDir()
		c.Env = append(os.Environ(), "SEPA_HOME="+home)
		c.Stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"Stop","cwd":"` + proj + `"}`)
		if out, err := c.CombinedOutput(); err != nil || len(out) != 0 {
			t.Fatalf("installed command: %v %q", err, out)
		}
		if lines := readLines(t, home); len(lines) != 1 {
			t.Fatalf("installed command wrote %d lines", len(lines))
		}
	}
	out := sepad("install") // default: the current directory's project
	if !strings.Contains(out, "updated "+settingsFile) || !strings.Contains(out, "backup") {
		t.Fatalf("install said %q", out)
	}
	installed, _ := os.ReadFile(settingsFile)
	if bytes.Count(installed, []byte(`"command": "`+hookBin+`"`)) != len(settings.Events) || bytes.Count(installed, []byte(`"args": [`)) != len(settings.Events) {
		t.Fatalf("installed file:\n%s", installed)
	}
	if out := sepad("install", "--project", proj); !strings.Contains(out, "nothing changed") {
		t.Fatalf("second install said %q", out)
	}
	if b, _ := os.ReadFile(settingsFile); !bytes.Equal(b, installed) {
		t.Fatal("second install changed the file")
	}
	runInstalled(true)
	// Shell form, for Claude Code before exec form: replaces the handlers.
	sepad("install", "--shell-form")
	if b, _ := os.ReadFile(settingsFile); bytes.Count(b, []byte(`"command": "`+hookBin+` hook"`)) != len(settings.Events) || bytes.Contains(b, []byte(`"args"`)) {
		t.Fatalf("shell-form install:\n%s", b)
	}
	runInstalled(false)
	if out := sepad("uninstall", "--project", proj); !strings.Contains(out, "removed sepad's hook") {
		t.Fatalf("uninstall said %q", out)
	}
	if b, _ := os.ReadFile(settingsFile); !bytes.Equal(b, orig) {
		t.Fatalf("uninstall did not restore the file:\n%s", b)
	}
}

// TestHookOnlyLinksTheHook: sepad-hook, the binary `sepad install`
// writes into Claude Code's settings, links only the hook's packages, so
// none of the daemon's dependencies initialise on a tool call;
// GODEBUG=inittrace=1 lists every package init that ran.
func TestHookOnlyLinksTheHook(t *testing.T) {
	bin := hookOnlyBin(t)
	home := filepath.Join(t.TempDir(), "h")
	cmd := exec.Command(bin, "hook", "--home", home)
	cmd.Stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"Stop"}`)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil || o.Len() != 0 {
		t.Fatalf("exit %v, stdout %q", err, o.String())
	}
	trace := e.String()
	if !strings.Contains(trace, "init github.com/sepad/sepad/hooks ") {
		t.Fatalf("no init trace for package hooks:\n%s", trace)
	}
	for _, heavy := range []string{
		"github.com/prometheus/client_golang/",
		"github.com/yuin/goldmark/",
		"go.yaml.in/yaml",
		"net/http ",
		"html/template ",
		"text/template ",
		"github.com/sepad/sepad/fitness ",
		"github.com/sepad/sepad/store ",
		"github.com/sepad/sepad/api ",
		"github.com/sepad/sepad/dashboard ",
	} {
		if strings.Contains(trace, "init "+heavy) {
			t.Errorf("%s initialised in sepad-hook", strings.TrimSpace(heavy))
		}
	}
	if n := strings.Count(trace, "\ninit ") + 1; n > 110 {
		t.Errorf("%d package inits ran in sepad-hook:\n%s", n, trace)
	}
	if b, err := os.ReadFile(spool.Path(home)); err != nil || bytes.Count(b, []byte("\n")) != 1 {
		t.Fatalf("spool: %v %q", err, b)
	}
}

// TestHookEnvironment: both hook binaries, which read their environment
// from the runtime rather than through package os, find the state
// directory ($SEPA_HOME, else $XDG_STATE_HOME/sepa when absolute, else
// $HOME/.local/state/sepa) and the user-level skills ($CLAUDE_CONFIG_DIR,
// else $HOME/.claude) as Home and Enrich do in process.
func TestHookEnvironment(t *testing.T) {
	t.Parallel()
	bins := map[string][]string{"sepad hook": {sepadBin(t), "hook"}, "sepad-hook": {hookOnlyBin(t)}, "sepad-hook hook": {hookOnlyBin(t), "hook"}}
	for name, argv := range bins {
		for _, tc := range []struct {
			name  string
			env   func(dir string) []string
			spool string // relative to dir
			user  string // the user's Claude Code directory, relative to dir; "" = u/.claude
		}{
			{"SEPA_HOME", func(d string) []string {
				return []string{"SEPA_HOME=" + d + "/s", "XDG_STATE_HOME=" + d + "/x", "HOME=" + d + "/u"}
			}, "s", ""},
			{"XDG_STATE_HOME", func(d string) []string { return []string{"XDG_STATE_HOME=" + d + "/x", "HOME=" + d + "/u"} }, "x/sepa", ""},
			{"relative XDG_STATE_HOME", func(d string) []string { return []string{"XDG_STATE_HOME=x", "HOME=" + d + "/u"} }, "u/.local/state/sepa", ""},
			{"HOME", func(d string) []string { return []string{"HOME=" + d + "/u"} }, "u/.local/state/sepa", ""},
			{"empty SEPA_HOME", func(d string) []string { return []string{"SEPA_HOME=", "HOME=" + d + "/u"} }, "u/.local/state/sepa", ""},
			{"CLAUDE_CONFIG_DIR", func(d string) []string {
				return []string{"CLAUDE_CONFIG_DIR=" + d + "/cfg", "HOME=" + d + "/u"}
			}, "u/.local/state/sepa", "cfg"},
			{"CLAUDE_CONFIG_DIR without HOME", func(d string) []string {
				return []string{"CLAUDE_CONFIG_DIR=" + d + "/cfg/", "SEPA_HOME=" + d + "/s"}
			}, "s", "cfg"},
			{"empty CLAUDE_CONFIG_DIR", func(d string) []string { return []string{"CLAUDE_CONFIG_DIR=", "HOME=" + d + "/u"} }, "u/.local/state/sepa", ""},
		} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				user := tc.user
				if user == "" {
					user = "u/.claude"
				}
				// A decoy in ~/.claude when $CLAUDE_CONFIG_DIR replaces it.
				for _, u := range []string{"u/.claude", user} {
					if err := os.MkdirAll(filepath.Join(dir, u, "skills", "deploy"), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, u, "skills", "deploy", "SKILL.md"), []byte("# Deploy in "+u+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				skill := filepath.Join(dir, user, "skills", "deploy", "SKILL.md")
				content := []byte("# Deploy in " + user + "\n")
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = dir
				cmd.Env = append(tc.env(dir), "PATH=/usr/bin:/bin")
				cmd.Stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"PreToolUse","cwd":"/","tool_name":"Skill","tool_input":{"skill":"deploy"}}`)
				var o, e bytes.Buffer
				cmd.Stdout, cmd.Stderr = &o, &e
				checkQuiet(t, run{o.String(), e.String(), cmd.Run()})
				lines := readLines(t, filepath.Join(dir, tc.spool))
				if len(lines) != 1 {
					t.Fatalf("%d lines in %s", len(lines), tc.spool)
				}
				sum := sha256.Sum256(content)
				for _, want := range []string{`"skill":"deploy"`, `"skill_path":"` + skill + `"`, `"skill_version":"` + hex.EncodeToString(sum[:6]) + `"`} {
					if !bytes.Contains(lines[0], []byte(want)) {
						t.Errorf("line lacks %s: %s", want, lines[0])
					}
				}
			})
		}
	}
}
