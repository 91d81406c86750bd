package doctor

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/hooks/settings"
	"github.com/sepad/sepad/store"
)

// TestDoctorChecksHTTPHook: doctor connects to the URL of an installed
// http hook with the secret Claude Code would send: FAIL for a dead URL,
// an unset or wrong $SEPAD_SECRET, OK when the daemon accepts it.
func TestDoctorChecksHTTPHook(t *testing.T) {
	base, err := os.MkdirTemp("", "sd") // a short path: the socket's name is limited
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	home, proj := filepath.Join(base, "h"), filepath.Join(base, "p")
	os.MkdirAll(proj, 0o700)
	t.Setenv("SEPA_HOME", home)
	t.Setenv("HOME", filepath.Join(base, "u"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	// A dead port: listen, note it, close.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	install := func(addr string) {
		t.Helper()
		if _, err := settings.Install(settings.Path(proj, false, ""), t.TempDir(), settings.HTTPSpec("http://"+addr+"/v1/hook", "/bin/true"), false, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	doctorOut := func() string {
		var out strings.Builder
		Run(&out, proj, home)
		return out.String()
	}
	install(dead)
	t.Setenv("SEPAD_SECRET", "whatever")
	if out := doctorOut(); !strings.Contains(out, "FAIL  the http hook posts to http://"+dead+"/v1/hook, and nothing answers") {
		t.Fatalf("dead URL:\n%s", out)
	}
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv := api.New(api.Options{DB: db, Home: home, HTTPAddr: "127.0.0.1:0"})
	if err := srv.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	install(srv.Addr())
	url := "http://" + srv.Addr() + "/v1/hook"
	if out := doctorOut(); !strings.Contains(out, "FAIL  the daemon at "+url+" refuses the secret") {
		t.Fatalf("wrong secret:\n%s", out)
	}
	t.Setenv("SEPAD_SECRET", "")
	if out := doctorOut(); !strings.Contains(out, "FAIL  the http hook to "+url+": $SEPAD_SECRET is not set") {
		t.Fatalf("unset secret:\n%s", out)
	}
	secret, err := api.LoadSecret(home)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SEPAD_SECRET", secret)
	if out := doctorOut(); !strings.Contains(out, "OK    the http hook's daemon answers at "+url+" and accepts the secret") || strings.Contains(out, "FAIL  the http") {
		t.Fatalf("right secret:\n%s", out)
	}
}
