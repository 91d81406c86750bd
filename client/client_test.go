package client

import (
	"errors"
	"strings"
	"testing"
)

// An API answer becomes the body, a *BadRequest in the API's words
// without their label (the CLI exits 2), or an *APIError (404: not found).
func TestAnswer(t *testing.T) {
	if b, err := Answer(200, []byte(`{"ok":1}`)); err != nil || string(b) != `{"ok":1}` {
		t.Errorf("200: %q, %v", b, err)
	}
	_, err := Answer(400, []byte(`{"error":"bad request: limit must be a number"}`))
	var bad *BadRequest
	if !errors.As(err, &bad) || err.Error() != "limit must be a number" {
		t.Errorf("400: %#v", err)
	}
	_, err = Answer(404, []byte(`{"error":"no skill deploy"}`))
	if !IsNotFound(err) || err.Error() != "no skill deploy" {
		t.Errorf("404: %#v", err)
	}
	_, err = Answer(500, []byte("boom\n"))
	if IsNotFound(err) || err.Error() != "HTTP 500: boom" {
		t.Errorf("500: %#v", err)
	}
}

// Without a daemon or a database, a query says the daemon has not run,
// and nobody answers the socket.
func TestNoDaemonNoDatabase(t *testing.T) {
	home := t.TempDir()
	t.Setenv("SEPA_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	c := New(home, "")
	defer c.Close()
	if _, err := Status(home); !errors.Is(err, ErrNoAnswer) {
		t.Errorf("status: %v, want ErrNoAnswer", err)
	}
	if err := AlreadyRunning(home); err != nil {
		t.Errorf("already running: %v", err)
	}
	_, err := c.Get("/v1/skills")
	if err == nil || !strings.Contains(err.Error(), "the daemon has not run") {
		t.Errorf("get: %v", err)
	}
}
