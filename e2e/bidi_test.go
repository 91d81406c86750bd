package e2e

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// Firefox is driven through WebDriver BiDi, which it serves on a
// websocket when started with --remote-debugging-port (no geckodriver:
// Debian has none). The client below is test-only and small: the four
// BiDi commands the dashboard's checks need, over github.com/coder/websocket. Without firefox the tests skip with one
// line, unless SEPAD_REQUIRE_FIREFOX=1 (CI installs firefox-esr and sets
// that).

// firefoxPath finds the browser ($SEPAD_FIREFOX, else firefox-esr or
// firefox in PATH).
func firefoxPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SEPAD_FIREFOX"); p != "" {
		return p
	}
	for _, name := range []string{"firefox-esr", "firefox"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("SEPAD_REQUIRE_FIREFOX") == "1" {
		t.Fatal("firefox not found and SEPAD_REQUIRE_FIREFOX=1 (install it: apt-get install -y firefox-esr)")
	}
	t.Skip("firefox not installed: Firefox browser tests skipped (apt-get install -y firefox-esr)")
	return ""
}

// firefoxPrefs keep a fresh profile from reaching out or asking anything
// (Firefox's remote agent sets its own recommended preferences too).
const firefoxPrefs = `user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("app.update.disabledForTesting", true);
user_pref("network.captive-portal-service.enabled", false);
user_pref("browser.safebrowsing.malware.enabled", false);
user_pref("browser.safebrowsing.phishing.enabled", false);
user_pref("extensions.update.enabled", false);
`

var bidiListening = regexp.MustCompile(`WebDriver BiDi listening on (ws://\S+)`)

// bidi is a WebDriver BiDi session with one browsing context (the tab).
type bidi struct {
	t       *testing.T
	conn    *websocket.Conn
	mu      sync.Mutex
	next    int
	pending map[int]chan bidiReply
	err     error
	context string
}

type bidiReply struct {
	Type    string          `json:"type"`
	ID      int             `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
}

// firefox starts a headless Firefox with a fresh profile and returns a
// BiDi session on its first tab; everything ends with the test.
func firefox(t *testing.T) *bidi {
	t.Helper()
	path := firefoxPath(t)
	profile := t.TempDir()
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(firefoxPrefs), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--headless", "--no-remote", "--remote-debugging-port=0", "--profile", profile, "about:blank")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "MOZ_CRASHREPORTER_DISABLE=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	exited := make(chan struct{})
	found := make(chan string, 1)
	var log strings.Builder
	var logMu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logMu.Lock()
			log.WriteString(sc.Text() + "\n")
			logMu.Unlock()
			if m := bidiListening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		cmd.Wait()
		close(exited)
	}()
	var b *bidi
	t.Cleanup(func() {
		if b != nil {
			b.call("browser.close", map[string]any{}, nil) // best effort
			b.conn.CloseNow()
		}
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	var ws string
	select {
	case ws = <-found:
	case <-exited:
		logMu.Lock()
		defer logMu.Unlock()
		t.Fatalf("%s ended before it listened for WebDriver BiDi:\n%s", path, log.String())
	case <-time.After(90 * time.Second):
		logMu.Lock()
		defer logMu.Unlock()
		t.Fatalf("%s did not listen for WebDriver BiDi in 90 s:\n%s", path, log.String())
	}
	b, err = dialBiDi(t, ws+"/session")
	if err != nil {
		t.Fatalf("connect to %s: %v", ws, err)
	}
	if err := b.call("session.new", map[string]any{"capabilities": map[string]any{}}, nil); err != nil {
		t.Fatalf("session.new: %v", err)
	}
	var tree struct {
		Contexts []struct {
			Context string `json:"context"`
		} `json:"contexts"`
	}
	if err := b.call("browsingContext.getTree", map[string]any{}, &tree); err != nil || len(tree.Contexts) == 0 {
		t.Fatalf("browsingContext.getTree: %v %+v", err, tree)
	}
	b.context = tree.Contexts[0].Context
	return b
}

// dialBiDi opens the websocket session.
func dialBiDi(t *testing.T, ws string) (*bidi, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, ws, nil)
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(256 << 20) // a full-page screenshot, base64
	b := &bidi{t: t, conn: conn, pending: map[int]chan bidiReply{}}
	go b.readLoop()
	return b, nil
}

// readLoop hands each command's reply to its caller; events are dropped.
func (b *bidi) readLoop() {
	for {
		_, m, err := b.conn.Read(context.Background())
		if err != nil {
			b.mu.Lock()
			b.err = err
			for id, c := range b.pending {
				close(c)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var r bidiReply
		if json.Unmarshal(m, &r) != nil || r.Type == "event" {
			continue
		}
		b.mu.Lock()
		c := b.pending[r.ID]
		delete(b.pending, r.ID)
		b.mu.Unlock()
		if c != nil {
			c <- r
		}
	}
}

// call sends a command and decodes its result into out (nil: ignored).
func (b *bidi) call(method string, params any, out any) error {
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		return b.err
	}
	b.next++
	id := b.next
	c := make(chan bidiReply, 1)
	b.pending[id] = c
	b.mu.Unlock()
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := b.conn.Write(ctx, websocket.MessageText, msg); err != nil {
		return err
	}
	select {
	case r, ok := <-c:
		if !ok {
			return fmt.Errorf("%s: connection closed: %v", method, b.err)
		}
		if r.Type == "error" {
			return fmt.Errorf("%s: %s: %s", method, r.Error, r.Message)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-time.After(time.Minute):
		return fmt.Errorf("%s: no answer in a minute", method)
	}
}

// navigate loads url in the tab and waits for its load event.
func (b *bidi) navigate(url string) {
	b.t.Helper()
	if err := b.call("browsingContext.navigate", map[string]any{"context": b.context, "url": url, "wait": "complete"}, nil); err != nil {
		b.t.Fatalf("navigate to %s: %v", url, err)
	}
}

// eval evaluates a script expression in the page and decodes its value
// (passed through JSON.stringify) into out.
func (b *bidi) eval(expr string, out any) {
	b.t.Helper()
	if err := b.tryEval(expr, out); err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
}

func (b *bidi) tryEval(expr string, out any) error {
	var r struct {
		Type   string `json:"type"`
		Result struct {
			Type  string `json:"type"`
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	err := b.call("script.evaluate", map[string]any{"expression": "JSON.stringify(" + expr + ")", "target": map[string]any{"context": b.context},
		"awaitPromise": false, "resultOwnership": "none"}, &r)
	if err != nil {
		return err
	}
	if r.Type == "exception" {
		return errors.New(r.ExceptionDetails.Text)
	}
	if r.Result.Type != "string" {
		return fmt.Errorf("the expression gave %s, not a value JSON can carry", r.Result.Type)
	}
	return json.Unmarshal([]byte(r.Result.Value), out)
}

// waitFor evaluates a boolean expression every 20 ms until it is true
// (script errors count as false: the page may be loading).
func (b *bidi) waitFor(what, expr string, limit time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var ok bool
		err := b.tryEval(expr, &ok)
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%s: not true after %v (%s; last error %v)", what, limit, expr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// screenshot saves the whole page as dir/name.png and logs where.
func (b *bidi) screenshot(dir, name string) {
	b.t.Helper()
	var r struct {
		Data string `json:"data"`
	}
	if err := b.call("browsingContext.captureScreenshot", map[string]any{"context": b.context, "origin": "document"}, &r); err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", p)
}
