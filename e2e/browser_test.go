package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Browser tests drive Debian's chromium headless through the DevTools
// protocol (chromedp). Without chromium they skip with one line, unless
// SEPAD_REQUIRE_CHROMIUM=1 (CI installs it and sets that).

// chromiumPath finds the browser ($SEPAD_CHROMIUM, else chromium in PATH).
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SEPAD_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("SEPAD_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("chromium not found and SEPAD_REQUIRE_CHROMIUM=1 (install it: apt-get install -y chromium)")
	}
	t.Skip("chromium not installed: browser tests skipped (apt-get install -y chromium)")
	return ""
}

// browser starts a headless chromium with a fresh profile and returns a
// tab's context; everything ends with the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	// Start the browser now (with no deadline: chromedp ties the
	// browser's life to this first call's context).
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return ctx
}

// browse runs browser steps with a deadline.
func browse(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// browseValue runs one browser action that returns a value.
func browseValue[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	v, err := chromedp.Run(c, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// artifacts is where screenshots go: $SEPAD_ARTIFACTS/NAME, else a
// directory of the test's.
func artifacts(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if a := os.Getenv("SEPAD_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// screenshot saves the whole page as dir/name.png and logs where.
func screenshot(t *testing.T, ctx context.Context, dir, name string) string {
	t.Helper()
	png := browseValue(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
	return p
}
