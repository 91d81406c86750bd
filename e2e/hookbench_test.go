package e2e

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkHookTransports measures, in one run, what one hook event costs
// the agent, each started from Go as Claude Code starts hooks: a `cat >>
// spool` hook (shell form: `sh -c`, the cheapest command hook that keeps
// the event), sepad's hook in exec form (sepad-hook, as `sepad install`
// writes it, and the full `sepad hook`), sepad-hook in shell form, and an
// HTTP POST of the same payload to a running daemon's /v1/hook over
// loopback (Claude Code's "type": "http" hook: no process starts). The hook
// binaries are built as README installs them (CGO_ENABLED=0). Run:
//
//	go test -run '^$' -bench HookTransports -benchtime 300x ./e2e
func BenchmarkHookTransports(b *testing.B) {
	home := b.TempDir()
	bins := b.TempDir()
	for _, pkg := range []string{"sepad", "sepad-hook"} {
		build := exec.Command("go", "build", "-o", filepath.Join(bins, pkg), "../cmd/"+pkg)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("build %s: %v\n%s", pkg, err, out)
		}
	}
	payload := []byte(`{"session_id":"b0000000-0000-4000-8000-000000000001","transcript_path":"/t.jsonl","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_response":{"stdout":"` + string(bytes.Repeat([]byte("ok "), 600)) + `","stderr":""},"tool_use_id":"toolu_1","duration_ms":1200}`)
	run := func(b *testing.B, name string, args []string, env []string) {
		for i := 0; i < b.N; i++ {
			cmd := exec.Command(name, args...)
			cmd.Env = append(os.Environ(), env...)
			cmd.Stdin = bytes.NewReader(payload)
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("cat_hook_shell_form", func(b *testing.B) {
		run(b, "sh", []string{"-c", "cat >> " + filepath.Join(home, "cat.jsonl")}, nil)
	})
	b.Run("sepad-hook_exec_form", func(b *testing.B) {
		run(b, filepath.Join(bins, "sepad-hook"), []string{"hook"}, []string{"SEPA_HOME=" + filepath.Join(home, "small")})
	})
	b.Run("sepad_hook_exec_form", func(b *testing.B) {
		run(b, filepath.Join(bins, "sepad"), []string{"hook"}, []string{"SEPA_HOME=" + filepath.Join(home, "cmd")})
	})
	b.Run("sepad-hook_shell_form", func(b *testing.B) {
		run(b, "sh", []string{"-c", filepath.Join(bins, "sepad-hook") + " hook"}, []string{"SEPA_HOME=" + filepath.Join(home, "shell")})
	})
	b.Run("http_post_to_daemon", func(b *testing.B) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		dh := filepath.Join(home, "http")
		cmd := exec.Command(sepadBin, "run", "--home", dh, "--http", addr, "--log-level", "error")
		cmd.Env = append(os.Environ(), "SEPA_CONFIG=", "XDG_CONFIG_HOME="+filepath.Join(home, "none"))
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
		url := fmt.Sprintf("http://%s/v1/hook", addr)
		var c *http.Client
		for i := 0; ; i++ {
			// The secret exists once the daemon listens on TCP.
			if secret, err := os.ReadFile(filepath.Join(dh, "http.secret")); err == nil {
				c = &http.Client{Timeout: 5 * time.Second, Transport: bearer{strings.TrimSpace(string(secret))}}
				if resp, err := c.Get(fmt.Sprintf("http://%s/healthz", addr)); err == nil {
					resp.Body.Close()
					break
				}
			}
			if i > 100 {
				b.Fatal("daemon did not start")
			}
			time.Sleep(50 * time.Millisecond)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			resp, err := c.Post(url, "application/json", bytes.NewReader(payload))
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode/100 != 2 {
				b.Fatalf("POST /v1/hook: %s", resp.Status)
			}
		}
	})
}
